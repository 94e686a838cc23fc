package dev.cellar.bench.atrest;

import dev.cellar.backup.s3.S3Client;
import dev.cellar.backup.s3.S3Credentials;
import dev.cellar.backup.s3.S3Exception;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The endpoint both clients of the backup benchmark talk to: s3proxy (the S3 API over jclouds'
 * filesystem store) in a JVM of its own, on a loopback port, storing objects under the run's
 * directory on the same disk as the store. A process of its own, so that neither client's JIT or
 * garbage shares a JVM with the server it is timed against.
 */
final class S3ProxyProcess implements AutoCloseable {
  static final String ACCESS = "cellar-bench-access";
  static final String SECRET = "cellar-bench-secret";
  static final String BUCKET = "bench";

  private final Process process;
  private final URI endpoint;

  private S3ProxyProcess(Process process, URI endpoint) {
    this.process = process;
    this.endpoint = endpoint;
  }

  static S3ProxyProcess start(Path dir) throws IOException, InterruptedException {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    Path data = Files.createDirectories(dir.resolve("objects"));
    Files.createDirectories(data.resolve(BUCKET));
    Path properties = dir.resolve("s3proxy.properties");
    Files.writeString(
        properties,
        String.join(
            "\n",
            "s3proxy.endpoint=http://127.0.0.1:" + port,
            "s3proxy.authorization=aws-v2-or-v4",
            "s3proxy.identity=" + ACCESS,
            "s3proxy.credential=" + SECRET,
            "s3proxy.v4-max-non-chunked-request-size=1073741824",
            "jclouds.provider=filesystem",
            "jclouds.filesystem.basedir=" + data,
            ""));
    Process process =
        new ProcessBuilder(
                List.of(
                    AtRestClasspath.java(),
                    "-Xmx1g",
                    "-cp",
                    AtRestClasspath.get(),
                    "org.gaul.s3proxy.Main",
                    "--properties",
                    properties.toString()))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("s3proxy.log").toFile())
            .start();
    S3ProxyProcess proxy = new S3ProxyProcess(process, URI.create("http://127.0.0.1:" + port));
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      try {
        proxy.client().list(BUCKET, "");
        return proxy;
      } catch (S3Exception notYet) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          proxy.close();
          throw new IOException(
              "s3proxy did not start; its output is in " + dir.resolve("s3proxy.log"), notYet);
        }
        Thread.sleep(100);
      }
    }
  }

  URI endpoint() {
    return endpoint;
  }

  long pid() {
    return process.pid();
  }

  S3Client client() {
    return new S3Client(endpoint, "us-east-1", new S3Credentials(ACCESS, SECRET, null));
  }

  @Override
  public void close() {
    process.destroy();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
