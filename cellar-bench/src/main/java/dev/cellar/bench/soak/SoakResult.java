package dev.cellar.bench.soak;

import java.util.List;

/**
 * Everything a soak run found, for the report.
 *
 * @param samples the readings, in order
 * @param operations operations the clients completed
 * @param errorReplies error replies
 * @param wrongReplies replies of the wrong type or with values the client did not write
 * @param connectionFailures connections lost or timed out
 * @param problems the first few of those, verbatim
 * @param bgsaves BGSAVEs started
 * @param bgsavesRefused BGSAVEs refused (one was still running)
 * @param fullCollectionsFailed full collections asked (jcmd GC.class_histogram) that failed or gave
 *     no total
 * @param serverExit null if the server was alive at the end, else how it had ended
 * @param outOfMemoryLines lines of the server's output that mention OutOfMemoryError
 * @param durationSeconds wall time of the load
 * @param stalls operations of the well-behaved clients that took over {@link
 *     LoadCounters#STALL_MILLIS}
 * @param longestMillis the longest operation of a well-behaved client
 * @param hostile what each hostile pattern did; empty when they did not run ({@code --no-hostile})
 * @param connections the server's connections after the hostile clients stopped; null when they did
 *     not run
 */
record SoakResult(
    List<Sample> samples,
    long operations,
    long errorReplies,
    long wrongReplies,
    long connectionFailures,
    List<String> problems,
    long bgsaves,
    long bgsavesRefused,
    long fullCollectionsFailed,
    String serverExit,
    long outOfMemoryLines,
    long durationSeconds,
    long stalls,
    long longestMillis,
    List<PatternCounters> hostile,
    ConnectionsAfter connections) {

  SoakResult {
    hostile = List.copyOf(hostile);
  }

  long errors() {
    return errorReplies + wrongReplies + connectionFailures;
  }

  List<Flatness> memory() {
    return List.of(
        Flatness.afterCollections(
            samples.stream().anyMatch(s -> s.heapLive() >= 0)
                ? "RSS, anonymous (RssAnon), after each full GC"
                : "RSS, anonymous (RssAnon)",
            samples,
            Sample::rssAnon),
        Flatness.of("heap, live (after a full GC)", samples, Sample::heapLive));
  }

  /** Whether the run was long enough for a verdict on every memory series. */
  boolean judged() {
    return memory().stream().allMatch(Flatness::judged);
  }

  /**
   * The run passes when resident memory and the live heap are flat, nothing failed or stalled, the
   * server lived, and, with hostile clients, every pattern ran and met its defence and the server's
   * connections came back to the well-behaved ones.
   */
  boolean passed() {
    return memory().stream().allMatch(Flatness::flat) && servedAndDefended();
  }

  /**
   * Everything {@link #passed()} asks except flat memory, which a run shorter than ten minutes
   * cannot show.
   */
  boolean servedAndDefended() {
    return errors() == 0
        && stalls == 0
        && serverExit == null
        && outOfMemoryLines == 0
        && hostileDefended();
  }

  boolean hostileDefended() {
    return hostile.isEmpty()
        || (hostile.stream().allMatch(PatternCounters::passed)
            && connections != null
            && connections.returned());
  }
}
