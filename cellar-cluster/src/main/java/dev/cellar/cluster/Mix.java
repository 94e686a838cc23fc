package dev.cellar.cluster;

/** The 64-bit finalizer of SplitMix64: every input bit affects every output bit. */
final class Mix {
  private Mix() {}

  static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
