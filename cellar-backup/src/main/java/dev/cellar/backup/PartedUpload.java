package dev.cellar.backup;

import dev.cellar.backup.s3.ObjectStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * One file uploaded as a multipart upload that picks up where an interrupted one stopped. Objects
 * are named by their content, so an upload in progress under the same key is an upload of these
 * very bytes: its parts that are there whole (the size matches, and the ETag S3 gives a part, the
 * MD5 of its bytes, matches this file's) are kept, and only the others are sent.
 */
final class PartedUpload {
  /** S3's least part size (all parts but the last). */
  static final int MIN_PART_BYTES = 5 << 20;

  private final ObjectStore s3;
  private final String bucket;
  private final String key;
  private final int partBytes;

  PartedUpload(ObjectStore s3, String bucket, String key, int partBytes) {
    this.s3 = s3;
    this.bucket = bucket;
    this.key = key;
    this.partBytes = partBytes;
  }

  /** Uploads {@code file} ({@code size} bytes); returns how many parts were sent, not kept. */
  int run(Path file, long size, PrintWriter log) throws IOException {
    String uploadId = null;
    Map<Integer, ObjectStore.Part> held = new HashMap<>();
    for (ObjectStore.Upload u : s3.uploads(bucket, key)) {
      if (u.key().equals(key)) {
        uploadId = u.uploadId();
        for (ObjectStore.Part p : s3.parts(bucket, key, uploadId)) {
          held.put(p.number(), p);
        }
        break;
      }
    }
    if (uploadId == null) {
      uploadId = s3.startUpload(bucket, key);
    }
    int count = (int) ((size + partBytes - 1) / partBytes);
    List<ObjectStore.Part> parts = new ArrayList<>(count);
    int sent = 0;
    byte[] buffer = new byte[partBytes];
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
      for (int number = 1; number <= count; number++) {
        long offset = (long) (number - 1) * partBytes;
        int length = (int) Math.min(partBytes, size - offset);
        byte[] bytes = read(in, offset, length, buffer);
        ObjectStore.Part there = held.get(number);
        if (there != null && there.size() == length && there.etag().equalsIgnoreCase(md5(bytes))) {
          parts.add(there);
          continue;
        }
        parts.add(
            new ObjectStore.Part(number, s3.putPart(bucket, key, uploadId, number, bytes), length));
        sent++;
      }
    }
    s3.completeUpload(bucket, key, uploadId, parts);
    if (sent < count) {
      log.printf("resumed  %s: %d of %d parts were already there%n", key, count - sent, count);
    }
    return sent;
  }

  private static byte[] read(FileChannel in, long offset, int length, byte[] buffer)
      throws IOException {
    ByteBuffer target = ByteBuffer.wrap(buffer, 0, length);
    while (target.hasRemaining()) {
      if (in.read(target, offset + target.position()) < 0) {
        throw new IOException("the file ended early: it changed during the backup");
      }
    }
    return length == buffer.length ? buffer : java.util.Arrays.copyOf(buffer, length);
  }

  private static String md5(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no MD5", e);
    }
  }
}
