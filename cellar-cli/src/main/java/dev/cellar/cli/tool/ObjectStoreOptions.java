package dev.cellar.cli.tool;

import dev.cellar.backup.s3.S3Client;
import java.net.URI;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * Where the object store is and who we are to it: by default as the AWS tools find it in the
 * environment ({@code AWS_ENDPOINT_URL}, {@code AWS_REGION}, the access key variables or {@code
 * ~/.aws/credentials}); the options override the endpoint, the region and the credentials file.
 * Never a secret on the command line, where other users of the machine could read it.
 */
public final class ObjectStoreOptions {
  @Option(
      names = "--endpoint",
      paramLabel = "URL",
      description =
          "The S3 API endpoint (default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS's for"
              + " the region).")
  URI endpoint;

  @Option(
      names = "--region",
      description = "The region to sign for (default: AWS_REGION, AWS_DEFAULT_REGION, us-east-1).")
  String region;

  @Option(
      names = "--credentials-file",
      paramLabel = "FILE",
      description =
          "An AWS-style credentials file to read the key from (default: the environment's"
              + " AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, else ~/.aws/credentials).")
  Path credentialsFile;

  @Option(names = "--profile", description = "The profile of the credentials file to use.")
  String profile;

  /** The client these options and {@code environment} describe. */
  S3Client client(Map<String, String> environment) {
    Map<String, String> env = new HashMap<>(environment);
    if (credentialsFile != null) {
      env.remove("AWS_ACCESS_KEY_ID");
      env.remove("AWS_SECRET_ACCESS_KEY");
      env.remove("AWS_SESSION_TOKEN");
      env.put("AWS_SHARED_CREDENTIALS_FILE", credentialsFile.toString());
    }
    if (profile != null) {
      env.put("AWS_PROFILE", profile);
    }
    if (region != null) {
      env.put("AWS_REGION", region);
    }
    if (endpoint != null) {
      env.put("AWS_ENDPOINT_URL_S3", endpoint.toString());
    }
    return S3Client.fromEnvironment(env);
  }
}
