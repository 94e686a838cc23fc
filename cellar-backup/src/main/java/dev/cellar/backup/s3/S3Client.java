package dev.cellar.backup.s3;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * A lean S3 client: {@link Http11} (blocking sockets, {@code sendfile} for uploads over plain HTTP)
 * and {@link SigV4}, and the calls a backup needs (put an object from a file or bytes, get one into
 * a file or bytes, head, list a prefix, multipart uploads). Path-style requests ({@code
 * endpoint/bucket/key}), which every S3 API endpoint accepts (AWS, MinIO, s3proxy, Ceph); objects
 * stream from and to files without passing through the heap whole.
 *
 * <p>The endpoint and region come from where the AWS tools take them: {@code AWS_ENDPOINT_URL_S3}
 * or {@code AWS_ENDPOINT_URL} (default {@code https://s3.<region>.amazonaws.com}), {@code
 * AWS_REGION} or {@code AWS_DEFAULT_REGION} (default {@code us-east-1}).
 *
 * <p>Thread-safe: requests take turns on one kept-alive connection.
 */
public final class S3Client implements ObjectStore, AutoCloseable {
  private static final String EMPTY_SHA256 = SigV4.hex(SigV4.sha256(new byte[0]));
  private static final Http11.Body NONE = new Http11.NoBody();

  private final URI endpoint;
  private final String region;
  private final S3Credentials credentials;
  private final Http11 http;

  public S3Client(URI endpoint, String region, S3Credentials credentials) {
    String text = endpoint.toString();
    this.endpoint = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
    this.region = region;
    this.credentials = credentials;
    this.http = new Http11(this.endpoint);
  }

  /** The client {@code environment} (normally {@link System#getenv()}) describes. */
  public static S3Client fromEnvironment(Map<String, String> environment) {
    String region =
        environment.getOrDefault(
            "AWS_REGION", environment.getOrDefault("AWS_DEFAULT_REGION", "us-east-1"));
    String endpoint =
        environment.getOrDefault(
            "AWS_ENDPOINT_URL_S3",
            environment.getOrDefault(
                "AWS_ENDPOINT_URL", "https://s3." + region + ".amazonaws.com"));
    return new S3Client(URI.create(endpoint), region, S3Credentials.resolve(environment));
  }

  public URI endpoint() {
    return endpoint;
  }

  /**
   * Uploads {@code file}, whose SHA-256 is {@code sha256} (lower-case hex; the store checks it).
   */
  @Override
  public void put(String bucket, String key, Path file, String sha256) {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      send(
          "PUT",
          bucket,
          key,
          Map.of(),
          sha256,
          new Http11.FileRange(channel, 0, channel.size()),
          null);
    } catch (IOException e) {
      throw new S3Exception("cannot read " + file + " to upload it: " + e.getMessage(), 0, e);
    }
  }

  @Override
  public void put(String bucket, String key, byte[] bytes) {
    send(
        "PUT",
        bucket,
        key,
        Map.of(),
        SigV4.hex(SigV4.sha256(bytes)),
        new Http11.Bytes(bytes),
        null);
  }

  /**
   * Downloads an object into {@code file} (created or truncated); returns the SHA-256 of the bytes
   * written, computed as they arrive (no second read of the file to check it).
   */
  @Override
  public String get(String bucket, String key, Path file) {
    try (FileChannel channel =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      DigestingChannel digesting = new DigestingChannel(channel);
      send("GET", bucket, key, Map.of(), EMPTY_SHA256, NONE, digesting);
      return digesting.sha256();
    } catch (IOException e) {
      throw new S3Exception("cannot write " + file + ": " + e.getMessage(), 0, e);
    }
  }

  @Override
  public byte[] get(String bucket, String key) {
    return send("GET", bucket, key, Map.of(), EMPTY_SHA256, NONE, null).body();
  }

  /** The object's size, or empty when there is no such object. */
  public Optional<Long> head(String bucket, String key) {
    Http11.Response response = exchange("HEAD", bucket, key, Map.of(), EMPTY_SHA256, NONE, null);
    if (response.status() == 404) {
      return Optional.empty();
    }
    check("HEAD", bucket, key, response);
    String length = response.header("Content-Length");
    return Optional.of(length == null ? -1 : Long.parseLong(length));
  }

  /** Every key under {@code prefix} with its size, in the store's (lexicographic) order. */
  @Override
  public Map<String, Long> list(String bucket, String prefix) {
    Map<String, Long> keys = new LinkedHashMap<>();
    Map<String, String> query = new LinkedHashMap<>();
    query.put("list-type", "2");
    query.put("prefix", prefix);
    while (true) {
      Document page = parse(send("GET", bucket, "", query, EMPTY_SHA256, NONE, null).body());
      NodeList contents = page.getElementsByTagName("Contents");
      for (int i = 0; i < contents.getLength(); i++) {
        Element c = (Element) contents.item(i);
        keys.put(text(c, "Key"), Long.parseLong(text(c, "Size")));
      }
      Element root = page.getDocumentElement();
      if (!"true".equals(text(root, "IsTruncated"))) {
        return keys;
      }
      query.put("continuation-token", text(root, "NextContinuationToken"));
    }
  }

  // ---------------------------------------------------------------- multipart uploads

  @Override
  public List<Upload> uploads(String bucket, String prefix) {
    List<Upload> uploads = new ArrayList<>();
    Map<String, String> query = new LinkedHashMap<>();
    query.put("prefix", prefix);
    query.put("uploads", "");
    while (true) {
      Document page = parse(send("GET", bucket, "", query, EMPTY_SHA256, NONE, null).body());
      NodeList nodes = page.getElementsByTagName("Upload");
      for (int i = 0; i < nodes.getLength(); i++) {
        Element u = (Element) nodes.item(i);
        uploads.add(new Upload(text(u, "Key"), text(u, "UploadId")));
      }
      Element root = page.getDocumentElement();
      if (!"true".equals(text(root, "IsTruncated"))) {
        return uploads;
      }
      query.put("key-marker", text(root, "NextKeyMarker"));
      query.put("upload-id-marker", text(root, "NextUploadIdMarker"));
    }
  }

  @Override
  public String startUpload(String bucket, String key) {
    byte[] xml = send("POST", bucket, key, Map.of("uploads", ""), EMPTY_SHA256, NONE, null).body();
    String id = text(parse(xml).getDocumentElement(), "UploadId");
    if (id.isEmpty()) {
      throw new S3Exception("the store began an upload of " + key + " without an upload id");
    }
    return id;
  }

  @Override
  public List<Part> parts(String bucket, String key, String uploadId) {
    List<Part> parts = new ArrayList<>();
    Map<String, String> query = new LinkedHashMap<>();
    query.put("uploadId", uploadId);
    while (true) {
      Document page = parse(send("GET", bucket, key, query, EMPTY_SHA256, NONE, null).body());
      NodeList nodes = page.getElementsByTagName("Part");
      for (int i = 0; i < nodes.getLength(); i++) {
        Element p = (Element) nodes.item(i);
        parts.add(
            new Part(
                Integer.parseInt(text(p, "PartNumber")),
                unquote(text(p, "ETag")),
                Long.parseLong(text(p, "Size"))));
      }
      Element root = page.getDocumentElement();
      if (!"true".equals(text(root, "IsTruncated"))) {
        return parts;
      }
      query.put("part-number-marker", text(root, "NextPartNumberMarker"));
    }
  }

  @Override
  public String putPart(String bucket, String key, String uploadId, int number, byte[] bytes) {
    Map<String, String> query = new LinkedHashMap<>();
    query.put("partNumber", Integer.toString(number));
    query.put("uploadId", uploadId);
    Http11.Response response =
        send(
            "PUT",
            bucket,
            key,
            query,
            SigV4.hex(SigV4.sha256(bytes)),
            new Http11.Bytes(bytes),
            null);
    String etag = response.header("ETag");
    if (etag == null) {
      throw new S3Exception("the store gave part " + number + " of " + key + " no ETag");
    }
    return unquote(etag);
  }

  @Override
  public void completeUpload(String bucket, String key, String uploadId, List<Part> parts) {
    StringBuilder xml = new StringBuilder("<CompleteMultipartUpload>");
    for (Part p : parts) {
      xml.append("<Part><PartNumber>")
          .append(p.number())
          .append("</PartNumber><ETag>\"")
          .append(p.etag())
          .append("\"</ETag></Part>");
    }
    byte[] body =
        xml.append("</CompleteMultipartUpload>").toString().getBytes(StandardCharsets.UTF_8);
    byte[] answer =
        send(
                "POST",
                bucket,
                key,
                Map.of("uploadId", uploadId),
                SigV4.hex(SigV4.sha256(body)),
                new Http11.Bytes(body),
                null)
            .body();
    // S3 may answer 200 and still fail the completion, in the body.
    if (answer != null
        && answer.length > 0
        && "Error".equals(parse(answer).getDocumentElement().getTagName())) {
      throw new S3Exception(
          "completing the upload of " + describe(bucket, key) + " failed: " + errorText(answer));
    }
  }

  // ---------------------------------------------------------------- requests

  private Http11.Response send(
      String method,
      String bucket,
      String key,
      Map<String, String> query,
      String sha256,
      Http11.Body body,
      WritableByteChannel into) {
    Http11.Response response = exchange(method, bucket, key, query, sha256, body, into);
    check(method, bucket, key, response);
    return response;
  }

  private synchronized Http11.Response exchange(
      String method,
      String bucket,
      String key,
      Map<String, String> query,
      String sha256,
      Http11.Body body,
      WritableByteChannel into) {
    String path =
        endpoint.getRawPath()
            + '/'
            + SigV4.encode(bucket, true)
            + (key.isEmpty() ? "/" : '/' + SigV4.encode(key, false));
    String queryText = SigV4.canonicalQuery(query);
    Map<String, String> headers =
        SigV4.sign(
            credentials,
            region,
            method,
            http.hostHeader(),
            path,
            query,
            sha256,
            ZonedDateTime.now(ZoneOffset.UTC));
    try {
      return http.exchange(
          method, queryText.isEmpty() ? path : path + "?" + queryText, headers, body, into);
    } catch (IOException e) {
      throw new S3Exception(
          method + " " + describe(bucket, key) + " failed: " + e.getMessage(), 0, e);
    }
  }

  private void check(String method, String bucket, String key, Http11.Response response) {
    int status = response.status();
    if (status / 100 == 2) {
      return;
    }
    byte[] body = response.body();
    String detail = body != null && body.length > 0 ? ": " + errorText(body) : "";
    throw new S3Exception(
        method + " " + describe(bucket, key) + " answered HTTP " + status + detail, status, null);
  }

  private String describe(String bucket, String key) {
    return "s3://" + bucket + "/" + key + " at " + endpoint;
  }

  /** The {@code Code} and {@code Message} of an S3 error document, or its first bytes. */
  private static String errorText(byte[] xml) {
    try {
      Document doc = parse(xml);
      return text(doc.getDocumentElement(), "Code")
          + " "
          + text(doc.getDocumentElement(), "Message");
    } catch (RuntimeException notXml) {
      return new String(xml, 0, Math.min(xml.length, 200), StandardCharsets.UTF_8);
    }
  }

  private static Document parse(byte[] xml) {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      factory.setExpandEntityReferences(false);
      try (InputStream in = new ByteArrayInputStream(xml == null ? new byte[0] : xml)) {
        return factory.newDocumentBuilder().parse(in);
      }
    } catch (Exception e) {
      throw new S3Exception("the store answered XML that does not parse: " + e.getMessage());
    }
  }

  private static String text(Element parent, String tag) {
    NodeList nodes = parent.getElementsByTagName(tag);
    return nodes.getLength() == 0 ? "" : nodes.item(0).getTextContent();
  }

  private static String unquote(String etag) {
    return etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"")
        ? etag.substring(1, etag.length() - 1)
        : etag;
  }

  /** Closes the kept-alive connection, if any. */
  @Override
  public void close() {
    http.close();
  }
}
