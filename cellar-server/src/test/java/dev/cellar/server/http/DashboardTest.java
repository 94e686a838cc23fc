package dev.cellar.server.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

/**
 * The dashboard at {@code GET /} in a real headless Chromium, on a server kept busy by a RESP
 * client: the page's figures fill in, move from one second to the next, and agree with {@code
 * /metrics} read just before and just after each look at the page. Counters must lie between the
 * two scrapes around the look; gauges that wander (heap, RSS) get a tolerance; rates and
 * percentiles, which the page computes over its own last second, are compared with the same figures
 * over the whole test within a factor. Needs {@code chromium} (scripts/install-test-tools.sh).
 */
class DashboardTest {
  private static final Pattern FIGURE =
      Pattern.compile("id=\"([a-z0-9-]+)\"[^>]*?data-value=\"([^\"]*)\"");
  private static final String COMMANDS = "cellar_commands_total";

  @TempDir Path dir;
  private Path chromium;

  @BeforeEach
  void needsChromium() {
    chromium = HeadlessChromium.find();
    assumeTrue(
        chromium != null,
        "chromium is not installed (run scripts/install-test-tools.sh): the dashboard test needs a real browser");
  }

  @Test
  void figuresMoveAndMatchMetrics() throws Exception {
    try (LiveServer live = new LiveServer(dir, Map.of());
        Load load = new Load(live.server.port())) {
      load.awaitCommands(2_000);
      try (HeadlessChromium browser = new HeadlessChromium(chromium, live.uri("/"), 1366, 900)) {
        awaitFigures(
            browser,
            f -> !f.getOrDefault("ops", "").isEmpty() && !f.getOrDefault("p50", "").isEmpty());
        Look first = look(live, browser);
        Thread.sleep(3_000);
        Look second = look(live, browser);

        for (String moving : List.of("commands", "timed", "uptime", "fsyncs")) {
          assertTrue(
              second.page(moving) > first.page(moving),
              moving + " moves: " + first.page(moving) + " then " + second.page(moving));
        }
        for (Look look : List.of(first, second)) {
          look.between("commands", COMMANDS);
          look.between("timed", "cellar_command_duration_seconds_count");
          look.between("fsyncs", "cellar_fsyncs_total");
          look.between("compactions", "cellar_compactions_total");
          look.between("compacted", "cellar_compacted_bytes_total");
          look.between("checkpoints", "cellar_checkpoints_total");
          look.between("keys", "cellar_keys");
          look.between("clients", "cellar_connected_clients");
          look.between("offheap", "cellar_memory_offheap_bytes");
          look.near("log", "cellar_log_bytes", 0.5);
          look.near("mapped", "cellar_log_mapped_bytes", 0.25);
          look.near("segments", "cellar_log_segments", 0.5);
          // The server shares this test JVM's heap, whose committed size a collection moves by 4x
          // between two scrapes a second apart (seen: 228 MB on the page, 60 MB in both scrapes):
          // no scrape brackets it. It must be a committed heap: at least the page's used heap, at
          // most the JVM's maximum.
          assertTrue(
              look.page("heap-committed") > 0
                  && look.page("heap-committed") <= Runtime.getRuntime().maxMemory(),
              "heap committed within the JVM's maximum: " + look.page("heap-committed"));
          look.near("rss", "cellar_memory_rss_bytes", 0.5);
          assertTrue(
              look.page("heap") > 0 && look.page("heap") <= look.page("heap-committed"),
              "heap used within committed");
          assertTrue(look.page("garbage") <= look.page("log"), "garbage within the log");
          assertEquals(0, look.page("maxmemory"), "no maxmemory set");
        }
        assertTrue(first.page("mapped") > 0, "the active segment is mapped");

        double metricsRate =
            (sumOf(second.after, COMMANDS) - sumOf(first.before, COMMANDS))
                / ((second.afterNanos - first.beforeNanos) * 1e-9);
        for (Look look : List.of(first, second)) {
          double ops = look.page("ops");
          assertTrue(
              ops > metricsRate / 5 && ops < metricsRate * 5,
              "commands/s on the page "
                  + ops
                  + " within a factor of 5 of /metrics over the test, "
                  + metricsRate);
          double p50 = look.page("p50"), p99 = look.page("p99"), p999 = look.page("p999");
          assertTrue(
              0 < p50 && p50 <= p99 && p99 <= p999,
              "ordered percentiles: " + p50 + " " + p99 + " " + p999);
          double metricsP50 =
              Histogram.of(second.after).minus(Histogram.of(first.before)).quantile(0.5);
          assertTrue(
              Math.abs(Histogram.bucketOf(p50) - Histogram.bucketOf(metricsP50)) <= 1,
              "the page's p50 "
                  + p50
                  + " s within a bucket of /metrics' over the test, "
                  + metricsP50
                  + " s");
          assertTrue(look.page("fsync-mean-all") > 0, "fsyncs are timed");
        }

        // CONFIG RESETSTAT zeroes the command counters: the page starts its rates afresh rather
        // than
        // showing a negative one.
        assertEquals("+OK\r\n", new String(live.resp("CONFIG", "RESETSTAT"), UTF_8));
        long reset = System.currentTimeMillis();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (int i = 0; i < 3; ) {
          assertTrue(
              System.nanoTime() < deadline,
              "the page showed " + i + " samples newer than the reset in 20 s");
          Map<String, String> f = figures(browser.dumpDom());
          if (Long.parseLong(f.get("sampled")) > reset) {
            assertTrue(
                f.get("ops").isEmpty() || Double.parseDouble(f.get("ops")) >= 0,
                "commands/s after RESETSTAT: " + f.get("ops"));
            i++;
          }
          Thread.sleep(400);
        }
        screenshotIfAsked(live, "");
      }
    }
  }

