package dev.cellar.log;

import dev.cellar.EncryptionKeyException;
import dev.cellar.EncryptionKeys;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The AES-256-GCM key of one encrypted segment file, and the record-level seal and open (see {@code
 * docs/format/encryption.md}).
 *
 * <h2>Why a key per file, and the offset as nonce</h2>
 *
 * GCM fails badly if one key ever encrypts two messages under one nonce: the XOR of the plaintexts
 * leaks and the authentication key can be recovered. Each file gets its own key, HMAC-SHA256 of the
 * store key and a random 128-bit salt drawn when the file is created, so nonces need to be unique
 * only within the file; and within the file the nonce is the record's offset. An offset is written
 * once: the log writer and compaction append each file from its start to its end, an encrypted
 * segment is never reopened for appending (a crash may have left ciphertext past the recovered end,
 * which a new record at the same offset would pair with the same nonce), and a file's salt is never
 * reused, since every creation draws a new one, even for a reused segment id.
 *
 * <h2>What is authenticated</h2>
 *
 * The key and the value are the ciphertext; the record's other fields (type, lengths, seq, expiry)
 * stay readable, so that scanning, resync and compaction's accounting work without the key, and are
 * the associated data of the tag. A record moved to another offset or file fails its tag (another
 * nonce or key), as does any changed byte of it.
 *
 * <p>Thread-safe: the JDK's {@link Cipher} objects are per thread.
 */
public final class SegmentCipher {
  /** Bytes of the GCM tag that ends every encrypted record. */
  public static final int TAG_BYTES = 16;

  private static final int NONCE_BYTES = 12;
  private static final byte[] KDF_LABEL = "cellar segment key v1".getBytes(StandardCharsets.UTF_8);
  private static final byte[] CHECK_LABEL = "cellar key check".getBytes(StandardCharsets.UTF_8);

  /** The key check's nonce: all ones, an offset no record can have (offsets are below 2^30). */
  private static final byte[] CHECK_NONCE = filled(NONCE_BYTES, (byte) 0xFF);

  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * Each thread's AES-GCM ciphers, one per file key it used lately. The JDK's cipher expands its
   * key again whenever it is given another one; one cipher shared by every file did that on nearly
   * every random GET (records spread over many files) and on every record compaction moved: 1.9
   * against 1.3 us a 1 KB decryption. A few files are hot at a time (the log's tail, compaction's
   * victim and output), so a handful of slots per thread is enough.
   */
  private static final class Ciphers {
    private static final int SLOTS = 8;
    private final SegmentCipher[] owners = new SegmentCipher[SLOTS];
    private final Cipher[] ciphers = new Cipher[SLOTS];
    private int next;

    Cipher of(SegmentCipher owner) {
      for (int i = 0; i < SLOTS; i++) {
        if (owners[i] == owner) {
          return ciphers[i];
        }
      }
      int slot = next;
      next = (next + 1) % SLOTS;
      if (ciphers[slot] == null) {
        try {
          ciphers[slot] = Cipher.getInstance("AES/GCM/NoPadding");
        } catch (GeneralSecurityException e) {
          throw new IllegalStateException("this JDK has no AES/GCM: " + e.getMessage(), e);
        }
      }
      owners[slot] = owner;
      return ciphers[slot];
    }
  }

  private static final ThreadLocal<Ciphers> CIPHERS = ThreadLocal.withInitial(Ciphers::new);

  private final int keyId;
  private final byte[] salt;
  private final SecretKeySpec key;
  private final String file;

  private SegmentCipher(int keyId, byte[] salt, byte[] storeKey, String file) {
    this.keyId = keyId;
    this.salt = salt.clone();
    this.key = new SecretKeySpec(derive(storeKey, salt), "AES");
    this.file = file;
  }

  /** A file key from its parts: for tests that need the same key on every run. */
  static SegmentCipher of(int keyId, byte[] salt, byte[] storeKey, String file) {
    return new SegmentCipher(keyId, salt, storeKey.clone(), file);
  }

  /** The key of a new file {@code file}, under the current key of {@code keys}, with a new salt. */
  public static SegmentCipher create(EncryptionKeys keys, String file) {
    byte[] salt = new byte[CipherBlockDescriptor.SALT_BYTES];
    RANDOM.nextBytes(salt);
    int id = keys.currentId();
    return new SegmentCipher(id, salt, keys.key(id), file);
  }

