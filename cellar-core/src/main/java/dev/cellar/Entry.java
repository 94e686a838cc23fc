package dev.cellar;

/**
 * One live key-value pair, copied onto the heap.
 *
 * @param key the key bytes
 * @param value the value bytes
 * @param expireAtEpochMillis the expiry, or {@link Cellar#NO_EXPIRY}
 */
public record Entry(byte[] key, byte[] value, long expireAtEpochMillis) {}
