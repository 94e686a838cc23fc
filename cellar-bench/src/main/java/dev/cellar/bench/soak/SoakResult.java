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
 * @param fullCollectionsFailed full collections asked (jcmd GC.class_histogram) that failed or gave no total
 * @param serverExit null if the server was alive at the end, else how it had ended
 * @param outOfMemoryLines lines of the server's output that mention OutOfMemoryError
 * @param durationSeconds wall time of the load
 */
record SoakResult(
    List<Sample> samples, long operations, long errorReplies, long wrongReplies, long connectionFailures, List<String> problems,
    long bgsaves, long bgsavesRefused, long fullCollectionsFailed, String serverExit, long outOfMemoryLines, long durationSeconds) {

  long errors() {
    return errorReplies + wrongReplies + connectionFailures;
  }

  List<Flatness> memory() {
    return List.of(
        Flatness.of("RSS (VmRSS)", samples, Sample::vmRss),
        Flatness.of("RSS, anonymous (RssAnon)", samples, Sample::rssAnon),
        Flatness.of("heap, live (after a full GC)", samples, Sample::heapLive));
  }

  /** Whether the run was long enough for a verdict on every memory series. */
  boolean judged() {
    return memory().stream().allMatch(Flatness::judged);
  }

  /** The run passes when resident memory and the live heap are flat, nothing failed and the server lived. */
  boolean passed() {
    return memory().stream().allMatch(Flatness::flat) && errors() == 0 && serverExit == null && outOfMemoryLines == 0;
  }
}
