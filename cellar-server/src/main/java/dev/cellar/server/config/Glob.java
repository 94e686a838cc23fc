package dev.cellar.server.config;

/**
 * Redis's glob ({@code stringmatchlen}): {@code * ? [abc] [^a] [a-z]} and {@code \} escapes, over
 * bytes. Used by {@code KEYS}, {@code SCAN MATCH} and {@code CONFIG GET}. Iterative, with one
 * backtrack point per star, so a hostile pattern costs O(pattern x string), not exponential.
 *
 * <p>As in Redis, a pattern that would take the matcher more than {@link #MAX_NESTED_STARS} levels
 * of stars deep matches nothing. Where Redis's answer is an accident of C it is not copied: bytes
 * compare unsigned (Redis's ranges over bytes above 0x7f depend on the platform's {@code char}),
 * and {@code *} matches the empty string (Redis's loop never starts on one; keys here are never
 * empty). GlobFuzzTest holds the reference semantics.
 */
public final class Glob {
  private Glob() {}

  /**
   * The most stars Redis follows into: its matcher recurses once per run of stars it passes on its
   * way to a match, and gives up (no match) past 1,000 levels, against abusive patterns.
   */
  static final int MAX_NESTED_STARS = 1000;

  public static boolean matches(byte[] p, int pFrom, int pTo, byte[] s, int sFrom, int sTo) {
    // Each counted run is a star and a byte after it: only a long pattern can have too many.
    if (pTo - pFrom > 2 * MAX_NESTED_STARS && nestedStars(p, pFrom, pTo) > MAX_NESTED_STARS) {
      return false;
    }
    int pi = pFrom;
    int si = sFrom;
    int starP = -1;
    int starS = -1;
    while (si < sTo) {
      if (pi < pTo && p[pi] == '*') {
        while (pi < pTo && p[pi] == '*') {
          pi++;
        }
        if (pi == pTo) {
          return true;
        }
        starP = pi;
        starS = si;
        continue;
      }
      if (pi < pTo) {
        int next = matchOne(p, pi, pTo, s[si]);
        if (next >= 0) {
          pi = next;
          si++;
          continue;
        }
      }
      if (starP < 0) {
        return false;
      }
      pi = starP;
      si = ++starS;
    }
    while (pi < pTo && p[pi] == '*') {
      pi++;
    }
    return pi == pTo;
  }

  /**
   * How deep Redis's matcher would recurse to match the whole pattern: one level per run of stars
   * that something follows (a match reaches each with string left to match, since what follows
   * takes a byte; a final run matches the rest without recursing). Stars in a class or escaped do
   * not count.
   */
  private static int nestedStars(byte[] p, int pFrom, int pTo) {
    int runs = 0;
    boolean inRun = false;
    for (int i = pFrom; i < pTo; i++) {
      byte c = p[i];
      if (c == '*') {
        inRun = true;
        continue;
      }
      if (inRun) {
        runs++;
        inRun = false;
      }
      if (c == '\\') {
        i++;
      } else if (c == '[') {
        for (i++; i < pTo && p[i] != ']'; i++) {
          if (p[i] == '\\') {
            i++;
          }
        }
      }
    }
    return runs;
  }

  /** If the pattern element at {@code pi} matches {@code c}, the index after it; else -1. */
  private static int matchOne(byte[] p, int pi, int pTo, byte c) {
    byte pc = p[pi];
    if (pc == '?') {
      return pi + 1;
    }
    if (pc == '\\' && pi + 1 < pTo) {
      return p[pi + 1] == c ? pi + 2 : -1;
    }
    if (pc != '[') {
      return pc == c ? pi + 1 : -1;
    }
    int i = pi + 1;
    boolean not = i < pTo && p[i] == '^';
    if (not) {
      i++;
    }
    boolean match = false;
    while (i < pTo && p[i] != ']') {
      if (p[i] == '\\' && i + 1 < pTo) {
        match |= p[i + 1] == c;
        i += 2;
      } else if (i + 2 < pTo && p[i + 1] == '-') {
        // As in Redis, a range's end is taken as it stands, even ']': "[a-]" does not close.
        // Bytes compare unsigned (Redis compares chars: signed on x86, unsigned on ARM).
        int lo = p[i] & 0xff;
        int hi = p[i + 2] & 0xff;
        if (lo > hi) {
          int t = lo;
          lo = hi;
          hi = t;
        }
        int v = c & 0xff;
        match |= v >= lo && v <= hi;
        i += 3;
      } else {
        match |= p[i] == c;
        i++;
      }
    }
    // An unclosed class ends at the pattern's end, as in Redis.
    int after = i < pTo ? i + 1 : i;
    return match != not ? after : -1;
  }
}
