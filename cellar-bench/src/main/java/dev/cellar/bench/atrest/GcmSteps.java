package dev.cellar.bench.atrest;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-256-GCM from the JDK's provider, one GCM operation per record as the log would do it: {@code
 * Cipher.init} with a nonce of its own, then {@code doFinal} over the record, 16-byte tag. The
 * {@code Cipher} is made once and re-initialised per record, as a log writer owning one would.
 *
 * <p>Nonces are deterministic (NIST SP 800-38D, 8.2.1): a 4-byte fixed field, then a 64-bit counter
 * that never repeats under one key, here across passes too. The JDK refuses to encrypt twice with
 * the same key and nonce in a row; a counter keeps every record's nonce unique anyway, as the real
 * format must. Decryption gets each record's own nonce and checks its tag in {@code doFinal}: a
 * mismatch throws, so the decrypt row measures verification too.
 */
final class GcmSteps {
  static final String TRANSFORMATION = "AES/GCM/NoPadding";
  static final int NONCE_BYTES = 12;
  static final int TAG_BITS = 128;
  private static final VarHandle COUNTER =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private final SecretKeySpec key;
  private final byte[] nonce = new byte[NONCE_BYTES];
  private long counter;

  GcmSteps(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    byte[] keyBytes = new byte[32];
    random.nextBytes(keyBytes);
    key = new SecretKeySpec(keyBytes, "AES");
    random.nextBytes(nonce); // the fixed field; the counter overwrites bytes 4 to 11
  }

  /** The provider that serves {@link #TRANSFORMATION}, such as {@code SunJCE}. */
  static String provider() throws GeneralSecurityException {
    return Cipher.getInstance(TRANSFORMATION).getProvider().getName();
  }

  /**
   * One GCM operation per input: per {@code record} when the inputs are the documents, per {@code
   * block} when they are blocks of {@code documents} documents.
   */
  CodecStep encrypt(List<byte[]> inputs, int documents, String unit)
      throws GeneralSecurityException {
    return encrypt(inputs, documents, totalLength(inputs), unit);
  }

  /**
   * One GCM operation per input, where the inputs are the documents already compressed ({@code
   * documentBytes} before that): the cipher's share of a compress-then-encrypt writer.
   */
  CodecStep encrypt(List<byte[]> inputs, int documents, long documentBytes, String unit)
      throws GeneralSecurityException {
    Cipher cipher = Cipher.getInstance(TRANSFORMATION);
    byte[] out = new byte[maxLength(inputs) + TAG_BITS / 8];
    CodecStep.Pass pass =
        () -> {
          long sink = 0;
          for (byte[] in : inputs) {
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nextNonce()));
            int n = cipher.doFinal(in, 0, in.length, out, 0);
            sink += n + out[n - 1];
          }
          return sink;
        };
    return step("encrypt", inputs, documents, documentBytes, unit, pass, cipher);
  }

  CodecStep decrypt(List<byte[]> inputs, int documents, String unit)
      throws GeneralSecurityException {
    Cipher cipher = Cipher.getInstance(TRANSFORMATION);
    byte[][] nonces = new byte[inputs.size()][];
    byte[][] sealed = new byte[inputs.size()][];
    for (int i = 0; i < sealed.length; i++) {
      nonces[i] = nextNonce().clone();
      cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonces[i]));
      sealed[i] = cipher.doFinal(inputs.get(i));
    }
    byte[] out = new byte[maxLength(inputs)];
    for (int i = 0; i < sealed.length; i++) {
      cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonces[i]));
      int n = cipher.doFinal(sealed[i], 0, sealed[i].length, out, 0);
      if (!Arrays.equals(out, 0, n, inputs.get(i), 0, inputs.get(i).length)) {
        throw new IllegalStateException("AES-GCM round trip of input " + i + " differs");
      }
    }
    CodecStep.Pass pass =
        () -> {
          long sink = 0;
          for (int i = 0; i < sealed.length; i++) {
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonces[i]));
            int n = cipher.doFinal(sealed[i], 0, sealed[i].length, out, 0);
            sink += n + out[n - 1];
          }
          return sink;
        };
    return step("decrypt", inputs, documents, totalLength(inputs), unit, pass, cipher);
  }

  /**
   * The next nonce, in one array that is overwritten each time ({@code GCMParameterSpec} copies
   * it).
   */
  private byte[] nextNonce() {
    COUNTER.set(nonce, NONCE_BYTES - Long.BYTES, ++counter);
    return nonce;
  }

  private static CodecStep step(
      String op,
      List<byte[]> inputs,
      int documents,
      long documentBytes,
      String unit,
      CodecStep.Pass pass,
      Cipher cipher) {
    // Each input stores its tag, and its nonce unless the format derives it from the position.
    long stored = totalLength(inputs) + (long) inputs.size() * (NONCE_BYTES + TAG_BITS / 8);
    return new CodecStep(
        op,
        "aes-256-gcm",
        "JDK " + Runtime.version() + " " + cipher.getProvider().getName(),
        unit,
        documents,
        documentBytes,
        stored,
        pass);
  }

  private static long totalLength(List<byte[]> inputs) {
    long total = 0;
    for (byte[] in : inputs) {
      total += in.length;
    }
    return total;
  }

  private static int maxLength(List<byte[]> inputs) {
    int max = 1;
    for (byte[] in : inputs) {
      max = Math.max(max, in.length);
    }
    return max;
  }
}
