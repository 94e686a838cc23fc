package dev.cellar.backup;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.backup.s3.ObjectStore;
import dev.cellar.backup.s3.S3Client;
import dev.cellar.backup.s3.S3Exception;
import dev.cellar.backup.s3.S3Location;
import dev.cellar.backup.testing.S3ProxyServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A large file goes up in 5 MiB parts; a backup cut off after some of them (the connection lost,
 * the process stopped) is resumed by the next run, which sends only the parts that are missing, and
 * the restored store holds every key.
 */
class ResumedUploadTest {
  private static final int PART = 5 << 20;
  private static final CellarOptions BIG_SEGMENTS =
      CellarOptions.defaults().segmentBytes(64 << 20).backgroundCompaction(false);

  @TempDir Path dir;

  @Test
  void anInterruptedUploadSendsOnlyTheMissingPartsNextTime() throws Exception {
    Path store = dir.resolve("store");
    int keys = 120_000;
    try (Cellar db = Cellar.open(store, BIG_SEGMENTS)) {
      for (int i = 0; i < keys; i++) {
        db.put(key(i), value(i));
      }
    }
    try (S3ProxyServer s3 = S3ProxyServer.start(Files.createDirectories(dir.resolve("s3")))) {
      S3Location target = S3Location.parse("s3://backups/big");
      StringWriter log = new StringWriter();
      Counting cut = new Counting(s3.client(), 2); // fails the third part it is asked to send
      assertThrows(
          S3Exception.class,
          () -> backup(cut).run(store, target, new PrintWriter(log, true)),
          "the upload is cut off");
      assertEquals(2, cut.parts.get());
      assertTrue(
          s3.client().list(S3ProxyServer.BUCKET, "big/manifests/").isEmpty(),
          "no manifest names what is not there");

      Counting resumed = new Counting(s3.client(), Integer.MAX_VALUE);
      Backup.Report report = backup(resumed).run(store, target, new PrintWriter(log, true));
      long largest =
          report.manifest().files().stream().mapToLong(BackupManifest.Entry::size).max().orElse(0);
      int partsOfLargest = (int) ((largest + PART - 1) / PART);
      assertTrue(partsOfLargest >= 3, "a file of " + largest + " bytes");
      assertEquals(
          partsOfLargest - 2, resumed.parts.get(), "the two parts already there are kept: " + log);
      assertTrue(log.toString().contains("2 of " + partsOfLargest + " parts were already there"));

      Path restored = dir.resolve("restored");
      new Restore(s3.client()).run(target, null, restored, new PrintWriter(log, true));
      try (Cellar db = Cellar.open(restored, BIG_SEGMENTS)) {
        assertEquals(keys, db.size());
        for (int i = 0; i < keys; i += 997) {
          assertArrayEquals(value(i), db.get(key(i)), "key " + i);
        }
      }
    }
  }

  private static Backup backup(ObjectStore store) {
    return new Backup(
        store, Clock.fixed(Instant.parse("2026-11-26T07:00:00Z"), ZoneOffset.UTC), PART);
  }

  private static byte[] key(int i) {
    return ("user:" + i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(int i) {
    byte[] v = new byte[200];
    java.util.Arrays.fill(v, (byte) i);
    return v;
  }

  /** The real client, counting the parts it sends and failing once it has sent {@code limit}. */
  private static final class Counting implements ObjectStore {
    final S3Client real;
    final int limit;
    final AtomicInteger parts = new AtomicInteger();

    Counting(S3Client real, int limit) {
      this.real = real;
      this.limit = limit;
    }

    @Override
    public String putPart(String bucket, String key, String uploadId, int number, byte[] bytes) {
      if (parts.get() >= limit) {
        throw new S3Exception("connection lost (as the test arranged)");
      }
      String etag = real.putPart(bucket, key, uploadId, number, bytes);
      parts.incrementAndGet();
      return etag;
    }

    @Override
    public Map<String, Long> list(String bucket, String prefix) {
      return real.list(bucket, prefix);
    }

    @Override
    public void put(String bucket, String key, Path file, String sha256) {
      real.put(bucket, key, file, sha256);
    }

    @Override
    public void put(String bucket, String key, byte[] bytes) {
      real.put(bucket, key, bytes);
    }

    @Override
    public String get(String bucket, String key, Path file) {
      return real.get(bucket, key, file);
    }

    @Override
    public byte[] get(String bucket, String key) {
      return real.get(bucket, key);
    }

    @Override
    public List<Upload> uploads(String bucket, String prefix) {
      return real.uploads(bucket, prefix);
    }

    @Override
    public String startUpload(String bucket, String key) {
      return real.startUpload(bucket, key);
    }

    @Override
    public List<Part> parts(String bucket, String key, String uploadId) {
      return real.parts(bucket, key, uploadId);
    }

    @Override
    public void completeUpload(String bucket, String key, String uploadId, List<Part> parts) {
      real.completeUpload(bucket, key, uploadId, parts);
    }
  }
}
