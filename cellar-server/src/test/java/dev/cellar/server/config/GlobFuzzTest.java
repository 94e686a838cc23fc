package dev.cellar.server.config;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.*;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * {@link Glob} against a reference written for clarity, not speed, and against hostile patterns.
 *
 * <h2>The reference semantics (Redis's {@code stringmatchlen}, byte-wise)</h2>
 *
 * <ul>
 *   <li>{@code *} matches any run of bytes, {@code ?} any one byte, {@code \x} the byte x (a
 *       trailing backslash is itself).
 *   <li>{@code [...]} matches one byte: {@code ^} first negates; {@code \x} is x; {@code a-z} is a
 *       range, its ends in either order, and the end may be {@code ]} (so {@code [a-]} does not
 *       close there, as in Redis); the class ends at {@code ]} or at the pattern's end.
 *   <li>Bytes compare unsigned. Redis compares C {@code char}s, signed on x86 and unsigned on ARM,
 *       so its ranges over bytes above 0x7f differ by platform; Cellar takes the unsigned reading.
 *   <li>An empty subject: Redis's loop never starts, so only the empty pattern matches it. Cellar
 *       keys and setting names are never empty, and Glob keeps the usual meaning ({@code *} matches
 *       it); the comparison leaves that one case out and checks Glob's answer separately.
 * </ul>
 */
class GlobFuzzTest {
  /** Pattern and subject bytes the fuzzer picks from: every special byte, a few plain ones. */
  private static final byte[] ALPHABET = "*?[]^-\\ab]z".getBytes(ISO_8859_1);

  private static final int PAD = 5;

  @FuzzTest(maxDuration = "15s")
  void agreesWithReference(FuzzedDataProvider data) {
    boolean anyByte = data.consumeBoolean();
    byte[] pattern = pick(data, data.consumeInt(0, 12), anyByte);
    byte[] subject = pick(data, data.consumeInt(0, 12), anyByte);
    boolean actual = matchPadded(pattern, subject);
    if (subject.length == 0) {
      assertEquals(allStars(pattern), actual, describe(pattern, subject));
    } else {
      assertEquals(Reference.matches(pattern, subject), actual, describe(pattern, subject));
    }
  }

  @Test
  void hostilePatternsFinishInBoundedTime() {
    byte[] subject = "a".repeat(20_000).getBytes(ISO_8859_1);
    String[] hostile = {
      "*a".repeat(1_000) + "b",
      "a*".repeat(1_000) + "b",
      "*".repeat(10_000) + "b",
      "*?".repeat(1_000) + "b",
      "*[a]".repeat(1_000) + "[b]",
      "*" + "\\a*".repeat(1_000) + "b",
    };
    for (String p : hostile) {
      byte[] pattern = p.getBytes(ISO_8859_1);
      long started = System.nanoTime();
      assertFalse(Glob.matches(pattern, 0, pattern.length, subject, 0, subject.length));
      long millis = (System.nanoTime() - started) / 1_000_000;
      // O(pattern x subject) is at most 1.4e8 steps here; exponential would never finish.
      assertTrue(millis < 10_000, p.substring(0, 8) + "... took " + millis + " ms");
    }
  }

  @Test
  void examples() {
    assertTrue(matches("h?llo", "hello"));
    assertTrue(matches("h*llo", "heeeello"));
    assertTrue(matches("h[ae]llo", "hallo"));
    assertFalse(matches("h[^e]llo", "hello"));
    assertTrue(matches("h[a-b]llo", "hbllo"));
    assertTrue(matches("h[b-a]llo", "hbllo"));
    assertTrue(matches("\\*", "*"));
    assertFalse(matches("\\*", "a"));
    assertTrue(matches("a\\", "a\\"));
    assertTrue(matches("[a-]x]", "]"), "[a-] runs to the next ] as in Redis: a range from ] to a");
    assertFalse(matches("[a-]", "-"));
    assertFalse(matches("[", "["), "an unclosed, empty class matches nothing");
    assertTrue(matches("[^", "x"), "an unclosed, empty negated class matches anything");
    assertTrue(matches("*", ""));
  }

  private static boolean matches(String pattern, String subject) {
    byte[] p = b(pattern);
    byte[] s = b(subject);
    return Glob.matches(p, 0, p.length, s, 0, s.length);
  }

