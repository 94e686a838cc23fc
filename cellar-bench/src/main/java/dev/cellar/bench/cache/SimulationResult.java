package dev.cellar.bench.cache;

/** One policy at one capacity over one trace. */
record SimulationResult(
    PolicyKind policy,
    TraceKind trace,
    double sizePercent,
    int capacity,
    long requests,
    long misses,
    long hitsThatWrote,
    int largestSize,
    long windowRequests,
    long windowMisses) {

  /** The miss ratio within the trace's window (the requests right after the scan), or NaN. */
  double windowMissRatio() {
    return windowRequests == 0 ? Double.NaN : (double) windowMisses / windowRequests;
  }

  double missRatio() {
    return requests == 0 ? 0 : (double) misses / requests;
  }

  long hits() {
    return requests - misses;
  }

  /** Hits that wrote shared state, as a share of all hits. */
  double writingHitShare() {
    return hits() == 0 ? 0 : (double) hitsThatWrote / hits();
  }
}
