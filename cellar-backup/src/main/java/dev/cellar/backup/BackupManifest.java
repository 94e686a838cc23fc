package dev.cellar.backup;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The descriptor of a backup's manifest (docs/format/backup.md): which files make up the store, and
 * for each its size and SHA-256, which is also the name of the object that holds its bytes. A text
 * file, one entry a line, closed by the SHA-256 of every line before it, so a manifest cut short or
 * altered is refused before anything is restored from it.
 *
 * <pre>
 * cellar-backup 1
 * created 2026-11-26T07:10:00.123Z
 * file cellar.meta 64 9f2c...
 * file seg-0000000000000001.log 67108864 03ab...
 * end 5d41...
 * </pre>
 *
 * @param created when the backup was taken
 * @param files the store's files, in the order they were listed
 */
public record BackupManifest(Instant created, List<Entry> files) {
  public static final String MAGIC = "cellar-backup";
  public static final int VERSION = 1;

  /** Objects are under {@code <prefix>/objects/}, named by their SHA-256. */
  public static final String OBJECTS = "objects/";

  /** Manifests are under {@code <prefix>/manifests/}, named so that names sort by time. */
  public static final String MANIFESTS = "manifests/";

  public static final String SUFFIX = ".manifest";

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,200}");
  private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

  /**
   * One file of the store.
   *
   * @param name its name in the store directory (no path)
   * @param size its length in bytes
   * @param sha256 its SHA-256, lower-case hex: the name of its object
   */
  public record Entry(String name, long size, String sha256) {
    public Entry {
      if (!NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
        throw new IllegalArgumentException("not a file name a store holds: " + name);
      }
      if (size < 0) {
        throw new IllegalArgumentException("negative size for " + name);
      }
      if (!SHA256.matcher(sha256).matches()) {
        throw new IllegalArgumentException("not a SHA-256 for " + name + ": " + sha256);
      }
    }

    /** The key of its object under a backup prefix. */
    public String objectName() {
      return OBJECTS + sha256;
    }
  }

  public BackupManifest {
    files = List.copyOf(files);
  }

  /**
   * The manifest's name under {@code <prefix>/}: {@code manifests/20261126T071000123Z.manifest}.
   */
  public String objectName() {
    String t = created.toString(); // 2026-11-26T07:10:00.123Z, or without fraction
    String compact = t.replace("-", "").replace(":", "");
    int dot = compact.indexOf('.');
    String stamp =
        dot < 0
            ? compact.replace("Z", "000Z")
            : compact.substring(0, dot)
                + (compact.substring(dot + 1) + "000").substring(0, 3)
                + "Z";
    return MANIFESTS + stamp + SUFFIX;
  }

  public byte[] encode() {
    StringBuilder body = new StringBuilder();
    body.append(MAGIC).append(' ').append(VERSION).append('\n');
    body.append("created ").append(created).append('\n');
    for (Entry e : files) {
      body.append("file ")
          .append(e.name())
          .append(' ')
          .append(e.size())
          .append(' ')
          .append(e.sha256())
          .append('\n');
    }
    String digest = sha256Hex(body.toString().getBytes(StandardCharsets.UTF_8));
    body.append("end ").append(digest).append('\n');
    return body.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Parses a manifest.
   *
   * @throws IllegalArgumentException saying what is wrong: another format or version, a line that
   *     does not parse, a file named twice, or a closing digest that does not match
   */
  public static BackupManifest decode(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8);
    int endAt = text.lastIndexOf("end ");
    if (endAt < 0 || !text.endsWith("\n")) {
      throw new IllegalArgumentException("the manifest has no closing digest: cut short?");
    }
    String body = text.substring(0, endAt);
    String digest = text.substring(endAt + 4, text.length() - 1);
    if (!digest.equals(sha256Hex(body.getBytes(StandardCharsets.UTF_8)))) {
      throw new IllegalArgumentException(
          "the manifest's closing digest does not match its lines: it was altered or damaged");
    }
    String[] lines = body.split("\n");
    if (lines.length < 2 || !lines[0].equals(MAGIC + " " + VERSION)) {
      throw new IllegalArgumentException(
          "not a version " + VERSION + " Cellar backup manifest: " + firstLine(lines));
    }
    if (!lines[1].startsWith("created ")) {
      throw new IllegalArgumentException("the manifest's second line is not its creation time");
    }
    Instant created;
    try {
      created = Instant.parse(lines[1].substring("created ".length()));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "the manifest's creation time does not parse: " + lines[1]);
    }
    List<Entry> files = new ArrayList<>();
    java.util.Set<String> names = new java.util.HashSet<>();
    for (int i = 2; i < lines.length; i++) {
      String[] parts = lines[i].split(" ");
      if (parts.length != 4 || !parts[0].equals("file")) {
        throw new IllegalArgumentException("manifest line " + (i + 1) + " does not parse");
      }
      long size;
      try {
        size = Long.parseLong(parts[2]);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("manifest line " + (i + 1) + ": size " + parts[2]);
      }
      Entry entry = new Entry(parts[1], size, parts[3]);
      if (!names.add(entry.name())) {
        throw new IllegalArgumentException("the manifest names " + entry.name() + " twice");
      }
      files.add(entry);
    }
    return new BackupManifest(created, files);
  }

  private static String firstLine(String[] lines) {
    return lines.length == 0 ? "(empty)" : lines[0];
  }

  static String sha256Hex(byte[] bytes) {
    try {
      return HexFormat.of()
          .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }
}
