package dev.cellar.bench.soak;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one hostile pattern did: connections tried, the answers a defended server gives (a trickled
 * request completed, a refusal), the disconnects the server made, and anything unexpected.
 *
 * @param id the pattern's name in the JSON record
 * @param description what it does, for the report
 * @param disconnectsExpected whether the server must cut some of these clients off for the run to
 *     pass
 * @param completionsExpected whether some of its requests must be answered for the run to pass
 */
record PatternCounters(
    String id,
    String description,
    boolean disconnectsExpected,
    boolean completionsExpected,
    LongAdder attempts,
    LongAdder completed,
    LongAdder disconnects,
    LongAdder errors) {

  PatternCounters(
      String id, String description, boolean disconnectsExpected, boolean completionsExpected) {
    this(
        id,
        description,
        disconnectsExpected,
        completionsExpected,
        new LongAdder(),
        new LongAdder(),
        new LongAdder(),
        new LongAdder());
  }

  /** Whether the pattern ran, met the defence it tests, and saw nothing unexpected. */
  boolean passed() {
    return attempts.sum() > 0
        && errors.sum() == 0
        && (!disconnectsExpected || disconnects.sum() > 0)
        && (!completionsExpected || completed.sum() > 0);
  }

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("pattern", id);
    m.put("description", description);
    m.put("attempts", attempts.sum());
    m.put("completed", completed.sum());
    m.put("disconnects_seen", disconnects.sum());
    m.put("errors", errors.sum());
    m.put("passed", passed());
    return m;
  }
}
