package dev.cellar.backup.testing;

import dev.cellar.backup.s3.S3Client;
import dev.cellar.backup.s3.S3Credentials;
import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;

/**
 * A real S3 API endpoint for tests: s3proxy on a loopback port, storing objects as files under a
 * directory (jclouds' filesystem store), checking Signature Version 4 with a fixed key pair.
 */
public final class S3ProxyServer implements AutoCloseable {
  public static final String ACCESS = "cellar-test-access";
  public static final String SECRET = "cellar-test-secret";
  public static final String BUCKET = "backups";

  private final S3Proxy proxy;
  private final BlobStoreContext context;
  private final Path root;

  private S3ProxyServer(S3Proxy proxy, BlobStoreContext context, Path root) {
    this.proxy = proxy;
    this.context = context;
    this.root = root;
  }

  public static S3ProxyServer start(Path root) throws Exception {
    Properties properties = new Properties();
    properties.setProperty("jclouds.filesystem.basedir", root.toString());
    BlobStoreContext context =
        ContextBuilder.newBuilder("filesystem")
            .overrides(properties)
            .buildView(BlobStoreContext.class);
    context.getBlobStore().createContainerInLocation(null, BUCKET);
    S3Proxy proxy =
        S3Proxy.builder()
            .blobStore(context.getBlobStore())
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS, SECRET)
            .v4MaxNonChunkedRequestSize(256L << 20)
            .build();
    proxy.start();
    while (!proxy.getState().equals("STARTED")) {
      Thread.sleep(10);
    }
    return new S3ProxyServer(proxy, context, root);
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + proxy.getPort());
  }

  public S3Client client() {
    return new S3Client(endpoint(), "us-east-1", new S3Credentials(ACCESS, SECRET, null));
  }

  /** Where the filesystem store keeps an object's bytes. */
  public Path objectFile(String key) {
    return root.resolve(BUCKET).resolve(key);
  }

  @Override
  public void close() throws Exception {
    proxy.stop();
    context.close();
  }
}
