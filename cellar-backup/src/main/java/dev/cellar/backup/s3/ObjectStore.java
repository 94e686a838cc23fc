package dev.cellar.backup.s3;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What backups and restores need of an object store: whole objects from and to files, listings, and
 * multipart uploads that can be looked up and resumed. {@link S3Client} is the implementation;
 * tests wrap it to interrupt an upload where they choose.
 */
public interface ObjectStore {
  /** Every key under {@code prefix} with its size. */
  Map<String, Long> list(String bucket, String prefix);

  /** Uploads {@code file}, whose SHA-256 is {@code sha256}, in one request. */
  void put(String bucket, String key, Path file, String sha256);

  void put(String bucket, String key, byte[] bytes);

  /**
   * Downloads an object into {@code file}; returns the SHA-256 (lower-case hex) of the bytes it
   * wrote.
   */
  String get(String bucket, String key, Path file);

  byte[] get(String bucket, String key);

  /** A multipart upload begun and neither completed nor aborted. */
  record Upload(String key, String uploadId) {}

  /**
   * One uploaded part.
   *
   * @param etag as the store gave it, quotes removed (for S3, the MD5 of the part's bytes in hex)
   */
  record Part(int number, String etag, long size) {}

  /** The multipart uploads in progress whose keys start with {@code prefix}. */
  List<Upload> uploads(String bucket, String prefix);

  /** Begins a multipart upload; returns its id. */
  String startUpload(String bucket, String key);

  /** The parts an upload in progress holds, by number. */
  List<Part> parts(String bucket, String key, String uploadId);

  /** Uploads part {@code number} (1 to 10,000); returns its ETag, quotes removed. */
  String putPart(String bucket, String key, String uploadId, int number, byte[] bytes);

  /** Joins the parts, in order, into the object. */
  void completeUpload(String bucket, String key, String uploadId, List<Part> parts);
}
