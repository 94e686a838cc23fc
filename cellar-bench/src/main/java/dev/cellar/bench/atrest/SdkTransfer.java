package dev.cellar.bench.atrest;

import java.io.IOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * The peer: the same files to and from the same endpoint with the AWS SDK for Java v2 as its
 * documentation shows a file transfer ({@code putObject} with {@code RequestBody.fromFile}, {@code
 * getObject} to a file), its default synchronous HTTP client (Apache), path-style requests. The
 * downloaded files are synced, as Cellar's restore syncs them, so both leave the same durable
 * result.
 */
final class SdkTransfer implements AutoCloseable {
  private final S3Client s3;
  private final String bucket;

  SdkTransfer(URI endpoint, String bucket, String access, String secret) {
    this.bucket = bucket;
    this.s3 =
        S3Client.builder()
            .endpointOverride(endpoint)
            .forcePathStyle(true)
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create(access, secret)))
            .httpClientBuilder(ApacheHttpClient.builder())
            // As the SDK's guide for S3-compatible endpoints advises: checksums only where the
            // API requires them (the default's trailing checksums are AWS-only).
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .build();
  }

  void upload(List<Path> files, String prefix) {
    for (Path file : files) {
      s3.putObject(
          PutObjectRequest.builder().bucket(bucket).key(prefix + "/" + file.getFileName()).build(),
          RequestBody.fromFile(file));
    }
  }

  void download(List<Path> files, String prefix, Path into) throws IOException {
    Files.createDirectories(into);
    for (Path file : files) {
      Path target = into.resolve(file.getFileName().toString());
      s3.getObject(
          GetObjectRequest.builder().bucket(bucket).key(prefix + "/" + file.getFileName()).build(),
          ResponseTransformer.toFile(target));
      try (FileChannel channel = FileChannel.open(target, StandardOpenOption.READ)) {
        channel.force(true);
      }
    }
  }

  @Override
  public void close() {
    s3.close();
  }
}