  /**
   * The key of the existing file {@code file}, whose sound cipher block is {@code block}.
   *
   * @throws EncryptionKeyException when {@code keys} is null, lacks the block's key id, or holds
   *     another key under that id
   */
  public static SegmentCipher open(EncryptionKeys keys, MemorySegment block, String file) {
    int id = CipherBlockDescriptor.keyId(block);
    if (keys == null) {
      throw new EncryptionKeyException(
          file
              + " is encrypted (key "
              + id
              + "); open the store with its key file (--encryption-key-file FILE or"
              + " CELLAR_ENCRYPTION_KEY_FILE)");
    }
    if (!keys.has(id)) {
      throw new EncryptionKeyException(
          file
              + " is encrypted with key "
              + id
              + ", which the key file lacks (it holds keys "
              + keys.ids()
              + "); add that key back to the file");
    }
    SegmentCipher cipher =
        new SegmentCipher(id, CipherBlockDescriptor.salt(block), keys.key(id), file);
    if (!cipher.checks(CipherBlockDescriptor.check(block))) {
      throw new EncryptionKeyException(
          file
              + " was encrypted with another key "
              + id
              + " than the key file's: the key file holds a wrong key under that id");
    }
    return cipher;
  }

  /**
   * Whether {@code check} is this file key's {@link #keyCheck()}: verified by decrypting it as a
   * tag, not by computing it again, since the JDK refuses a second encryption under the key and
   * nonce its cipher used last (a store opened twice in one process).
   */
  boolean checks(byte[] check) {
    try {
      Cipher gcm = CIPHERS.get().of(this);
      gcm.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(8 * TAG_BYTES, CHECK_NONCE));
      gcm.updateAAD(CHECK_LABEL);
      gcm.doFinal(check);
      return true;
    } catch (AEADBadTagException e) {
      return false;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM key check failed: " + e.getMessage(), e);
    }
  }

  /** Writes this file's cipher block into {@code block} (64 bytes). */
  public void writeBlock(MemorySegment block) {
    CipherBlockDescriptor.write(block, keyId, salt, keyCheck());
  }

  /** The id of the store key this file's key derives from. */
  public int keyId() {
    return keyId;
  }

  /** The file this is the key of, for messages. */
  public String file() {
    return file;
  }

  /**
   * The tag of an empty message under the nonce no record uses: equal for the same store key and
   * salt, and different (but for chance, 2^-128) for another key.
   */
  byte[] keyCheck() {
    try {
      Cipher gcm = CIPHERS.get().of(this);
      gcm.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(8 * TAG_BYTES, CHECK_NONCE));
      gcm.updateAAD(CHECK_LABEL);
      return gcm.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM key check failed: " + e.getMessage(), e);
    }
  }

  /**
   * Encrypts {@code buf[body, body + bodyLength)} in place and writes the tag right after it; the
   * {@code aadLength} bytes from {@code aad} are authenticated, not encrypted. {@code offset} is
   * where the record starts in this file: its nonce.
   */
  public void seal(byte[] buf, int aad, int aadLength, int body, int bodyLength, long offset) {
    try {
      Cipher gcm = CIPHERS.get().of(this);
      gcm.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(8 * TAG_BYTES, nonce(offset)));
      gcm.updateAAD(buf, aad, aadLength);
      int written = gcm.doFinal(buf, body, bodyLength, buf, body);
      assert written == bodyLength + TAG_BYTES : written + " bytes sealed of " + bodyLength;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM encryption failed: " + e.getMessage(), e);
    }
  }

  /**
   * Decrypts {@code buf[body, body + bodyLength)}, followed by its tag, in place, and returns
   * whether the tag matched (if not, the bytes are not to be used).
   */
  public boolean open(byte[] buf, int aad, int aadLength, int body, int bodyLength, long offset) {
    try {
      Cipher gcm = CIPHERS.get().of(this);
      gcm.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(8 * TAG_BYTES, nonce(offset)));
      gcm.updateAAD(buf, aad, aadLength);
      gcm.doFinal(buf, body, bodyLength + TAG_BYTES, buf, body);
      return true;
    } catch (AEADBadTagException e) {
      return false;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM decryption failed: " + e.getMessage(), e);
    }
  }

  private static byte[] nonce(long offset) {
    byte[] nonce = new byte[NONCE_BYTES];
    for (int i = 0; i < Long.BYTES; i++) {
      nonce[i] = (byte) (offset >>> (8 * i));
    }
    return nonce;
  }

  private static byte[] derive(byte[] storeKey, byte[] salt) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(storeKey, "HmacSHA256"));
      mac.update(KDF_LABEL);
      return mac.doFinal(salt);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 key derivation failed: " + e.getMessage(), e);
    } finally {
      Arrays.fill(storeKey, (byte) 0);
    }
  }

  private static byte[] filled(int n, byte b) {
    byte[] out = new byte[n];
    Arrays.fill(out, b);
    return out;
  }

  @Override
  public String toString() {
    return "SegmentCipher[" + file + ", key " + keyId + "]";
  }
}
