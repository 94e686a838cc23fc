package dev.cellar;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The keys a store encrypts its files with (see {@code docs/format/encryption.md}): AES-256 keys,
 * each with a numeric id, read from a key file. New data is written with the <em>current</em> key,
 * the one of the highest id; data written with an older key stays readable while its key is in the
 * set, and compaction rewrites it with the current key. So a key is rotated by adding a line with a
 * higher id, and an old key may be removed once no segment needs it ({@code cellar tool verify}
 * tells which keys the files use).
 *
 * <p>A key file is UTF-8 text. Blank lines and lines starting with {@code #} are ignored; every
 * other line is {@code <id> <key>}, with {@code id} a decimal from 1 to 2^31 - 1 and {@code key} 64
 * hexadecimal digits (32 bytes, e.g. from {@code openssl rand -hex 32}). A file of one line that is
 * only a key gives that key the id 1.
 *
 * <p>Key material never appears in an exception message or in {@link #toString()}.
 */
public final class EncryptionKeys {
  /** Bytes of an AES-256 key. */
  public static final int KEY_BYTES = 32;

  private final TreeMap<Integer, byte[]> keys;

  private EncryptionKeys(TreeMap<Integer, byte[]> keys) {
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("no encryption key given");
    }
    this.keys = keys;
  }

  /** A set of one key, id 1. */
  public static EncryptionKeys of(byte[] key) {
    return of(Map.of(1, key));
  }

  /** The keys given, by id; the highest id is the current key. */
  public static EncryptionKeys of(Map<Integer, byte[]> byId) {
    TreeMap<Integer, byte[]> keys = new TreeMap<>();
    for (Map.Entry<Integer, byte[]> e : byId.entrySet()) {
      int id = e.getKey();
      if (id < 1) {
        throw new IllegalArgumentException("key id " + id + " is below 1");
      }
      if (e.getValue().length != KEY_BYTES) {
        throw new IllegalArgumentException(
            "key " + id + " is " + e.getValue().length + " bytes; AES-256 needs " + KEY_BYTES);
      }
      keys.put(id, e.getValue().clone());
    }
    return new EncryptionKeys(keys);
  }

  /**
   * Reads a key file.
   *
   * @throws IllegalArgumentException with the file and line of a malformed line (never its key)
   */
  public static EncryptionKeys load(Path file) throws IOException {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new NoSuchFileException(file.toString(), null, "encryption key file not found");
    }
    TreeMap<Integer, byte[]> keys = new TreeMap<>();
    int keyLines = 0;
    String bare = null;
    int bareLine = 0;
    for (int n = 0; n < lines.size(); n++) {
      String line = lines.get(n).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      keyLines++;
      String[] parts = line.split("\\s+");
      if (parts.length == 1) {
        bare = parts[0];
        bareLine = n + 1;
        continue;
      }
      if (parts.length != 2) {
        throw malformed(file, n + 1, "expected '<id> <64 hex digits>'");
      }
      int id;
      try {
        id = Integer.parseInt(parts[0]);
      } catch (NumberFormatException e) {
        throw malformed(file, n + 1, "the key id is not a number from 1 to 2147483647");
      }
      if (id < 1) {
        throw malformed(file, n + 1, "key id " + id + " is below 1");
      }
      if (keys.put(id, hexKey(file, n + 1, parts[1])) != null) {
        throw malformed(file, n + 1, "key id " + id + " appears twice");
      }
    }
    if (bare != null) {
      if (keyLines != 1) {
        throw malformed(
            file, bareLine, "a key without an id is allowed only as the file's one key line");
      }
      keys.put(1, hexKey(file, bareLine, bare));
    }
    if (keys.isEmpty()) {
      throw new IllegalArgumentException(
          "encryption key file " + file + " holds no key (expected lines '<id> <64 hex digits>')");
    }
    return new EncryptionKeys(keys);
  }

  private static byte[] hexKey(Path file, int line, String hex) {
    if (hex.length() != 2 * KEY_BYTES) {
      throw malformed(
          file,
          line,
          "a key is "
              + 2 * KEY_BYTES
              + " hexadecimal digits (32 bytes), this one has "
              + hex.length());
    }
    try {
      return HexFormat.of().parseHex(hex);
    } catch (IllegalArgumentException e) {
      throw malformed(file, line, "the key is not hexadecimal");
    }
  }

  private static IllegalArgumentException malformed(Path file, int line, String why) {
    return new IllegalArgumentException(
        "encryption key file " + file + " line " + line + ": " + why);
  }

  /** The id new data is encrypted with: the highest. */
  public int currentId() {
    return keys.lastKey();
  }

  /** Every id in the set, ascending. */
  public List<Integer> ids() {
    return List.copyOf(keys.keySet());
  }

  /** Whether the set holds key {@code id}. */
  public boolean has(int id) {
    return keys.containsKey(id);
  }

  /**
   * A copy of key {@code id}'s bytes.
   *
   * @throws IllegalArgumentException if the set lacks it
   */
  public byte[] key(int id) {
    byte[] key = keys.get(id);
    if (key == null) {
      throw new IllegalArgumentException(
          "no encryption key " + id + " (the set holds " + ids() + ")");
    }
    return key.clone();
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof EncryptionKeys other) || !keys.keySet().equals(other.keys.keySet())) {
      return false;
    }
    for (Map.Entry<Integer, byte[]> e : keys.entrySet()) {
      if (!Arrays.equals(e.getValue(), other.keys.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    return keys.keySet().hashCode();
  }

  @Override
  public String toString() {
    return "EncryptionKeys" + ids() + " (current " + currentId() + ")";
  }
}
