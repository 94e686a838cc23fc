package dev.cellar.bench.server;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Loads exactly {@code keys} distinct keys into a server before it is measured: every name
 * redis-benchmark's {@code -r keys} can draw ({@code key:} and the number in 12 digits), so every
 * GET hits and both servers hold the same data when their memory is read. The SETs are fed to
 * {@code redis-cli --pipe}, which pipelines them and counts the replies; a DBSIZE check follows.
 */
final class KeyLoader {
  private static final byte[] KEY_PREFIX = "key:".getBytes(StandardCharsets.US_ASCII);
  private static final int KEY_DIGITS = 12;

  /** Bytes of every key, here and in redis-benchmark's {@code -r}: {@code key:} and 12 digits. */
  static final int KEY_BYTES = KEY_PREFIX.length + KEY_DIGITS;

  private static final Pattern SUMMARY = Pattern.compile("errors: (\\d+), replies: (\\d+)");
  private static final long TIMEOUT_SECONDS = 900;

  private final Tools tools;
  private final ChildProcesses children;
  private final Path workDir;

  KeyLoader(Tools tools, ChildProcesses children, Path workDir) {
    this.tools = tools;
    this.children = children;
    this.workDir = workDir;
  }

  void load(ServerProcess server, Placement placement, int keys, int valueSize)
      throws IOException, InterruptedException {
    Path stdout = workDir.resolve("redis-cli-pipe.out");
    Path stderr = workDir.resolve("redis-cli-pipe.err");
    List<String> command =
        List.of(
            tools.redisCli().toString(),
            "-h",
            "127.0.0.1",
            "-p",
            Integer.toString(server.port()),
            "--pipe");
    Process process = children.startHelper(placement.onClientCpu(command), stdout, stderr);
    try (OutputStream in = new BufferedOutputStream(process.getOutputStream(), 1 << 16)) {
      writeCommands(in, keys, valueSize);
    } catch (IOException e) {
      children.await(process, 0); // stops it; its output says why the pipe broke
      throw new IOException(
          "redis-cli --pipe stopped reading ("
              + e
              + "); its output:\n"
              + Files.readString(stdout)
              + Files.readString(stderr),
          e);
    }
    int status = children.await(process, TIMEOUT_SECONDS);
    String output = Files.readString(stdout) + Files.readString(stderr);
    PipeSummary summary = PipeSummary.parse(output);
    if (status != 0 || summary.errors() != 0 || summary.replies() != keys) {
      throw new IOException(
          "loading "
              + keys
              + " keys into "
              + server.kind().id()
              + " through redis-cli --pipe failed (status "
              + status
              + "):\n"
              + output);
    }
    try (RespClient client = server.connect()) {
      long size = Long.parseLong(client.call("DBSIZE"));
      if (size != keys) {
        throw new IOException(
            server.kind().id() + " holds " + size + " keys after loading " + keys);
      }
    }
  }

  /**
   * Writes {@code SET key:<n> <value>} for n = 0 .. keys-1 in RESP, the value {@code valueSize}
   * 'x's as redis-benchmark's.
   */
  static void writeCommands(OutputStream out, int keys, int valueSize) throws IOException {
    byte[] key = Arrays.copyOf(KEY_PREFIX, KEY_PREFIX.length + KEY_DIGITS);
    byte[] value = new byte[valueSize];
    Arrays.fill(value, (byte) 'x');
    byte[] head =
        ("*3\r\n$3\r\nSET\r\n$" + key.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
    byte[] valueHead = ("\r\n$" + valueSize + "\r\n").getBytes(StandardCharsets.US_ASCII);
    byte[] end = {'\r', '\n'};
    for (int n = 0; n < keys; n++) {
      long digits = n;
      for (int i = key.length - 1; i >= KEY_PREFIX.length; i--) {
        key[i] = (byte) ('0' + digits % 10);
        digits /= 10;
      }
      out.write(head);
      out.write(key);
      out.write(valueHead);
      out.write(value);
      out.write(end);
    }
  }

  /** redis-cli's closing line, {@code errors: 0, replies: 1000000}. */
  record PipeSummary(long errors, long replies) {
    static PipeSummary parse(String output) {
      Matcher m = SUMMARY.matcher(output);
      if (!m.find()) {
        return new PipeSummary(-1, -1);
      }
      return new PipeSummary(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
    }
  }
}
