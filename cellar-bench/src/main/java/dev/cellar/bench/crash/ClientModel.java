package dev.cellar.bench.crash;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * What one client's keys must hold: the state after its last acknowledged write, and the one write
 * it has sent and not yet seen answered (a client waits for each reply before the next write, so
 * there is at most one).
 *
 * <p>Keys. Each client owns its keys ({@code crash:c<id>:k<n>} for strings, {@code
 * crash:c<id>:n<n>} for counters), so no other writer can change them and the model is exact while
 * the server runs. Values are unique ({@code c<id>.<seq>.} and filler of random length), so a value
 * read back names the write that made it, and overwrites leave garbage for compaction.
 *
 * <p>After a kill, a key may hold its acknowledged state, or what the in-flight write makes of it
 * (which may or may not have reached the log); anything else is a {@link Violation}. What the
 * restarted server holds then becomes the exact state the next cycle builds on.
 *
 * <p>Concurrency: owned by its {@link CrashClient}'s thread while a cycle runs and by the loop's
 * thread between cycles; the thread hand-over (start, join) orders the two.
 */
final class ClientModel {
  /** The longest value a client writes (the filler it cuts values from is a little longer). */
  static final int MAX_VALUE_BYTES = 64 << 10;

  private static final String FILLER = filler();
  private static final long TTL_SECONDS = 3600;

  private final int id;
  private final int maxValueBytes;
  private final Random random;
  private final List<String> strings = new ArrayList<>();
  private final List<String> counters = new ArrayList<>();
  private final Map<String, KeyState> states = new HashMap<>();
  private final List<Violation> replyViolations = new ArrayList<>();
  private Operation inFlight;
  private long sequence;

  /** Written by the client's thread only; volatile so the loop can see that a client got going. */
  private volatile long acknowledged;

  private int cycle;

  ClientModel(int id, int keys, int maxValueBytes, long seed) {
    this.id = id;
    this.maxValueBytes = maxValueBytes;
    this.random = new Random(seed);
    for (int i = 0; i < keys; i++) {
      strings.add("crash:c" + id + ":k" + i);
    }
    for (int i = 0; i < Math.max(1, keys / 50); i++) {
      counters.add("crash:c" + id + ":n" + i);
    }
  }

  int id() {
    return id;
  }

  /** Every key this client may write. */
  List<String> keys() {
    List<String> all = new ArrayList<>(strings);
    all.addAll(counters);
    return all;
  }

  KeyState state(String key) {
    return states.getOrDefault(key, KeyState.ABSENT);
  }

  /** Keys that must exist now (between cycles, with nothing in flight). */
  long presentKeys() {
    return states.values().stream().filter(KeyState::present).count();
  }

  /** Writes acknowledged since the model was made. */
  long acknowledged() {
    return acknowledged;
  }

  Operation inFlight() {
    return inFlight;
  }

  void startCycle(int number) {
    cycle = number;
  }

  /**
   * The next write: mostly plain overwrites (the garbage compaction reclaims), with deletes,
   * expiring sets, counters, appends and two-key MSETs mixed in.
   */
  Operation next() {
    int dice = random.nextInt(100);
    String key = strings.get(random.nextInt(strings.size()));
    if (dice < 40) {
      return new Operation.Set(key, newValue());
    } else if (dice < 50) {
      return new Operation.SetEx(key, newValue(), TTL_SECONDS);
    } else if (dice < 65) {
      return new Operation.Del(key);
    } else if (dice < 80) {
      return new Operation.Incr(counters.get(random.nextInt(counters.size())));
    } else if (dice < 90) {
      // Appends grow a value without bound; past the longest value the key starts over.
      return state(key).present() && state(key).value().length() > maxValueBytes
          ? new Operation.Set(key, newValue())
          : new Operation.Append(key, "+" + id + "." + ++sequence);
    }
    String other = strings.get(random.nextInt(strings.size()));
    return other.equals(key)
        ? new Operation.Set(key, newValue())
        : new Operation.Mset(key, newValue(), other, newValue());
  }

  /** Marks {@code op} as sent: from now on it may have landed. */
  void begin(Operation op) {
    inFlight = op;
  }

  /** The server answered {@code reply} to the write in flight: it is acknowledged. */
  void acknowledge(Operation op, String reply) {
    String expected = op.expectedReply(this::state);
    if (!expected.equals(reply)) {
      replyViolations.add(
          new Violation(
              cycle,
              Violation.Kind.REPLY,
              op.keys().getFirst(),
              op.command()
                  + " answered "
                  + reply
                  + ", expected "
                  + expected
                  + " after the acknowledged writes before it"));
    }
    for (String key : op.keys()) {
      states.put(key, op.after(key, state(key)));
    }
    inFlight = null;
    acknowledged++;
  }

  /** Reply violations seen since the last call. */
  List<Violation> drainReplyViolations() {
    List<Violation> out = List.copyOf(replyViolations);
    replyViolations.clear();
    return out;
  }

  /**
   * Checks what a restarted server holds for every key against the model, then adopts it: the
   * in-flight write, if any, is settled one way or the other.
   *
   * @param observed GET and PTTL of every key of {@link #keys()}
   */
  List<Violation> verify(Map<String, KeyState.Observed> observed) {
    List<Violation> violations = new ArrayList<>();
    for (String key : keys()) {
      KeyState.Observed found = observed.get(key);
      KeyState acked = state(key);
      KeyState landed =
          inFlight != null && inFlight.keys().contains(key) ? inFlight.after(key, acked) : null;
      if (acked.matches(found) || (landed != null && landed.matches(found))) {
        states.put(key, found.asState());
        continue;
      }
      Violation.Kind kind = found.value() == null ? Violation.Kind.LOST : Violation.Kind.WRONG;
      violations.add(
          new Violation(
              cycle,
              kind,
              key,
              "holds "
                  + found
                  + "; last acknowledged "
                  + acked
                  + (landed == null
                      ? ""
                      : "; in flight " + inFlight.command() + " making it " + landed)));
      states.put(key, found.asState());
    }
    inFlight = null;
    return violations;
  }

  private String newValue() {
    String prefix = "c" + id + "." + ++sequence + ".";
    int length = 16 + random.nextInt(maxValueBytes - 48);
    int from = random.nextInt(FILLER.length() - length);
    return prefix + FILLER.substring(from, from + length);
  }

  private static String filler() {
    Random random = new Random(42);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < MAX_VALUE_BYTES + 1024; i++) {
      text.append((char) ('a' + random.nextInt(26)));
    }
    return text.toString();
  }
}