  @Test
  void passwordIsAskedKeptForTheTabAndChecked() throws Exception {
    try (LiveServer live = new LiveServer(dir, Map.of("requirepass", "dash-pw"));
        HeadlessChromium browser = new HeadlessChromium(chromium, live.uri("/"), 1366, 900)) {
      await(browser, "document.getElementById('login').className", "shown"::equals);
      screenshotIfAsked(live, "-password");
      assertEquals(
          "", figures(browser.dumpDom()).get("commands"), "no figures before the password");

      login(browser, "wrong");
      await(
          browser,
          "document.getElementById('login-error').textContent",
          t -> t.contains("not the server's password"));
      assertEquals("", figures(browser.dumpDom()).get("commands"));

      login(browser, "dash-pw");
      awaitFigures(browser, f -> !f.getOrDefault("commands", "").isEmpty());
      assertEquals("dash-pw", browser.evaluate("sessionStorage.getItem('cellar.token')"));
      assertEquals("", browser.evaluate("document.getElementById('login').className"));
    }
  }

  private static void login(HeadlessChromium browser, String password) throws Exception {
    browser.evaluate(
        "document.getElementById('password').value = "
            + HeadlessChromium.quote(password)
            + "; document.getElementById('login-form').requestSubmit(); ''");
  }

  /**
   * Reads /metrics, then the page's DOM once it shows a sample the server took after that read (the
   * page's figures are up to a second old), then /metrics again.
   */
  private static Look look(LiveServer live, HeadlessChromium browser) throws Exception {
    long beforeNanos = System.nanoTime();
    Map<String, Double> before = scrape(live);
    long beforeMillis = System.currentTimeMillis();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    Map<String, String> page;
    do {
      Thread.sleep(100);
      page = figures(browser.dumpDom());
      assertTrue(
          System.nanoTime() < deadline,
          "the page shows no sample newer than " + beforeMillis + " after 10 s: " + page);
    } while (page.get("sampled").isEmpty() || Long.parseLong(page.get("sampled")) <= beforeMillis);
    Map<String, Double> after = scrape(live);
    return new Look(before, page, after, beforeNanos, System.nanoTime());
  }