  private static byte[] b(String s) {
    return s.getBytes(ISO_8859_1);
  }

  /**
   * Glob on the inputs placed inside larger arrays: once between zeros, once between bytes that
   * would change the answer if read ({@code *}); the answers must agree.
   */
  private static boolean matchPadded(byte[] pattern, byte[] subject) {
    boolean first = matchIn(pattern, subject, (byte) 0);
    boolean second = matchIn(pattern, subject, (byte) '*');
    assertEquals(first, second, "Glob read outside its ranges: " + describe(pattern, subject));
    return first;
  }

  private static boolean matchIn(byte[] pattern, byte[] subject, byte filler) {
    byte[] p = new byte[PAD + pattern.length + PAD];
    byte[] s = new byte[PAD + subject.length + PAD];
    Arrays.fill(p, filler);
    Arrays.fill(s, filler);
    System.arraycopy(pattern, 0, p, PAD, pattern.length);
    System.arraycopy(subject, 0, s, PAD, subject.length);
    return Glob.matches(p, PAD, PAD + pattern.length, s, PAD, PAD + subject.length);
  }

  private static byte[] pick(FuzzedDataProvider data, int length, boolean anyByte) {
    byte[] out = new byte[length];
    for (int i = 0; i < length; i++) {
      out[i] = anyByte ? data.consumeByte() : ALPHABET[data.consumeInt(0, ALPHABET.length - 1)];
    }
    return out;
  }

  private static boolean allStars(byte[] pattern) {
    for (byte b : pattern) {
      if (b != '*') {
        return false;
      }
    }
    return true;
  }

  private static String describe(byte[] pattern, byte[] subject) {
    return "pattern "
        + Arrays.toString(pattern)
        + " '"
        + new String(pattern, ISO_8859_1)
        + "' subject "
        + Arrays.toString(subject)
        + " '"
        + new String(subject, ISO_8859_1)
        + "'";
  }

  /**
   * The semantics above as directly as they can be written: one recursive function of (pattern
   * position, subject position), memoised so that short inputs with many stars stay cheap.
   */
  static final class Reference {
    private final byte[] p;
    private final byte[] s;
    private final Boolean[][] memo;

    private Reference(byte[] p, byte[] s) {
      this.p = p;
      this.s = s;
      this.memo = new Boolean[p.length + 1][s.length + 1];
    }

    static boolean matches(byte[] pattern, byte[] subject) {
      return new Reference(pattern, subject).match(0, 0);
    }

    private boolean match(int pi, int si) {
      if (memo[pi][si] == null) {
        memo[pi][si] = compute(pi, si);
      }
      return memo[pi][si];
    }

    private boolean compute(int pi, int si) {
      if (pi == p.length) {
        return si == s.length;
      }
      if (p[pi] == '*') {
        // The rest of the pattern at this position, or this star eats one more byte.
        return match(pi + 1, si) || (si < s.length && match(pi, si + 1));
      }
      if (si == s.length) {
        return false;
      }
      int next = singleByte(pi, s[si] & 0xff);
      return next >= 0 && match(next, si + 1);
    }

    /** If the one-byte element at {@code pi} matches {@code c}, the position after it; else -1. */
    private int singleByte(int pi, int c) {
      if (p[pi] == '?') {
        return pi + 1;
      }
      if (p[pi] == '\\' && pi + 1 < p.length) {
        return (p[pi + 1] & 0xff) == c ? pi + 2 : -1;
      }
      if (p[pi] != '[') {
        return (p[pi] & 0xff) == c ? pi + 1 : -1;
      }
      int i = pi + 1;
      boolean negated = i < p.length && p[i] == '^';
      if (negated) {
        i++;
      }
      boolean found = false;
      while (i < p.length && p[i] != ']') {
        if (p[i] == '\\' && i + 1 < p.length) {
          found |= (p[i + 1] & 0xff) == c;
          i += 2;
        } else if (i + 2 < p.length && p[i + 1] == '-') {
          int lo = Math.min(p[i] & 0xff, p[i + 2] & 0xff);
          int hi = Math.max(p[i] & 0xff, p[i + 2] & 0xff);
          found |= c >= lo && c <= hi;
          i += 3;
        } else {
          found |= (p[i] & 0xff) == c;
          i++;
        }
      }
      int after = Math.min(i + 1, p.length);
      return found != negated ? after : -1;
    }
  }
}
