package dev.cellar.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The whole benchmark with tiny numbers against the real servers: start, load, warm up, measure,
 * trace, read memory, stop, report. Needs redis-server, redis-tools, util-linux, strace and the
 * built {@code cellar-cli} jar (it starts Cellar through {@code ./cellar}); skipped without them.
 */
@Tag("slow")
class ServerBenchmarkSlowTest {
  @TempDir Path dir;

  @Test
  void runsBothServersThroughEveryStageAndStopsThem() throws Exception {
    Path cellar = Tools.defaultCellarScript();
    assumeTrue(
        Files.exists(cellar.resolveSibling("cellar-cli/target/cellar-cli.jar")),
        "cellar-cli is not built");
    assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "pinning needs two cores");
    try {
      Tools.locate(cellar, false);
    } catch (IllegalStateException e) {
      assumeTrue(false, e.getMessage());
    }
    boolean strace = canAttachStrace();
    Path json = dir.resolve("server.json");
    Path doc =
        Files.writeString(
            dir.resolve("doc.md"),
            "# Doc\n<!-- server-bench:begin -->\nold\n<!-- server-bench:end -->\nafter\n");
    List<String> args =
        new ArrayList<>(
            List.of(
                "--requests",
                "2000",
                "--requests-p1",
                "500",
                "--warmup",
                "500",
                "--cold-requests",
                "500",
                "--keyspace",
                "2000",
                "--repeat",
                "2",
                "--modes",
                "no,always",
                "--pipelines",
                "1,16",
                "--strace-requests",
                "500",
                "--sustained-requests",
                "0",
                "--no-pin-harness",
                "--out",
                json.toString(),
                "--markdown",
                doc.toString(),
                "--dir",
                dir.toString()));
    args.add(strace ? "--strace" : "--no-strace");

    assertEquals(0, new CommandLine(new ServerBenchmark()).execute(args.toArray(String[]::new)));

    String report = Files.readString(json);
    assertTrue(report.contains("\"failures\": []"), report);
    // pinned: 2 rounds x 2 modes, unpinned: 2 rounds x 1 mode; each x 2 servers x (2 pipelines x 2
    // tests + the cold run)
    assertEquals(60, occurrences(report, "\"ops_per_s\""), report);
    assertEquals(12, occurrences(report, "\"ready_s\""), report);
    assertEquals(4, occurrences(report, "\"vm_rss_bytes\""), report);
    assertEquals(strace ? 8 : 0, occurrences(report, "\"per_op\""), report);
    assertEquals(25, occurrences(report, "\"target\""), report);
    String written = Files.readString(doc);
    assertTrue(
        written.startsWith(
            "# Doc\n<!-- server-bench:begin -->\n`./cellar bench server --requests 2000 "),
        written);
    assertTrue(
        written.contains("| no | SET | 16 |")
            && written.endsWith("<!-- server-bench:end -->\nafter\n"),
        written);
    try (var left = Files.list(dir)) {
      assertEquals(Set.of(json, doc), Set.copyOf(left.toList()), "session directories are removed");
    }
  }

  /**
   * strace -p needs ptrace rights over a non-child (root, CAP_SYS_PTRACE or yama ptrace_scope 0).
   */
  private static boolean canAttachStrace() throws IOException, InterruptedException {
    Process sleeper = new ProcessBuilder("sleep", "30").start();
    try {
      Process strace =
          new ProcessBuilder("strace", "-c", "-p", Long.toString(sleeper.pid()), "-o", "/dev/null")
              .redirectErrorStream(true)
              .start();
      Thread.sleep(500);
      boolean attached = strace.isAlive();
      strace.destroy();
      strace.waitFor(10, TimeUnit.SECONDS);
      return attached;
    } catch (IOException noStrace) {
      return false;
    } finally {
      sleeper.destroyForcibly();
    }
  }

  private static int occurrences(String text, String needle) {
    return text.split(java.util.regex.Pattern.quote(needle), -1).length - 1;
  }
}
