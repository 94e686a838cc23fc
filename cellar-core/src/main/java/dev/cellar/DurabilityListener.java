package dev.cellar;

/**
 * Told when writes are durable; see {@link Cellar#whenDurable(DurabilityListener)}. Called on an
 * engine thread: an implementation hands the news to its own thread and returns at once.
 */
@FunctionalInterface
public interface DurabilityListener {
  /**
   * The writes covered are durable under the store's {@link Fsync} policy, or, if {@code failure}
   * is not null, may not be: the fsync failed, the store refuses writes until it is reopened, and
   * those writes must not be acknowledged.
   */
  void durable(RuntimeException failure);
}
