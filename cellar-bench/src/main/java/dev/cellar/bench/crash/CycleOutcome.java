package dev.cellar.bench.crash;

import java.util.List;
import java.util.Locale;

/**
 * One cycle: write, kill, restart, check.
 *
 * @param moment when the kill came
 * @param started the server's reply to the BGREWRITEAOF or BGSAVE of the moment (null for none)
 * @param killDelayMillis time from that command to the kill (a random wait, then until the work
 *     ran)
 * @param compactionRunning whether INFO said {@code aof_rewrite_in_progress:1} just before the kill
 * @param checkpointRunning whether INFO said {@code rdb_bgsave_in_progress:1} just before the kill
 * @param compactions compaction passes that rewrote segments since the server started ({@code
 *     cellar_compactions} just before the kill): whether compaction had work
 * @param writeMillis how long the clients wrote before the kill began
 * @param acknowledged writes acknowledged in this cycle
 * @param inFlight writes in flight at the kill (one per client at most)
 * @param restartMillis from starting the restarted server to its first PONG (recovery included)
 * @param keysChecked keys read back after the restart
 * @param violations what the check (and the replies during the cycle) found wrong
 */
record CycleOutcome(
    int cycle,
    KillMoment moment,
    String started,
    long killDelayMillis,
    boolean compactionRunning,
    boolean checkpointRunning,
    long compactions,
    long writeMillis,
    long acknowledged,
    int inFlight,
    long restartMillis,
    long keysChecked,
    List<Violation> violations) {

  String line(int cycles) {
    String running =
        compactionRunning && checkpointRunning
            ? "compaction and checkpoint running"
            : compactionRunning
                ? "compaction running"
                : checkpointRunning ? "checkpoint running" : "no compaction or checkpoint running";
    String when =
        moment.delayed()
            ? moment.description() + " +" + killDelayMillis + " ms"
            : moment.description();
    return String.format(
        Locale.ROOT,
        "cycle %d/%d: killed %s (%s; %d compaction passes before) after %,d ms of writes; %,d acknowledged, %d in flight; "
            + "restart %,d ms; %,d keys checked: %s",
        cycle,
        cycles,
        when,
        running,
        compactions,
        writeMillis,
        acknowledged,
        inFlight,
        restartMillis,
        keysChecked,
        violations.isEmpty() ? "ok" : violations.size() + " VIOLATIONS");
  }
}
