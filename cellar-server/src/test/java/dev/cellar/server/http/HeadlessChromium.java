package dev.cellar.server.http;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real headless Chromium showing one page, driven over the DevTools protocol: the page runs in
 * real time (no virtual-time budget), so its timers and fetches behave as in a browser on a desk,
 * and the test reads its DOM whenever it likes, as many times as it likes. The protocol is JSON
 * over a WebSocket; the JDK's client carries it, and the few answers read here are picked out by
 * hand rather than with a JSON library.
 */
final class HeadlessChromium implements AutoCloseable {
  private static final Pattern ANSWER_ID = Pattern.compile("^\\{\"id\":(\\d+),");
  private static final Pattern PAGE_SOCKET =
      Pattern.compile("\"webSocketDebuggerUrl\"\\s*:\\s*\"(ws://[^\"]+/devtools/page/[^\"]+)\"");

  private final Path profile;
  private final Process process;
  private final WebSocket socket;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<String>> pending = new ConcurrentHashMap<>();

  /** The browser's executable on the PATH ({@code chromium}, as Debian names it), or null. */
  static Path find() {
    for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
      for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
        Path candidate = Path.of(dir, name);
        if (Files.isExecutable(candidate)) {
          return candidate;
        }
      }
    }
    return null;
  }

  /** Starts the browser on {@code url} with a window of {@code width} by {@code height} pixels. */
  HeadlessChromium(Path executable, URI url, int width, int height) throws Exception {
    profile = Files.createTempDirectory("cellar-chromium");
    process =
        new ProcessBuilder(
                executable.toString(),
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--remote-debugging-port=0",
                "--user-data-dir=" + profile,
                "--window-size=" + width + "," + height,
                url.toString())
            .redirectErrorStream(true)
            .redirectOutput(profile.resolve("chromium.log").toFile())
            .start();
    try {
      int port = devToolsPort();
      String targets =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      Matcher m = PAGE_SOCKET.matcher(targets);
      if (!m.find()) {
        throw new IllegalStateException("chromium lists no page to drive: " + targets);
      }
      socket =
          HttpClient.newHttpClient()
              .newWebSocketBuilder()
              .buildAsync(URI.create(m.group(1)), new Listener())
              .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      close();
      throw e;
    }
  }

  /** The port Chromium chose, from the file it writes into its profile once it listens. */
  private int devToolsPort() throws IOException, InterruptedException {
    Path file = profile.resolve("DevToolsActivePort");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "chromium exited with "
                + process.exitValue()
                + ": "
                + Files.readString(profile.resolve("chromium.log")));
      }
      if (Files.exists(file)) {
        List<String> lines = Files.readAllLines(file);
        if (lines.size() >= 2) {
          return Integer.parseInt(lines.get(0).strip());
        }
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException(
        "chromium did not open its DevTools port within 30 s: "
            + Files.readString(profile.resolve("chromium.log")));
  }

  /** The value of a JavaScript expression that yields a string, evaluated in the page. */
  String evaluate(String expression) throws Exception {
    int id = ids.incrementAndGet();
    CompletableFuture<String> answer = new CompletableFuture<>();
    pending.put(id, answer);
    socket
        .sendText(
            "{\"id\":"
                + id
                + ",\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":"
                + quote(expression)
                + ",\"returnByValue\":true}}",
            true)
        .get(10, TimeUnit.SECONDS);
    String reply = answer.get(10, TimeUnit.SECONDS);
    if (reply.contains("\"exceptionDetails\"")) {
      throw new IllegalStateException("the page threw evaluating " + expression + ": " + reply);
    }
    int at = reply.indexOf("\"value\":\"");
    if (at < 0) {
      throw new IllegalStateException("not a string: " + expression + " gave " + reply);
    }
    return unquote(reply, at + "\"value\":".length());
  }

  /** The page's DOM as HTML now, as {@code chromium --dump-dom} prints it. */
  String dumpDom() throws Exception {
    return evaluate("document.documentElement ? document.documentElement.outerHTML : ''");
  }

  private final class Listener implements WebSocket.Listener {
    private final StringBuilder message = new StringBuilder();

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      message.append(data);
      if (last) {
        String text = message.toString();
        message.setLength(0);
        Matcher id = ANSWER_ID.matcher(text);
        if (id.find()) {
          CompletableFuture<String> answer = pending.remove(Integer.parseInt(id.group(1)));
          if (answer != null) {
            answer.complete(text);
          }
        }
      }
      webSocket.request(1);
      return null;
    }
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }

  /** The JSON string starting at {@code json[from]} (its opening quote), decoded. */
  static String unquote(String json, int from) {
    StringBuilder b = new StringBuilder();
    for (int i = from + 1; i < json.length(); i++) {
      char c = json.charAt(i);
      if (c == '"') {
        return b.toString();
      }
      if (c != '\\') {
        b.append(c);
        continue;
      }
      char e = json.charAt(++i);
      switch (e) {
        case 'n' -> b.append('\n');
        case 'r' -> b.append('\r');
        case 't' -> b.append('\t');
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case 'u' -> {
          b.append((char) Integer.parseInt(json.substring(i + 1, i + 5), 16));
          i += 4;
        }
        default -> b.append(e);
      }
    }
    throw new IllegalArgumentException("unterminated JSON string from " + from);
  }

  @Override
  public void close() throws IOException {
    if (socket != null) {
      socket.abort();
    }
    List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    all.forEach(ProcessHandle::destroyForcibly);
    try (Stream<Path> files = Files.walk(profile)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (UncheckedIOException | IOException e) {
      // A profile left in the temporary directory is harmless.
    }
  }
}
