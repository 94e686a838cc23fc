package dev.cellar.backup.s3;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * An access key pair, found where the AWS tools look: the environment ({@code AWS_ACCESS_KEY_ID},
 * {@code AWS_SECRET_ACCESS_KEY}, {@code AWS_SESSION_TOKEN}), else the shared credentials file
 * ({@code AWS_SHARED_CREDENTIALS_FILE}, default {@code ~/.aws/credentials}), profile {@code
 * AWS_PROFILE} or {@code default}. Never from the command line, where other users could read it.
 */
public record S3Credentials(String accessKey, String secretKey, String sessionToken) {
  public S3Credentials {
    if (accessKey == null || accessKey.isBlank() || secretKey == null || secretKey.isBlank()) {
      throw new IllegalArgumentException("an access key needs both its id and its secret");
    }
  }

  @Override
  public String toString() {
    return "S3Credentials[" + accessKey + ", secret hidden]";
  }

  /**
   * The credentials {@code environment} (normally {@link System#getenv()}) points at.
   *
   * @throws S3Exception saying where it looked, when it finds none
   */
  public static S3Credentials resolve(Map<String, String> environment) {
    String id = environment.get("AWS_ACCESS_KEY_ID");
    String secret = environment.get("AWS_SECRET_ACCESS_KEY");
    if (id != null && secret != null) {
      return new S3Credentials(id, secret, environment.get("AWS_SESSION_TOKEN"));
    }
    Path file =
        environment.containsKey("AWS_SHARED_CREDENTIALS_FILE")
            ? Path.of(environment.get("AWS_SHARED_CREDENTIALS_FILE"))
            : Path.of(System.getProperty("user.home"), ".aws", "credentials");
    String profile = environment.getOrDefault("AWS_PROFILE", "default");
    if (Files.isRegularFile(file)) {
      try {
        S3Credentials found = fromFile(Files.readAllLines(file), profile);
        if (found != null) {
          return found;
        }
      } catch (IOException e) {
        throw new S3Exception("cannot read the credentials file " + file + ": " + e.getMessage());
      }
    }
    throw new S3Exception(
        "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or put profile ["
            + profile
            + "] in "
            + file);
  }

  /** Profile {@code profile} of an INI-style credentials file, or null. */
  static S3Credentials fromFile(List<String> lines, String profile) {
    String section = null;
    String id = null;
    String secret = null;
    String token = null;
    for (String raw : lines) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
        continue;
      }
      if (line.startsWith("[") && line.endsWith("]")) {
        section = line.substring(1, line.length() - 1).strip();
        continue;
      }
      int eq = line.indexOf('=');
      if (eq < 0 || !profile.equals(section)) {
        continue;
      }
      String key = line.substring(0, eq).strip();
      String value = line.substring(eq + 1).strip();
      switch (key) {
        case "aws_access_key_id" -> id = value;
        case "aws_secret_access_key" -> secret = value;
        case "aws_session_token" -> token = value;
        default -> {}
      }
    }
    return id != null && secret != null ? new S3Credentials(id, secret, token) : null;
  }
}