  private static Map<String, Double> scrape(LiveServer live) {
    return PrometheusText.parse(new String(live.get("/metrics").body(), UTF_8));
  }

  /** Each element's id to its raw figure, from the {@code data-value} attributes of a DOM dump. */
  static Map<String, String> figures(String dom) {
    Map<String, String> figures = new HashMap<>();
    Matcher m = FIGURE.matcher(dom);
    while (m.find()) {
      figures.put(m.group(1), m.group(2));
    }
    return figures;
  }

  private static void awaitFigures(HeadlessChromium browser, Predicate<Map<String, String>> ready)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    Map<String, String> last;
    do {
      last = figures(browser.dumpDom());
      if (ready.test(last)) {
        return;
      }
      Thread.sleep(200);
    } while (System.nanoTime() < deadline);
    fail(
        "the page's figures did not fill in within 30 s: "
            + last
            + "; status: "
            + browser.evaluate("document.getElementById('status').textContent")
            + "; page: "
            + browser.dumpDom());
  }

  private static void await(HeadlessChromium browser, String expression, Predicate<String> ready)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String last;
    do {
      try {
        last = browser.evaluate(expression);
      } catch (IllegalStateException notYet) {
        last = notYet.getMessage(); // the page is still loading: its elements are not there yet
      }
      if (ready.test(last)) {
        return;
      }
      Thread.sleep(100);
    } while (System.nanoTime() < deadline);
    fail(expression + " is still '" + last + "' after 30 s");
  }

  /**
   * {@code -Ddashboard.screenshot=file.png} saves what a laptop would show, with the load still on,
   * through Chromium's own {@code --screenshot} (and the password prompt in {@code
   * file-password.png}); for looking at the page, not for checking it.
   */
  private void screenshotIfAsked(LiveServer live, String suffix) throws Exception {
    String asked = System.getProperty("dashboard.screenshot");
    if (asked == null) {
      return;
    }
    String file = asked.replaceFirst("(\\.png)?$", suffix + "$1");
    Path profile = Files.createTempDirectory(dir, "shot");
    Process p =
        new ProcessBuilder(
                chromium.toString(),
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--user-data-dir=" + profile,
                "--window-size=1366,768",
                "--virtual-time-budget=4000",
                "--screenshot=" + Path.of(file).toAbsolutePath(),
                live.uri("/").toString())
            .redirectErrorStream(true)
            .redirectOutput(profile.resolve("log").toFile())
            .start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "chromium --screenshot finished");
  }

  /** The page's figures seen between two scrapes of /metrics. */
  private record Look(
      Map<String, Double> before,
      Map<String, String> figures,
      Map<String, Double> after,
      long beforeNanos,
      long afterNanos) {
    double page(String id) {
      String raw = figures.get(id);
      assertNotNull(raw, "no element '" + id + "' with a data-value on the page");
      assertFalse(raw.isEmpty(), "'" + id + "' has no figure yet");
      return Double.parseDouble(raw);
    }

    /** A figure that can only have been read between the two scrapes: within their values. */
    void between(String id, String metric) {
      double low = Math.min(sumOf(before, metric), sumOf(after, metric));
      double high = Math.max(sumOf(before, metric), sumOf(after, metric));
      double value = page(id);
      assertTrue(
          low <= value && value <= high,
          id + " = " + value + " on the page, " + metric + " from " + low + " to " + high);
    }

    /**
     * A gauge that may wander between reads: within {@code tolerance} (a fraction) of the scrapes'
     * range.
     */
    void near(String id, String metric, double tolerance) {
      double low = Math.min(sumOf(before, metric), sumOf(after, metric)) * (1 - tolerance);
      double high = Math.max(sumOf(before, metric), sumOf(after, metric)) * (1 + tolerance);
      double value = page(id);
      assertTrue(
          low <= value && value <= high,
          id + " = " + value + " on the page, " + metric + " within " + low + " to " + high);
    }
  }

  /** The sum of a family's samples (every label), as the page sums over commands. */
  private static double sumOf(Map<String, Double> samples, String name) {
    double sum = 0;
    boolean found = false;
    for (Map.Entry<String, Double> e : samples.entrySet()) {
      String key = e.getKey();
      if (key.equals(name) || key.startsWith(name + "{")) {
        sum += e.getValue();
        found = true;
      }
    }
    assertTrue(found, "/metrics has no " + name);
    return sum;
  }

  /**
   * The command latency histogram of a scrape, summed over commands: cumulative counts by bound.
   */
  private record Histogram(double[] bounds, double[] cumulative) {
    private static final double[] BOUNDS = {
      0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
      0.1, 0.25, 0.5, 1, 2.5
    };

    static Histogram of(Map<String, Double> samples) {
      double[] cumulative = new double[BOUNDS.length];
      for (Map.Entry<String, Double> e : samples.entrySet()) {
        Matcher m =
            Pattern.compile("^cellar_command_duration_seconds_bucket\\{.*le=\"([^\"]+)\".*}$")
                .matcher(e.getKey());
        if (m.matches() && !m.group(1).equals("+Inf")) {
          cumulative[bucketOf(Double.parseDouble(m.group(1)))] += e.getValue();
        }
      }
      return new Histogram(BOUNDS, cumulative);
    }

    static int bucketOf(double seconds) {
      for (int i = 0; i < BOUNDS.length; i++) {
        if (seconds <= BOUNDS[i] * (1 + 1e-9)) {
          return i;
        }
      }
      return BOUNDS.length;
    }

    Histogram minus(Histogram earlier) {
      double[] d = new double[cumulative.length];
      for (int i = 0; i < d.length; i++) {
        d[i] = cumulative[i] - earlier.cumulative[i];
      }
      return new Histogram(bounds, d);
    }

    /** As Prometheus's histogram_quantile: linear within the bucket holding the rank. */
    double quantile(double q) {
      double rank = q * cumulative[cumulative.length - 1];
      double below = 0;
      for (int i = 0; i < cumulative.length; i++) {
        if (cumulative[i] >= rank && cumulative[i] > below) {
          double lower = i == 0 ? 0 : bounds[i - 1];
          return lower + (bounds[i] - lower) * (rank - below) / (cumulative[i] - below);
        }
        below = cumulative[i];
      }
      return bounds[bounds.length - 1];
    }
  }

  /** SET and GET over RESP, pipelined by 32, on 10,000 keys, until closed. */
  private static final class Load implements AutoCloseable {
    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stop;
    private volatile long commands;

    Load(int port) {
      thread =
          Thread.ofPlatform()
              .name("dashboard-load")
              .start(
                  () -> {
                    try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                      byte[] value = new byte[100];
                      for (long i = 0; !stop; ) {
                        Pipeline p = jedis.pipelined();
                        for (int j = 0; j < 16; j++, i++) {
                          byte[] key = ("key:" + i % 10_000).getBytes(UTF_8);
                          p.set(key, value);
                          p.get(key);
                        }
                        p.sync();
                        commands += 32;
                      }
                    } catch (Throwable t) {
                      failure.set(t);
                    }
                  });
    }

    void awaitCommands(long n) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (commands < n) {
        assertNull(failure.get(), "the load failed");
        assertTrue(
            System.nanoTime() < deadline, "the load ran only " + commands + " commands in 30 s");
        Thread.sleep(20);
      }
    }

    @Override
    public void close() throws InterruptedException {
      stop = true;
      thread.join(10_000);
      if (failure.get() != null) {
        throw new AssertionError("the load failed", failure.get());
      }
    }
  }
}
