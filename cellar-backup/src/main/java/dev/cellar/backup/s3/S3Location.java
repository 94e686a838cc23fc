package dev.cellar.backup.s3;

/**
 * Where in an object store: {@code s3://bucket/prefix}, the prefix without slashes at either end
 * (empty for the bucket's root).
 */
public record S3Location(String bucket, String prefix) {
  /**
   * Parses {@code s3://bucket[/prefix]}.
   *
   * @throws IllegalArgumentException saying what is wrong
   */
  public static S3Location parse(String uri) {
    if (uri == null || !uri.startsWith("s3://")) {
      throw new IllegalArgumentException("not an S3 location (s3://bucket/prefix): " + uri);
    }
    String rest = uri.substring("s3://".length());
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    String prefix = slash < 0 ? "" : rest.substring(slash + 1);
    while (prefix.endsWith("/")) {
      prefix = prefix.substring(0, prefix.length() - 1);
    }
    if (!bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) {
      throw new IllegalArgumentException(
          "not a bucket name (3 to 63 lower-case letters, digits, dots and hyphens): " + bucket);
    }
    return new S3Location(bucket, prefix);
  }

  /** The key of {@code name} under this prefix. */
  public String key(String name) {
    return prefix.isEmpty() ? name : prefix + '/' + name;
  }

  @Override
  public String toString() {
    return "s3://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
  }
}
