package dev.cellar.bench.crash;

/**
 * Something the server got wrong: after a restart, a key that holds neither its last acknowledged
 * state nor what the write in flight at the kill would have made it ({@link Kind#LOST}, {@link
 * Kind#WRONG}); while running, a reply the model did not predict ({@link Kind#REPLY}); or keys no
 * client wrote ({@link Kind#UNKNOWN_KEYS}).
 */
record Violation(int cycle, Kind kind, String key, String detail) {
  enum Kind {
    /** An acknowledged value is gone: the key is absent. */
    LOST,
    /** The key holds something else: an older value, a value never written, or the wrong expiry. */
    WRONG,
    /** A reply that contradicts the acknowledged writes before it. */
    REPLY,
    /** The store has more keys than the clients' models. */
    UNKNOWN_KEYS
  }

  @Override
  public String toString() {
    return "cycle " + cycle + " " + kind + " " + key + ": " + detail;
  }
}
