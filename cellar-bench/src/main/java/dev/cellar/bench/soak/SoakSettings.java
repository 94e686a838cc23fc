package dev.cellar.bench.soak;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a soak run does, validated once from the command line. */
record SoakSettings(
    double minutes,
    int clients,
    int keys,
    int sampleSeconds,
    int bgsaveSeconds,
    int fullGcSeconds,
    String fsync,
    List<String> serverArguments,
    boolean hostile) {

  SoakSettings {
    if (minutes <= 0) {
      throw new IllegalArgumentException("--minutes must be positive, got " + minutes);
    }
    if (clients <= 0 || keys < clients) {
      throw new IllegalArgumentException(
          "--clients must be positive and --keys at least --clients, got "
              + clients
              + " and "
              + keys);
    }
    if (sampleSeconds <= 0) {
      throw new IllegalArgumentException("--sample-seconds must be positive, got " + sampleSeconds);
    }
    if (bgsaveSeconds < 0 || fullGcSeconds < 0) {
      throw new IllegalArgumentException(
          "--bgsave-seconds and --full-gc-seconds must be 0 (never) or positive");
    }
    if (hostile
        && fullGcSeconds > 0
        && (fullGcSeconds < HostileLoad.QUIET_SECONDS + 5 || fullGcSeconds % sampleSeconds != 0)) {
      throw new IllegalArgumentException(
          "with hostile clients, --full-gc-seconds must be 0, or at least "
              + (HostileLoad.QUIET_SECONDS + 5)
              + " and a multiple of --sample-seconds (each period between live-heap readings is one cycle of the hostile clients, which"
              + " pause before the reading), got "
              + fullGcSeconds
              + " and "
              + sampleSeconds
              + "; or pass --no-hostile");
    }
    serverArguments = List.copyOf(serverArguments);
  }

  long durationSeconds() {
    return Math.round(minutes * 60);
  }

  Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("minutes", minutes);
    m.put("clients", clients);
    m.put("keys", keys);
    m.put(
        "value_bytes",
        MixedLoadClient.MIN_VALUE + "-" + MixedLoadClient.MAX_VALUE + " log-uniform");
    m.put("mix", "GET 35%, SET 30%, INCR 10%, EXPIRE 10%, APPEND 8%, DEL 7%");
    m.put("sample_seconds", sampleSeconds);
    m.put("bgsave_seconds", bgsaveSeconds);
    m.put("full_gc_seconds", fullGcSeconds);
    m.put("fsync", fsync);
    m.put("server_arguments", serverArguments);
    m.put("hostile", hostile);
    return m;
  }
}
