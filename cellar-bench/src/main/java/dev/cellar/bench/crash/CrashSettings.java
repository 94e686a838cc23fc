package dev.cellar.bench.crash;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a crash loop does: how many cycles, clients and keys, the longest value, how long the
 * clients write before a kill (drawn between the two bounds), the longest wait between starting a
 * compaction or checkpoint and the kill, and the server's segment size (small, so that segments
 * seal and compaction has work within a short cycle).
 */
public record CrashSettings(
    int cycles,
    int clients,
    int keysPerClient,
    int maxValueBytes,
    long seed,
    long minWriteMillis,
    long maxWriteMillis,
    long maxKillDelayMillis,
    String segmentSize) {

  public CrashSettings {
    positive("cycles", cycles);
    positive("clients", clients);
    positive("keys per client", keysPerClient);
    if (maxValueBytes < 64 || maxValueBytes > ClientModel.MAX_VALUE_BYTES) {
      throw new IllegalArgumentException(
          "the longest value must be 64 to "
              + ClientModel.MAX_VALUE_BYTES
              + " bytes, got "
              + maxValueBytes);
    }
    positive("write time", minWriteMillis);
    if (maxWriteMillis < minWriteMillis) {
      throw new IllegalArgumentException(
          "the longest write time "
              + maxWriteMillis
              + " ms is below the shortest "
              + minWriteMillis
              + " ms");
    }
    if (maxKillDelayMillis < 0) {
      throw new IllegalArgumentException(
          "kill delay must not be negative, got " + maxKillDelayMillis);
    }
  }

  private static void positive(String what, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(what + " must be positive, got " + value);
    }
  }

  Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cycles", cycles);
    m.put("clients", clients);
    m.put("keys_per_client", keysPerClient);
    m.put("max_value_bytes", maxValueBytes);
    m.put("seed", seed);
    m.put("write_ms", minWriteMillis + "-" + maxWriteMillis);
    m.put("max_kill_delay_ms", maxKillDelayMillis);
    m.put("segment_size", segmentSize);
    m.put("fsync", "always");
    return m;
  }
}
