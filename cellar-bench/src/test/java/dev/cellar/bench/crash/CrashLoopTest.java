package dev.cellar.bench.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.bench.server.ChildProcesses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash loop's short form, as CI runs it: six cycles (each kill moment twice) against the
 * server started with the launcher's java command line from this test's class path. {@code ./cellar
 * bench crash} runs the long form through the launcher itself.
 */
class CrashLoopTest {
  @TempDir Path dir;

  @Test
  void sixKillsDuringWritesCompactionAndCheckpointsLoseNoAcknowledgedWrite() throws Exception {
    long seed = ThreadLocalRandom.current().nextLong(1L << 48);
    CrashSettings settings = new CrashSettings(6, 3, 100, 512, seed, 300, 1200, 50, "256kb");
    ServerLaunch launch =
        ServerLaunch.java(
            Path.of(System.getProperty("java.home"), "bin", "java"),
            System.getProperty("java.class.path"));
    CrashResult result =
        new CrashLoop(settings, launch, dir, new ChildProcesses(), System.out).run();

    String context =
        "seed "
            + seed
            + ": "
            + result.summary()
            + "\n"
            + String.join(
                "\n", result.violations().stream().limit(20).map(Violation::toString).toList());
    assertTrue(result.passed(), context);
    assertEquals(6, result.cycles().size(), context);
    for (CycleOutcome cycle : result.cycles()) {
      assertTrue(
          cycle.acknowledged() > 0, "cycle " + cycle.cycle() + " acknowledged nothing; " + context);
      String expectedStart =
          switch (cycle.moment()) {
            case ANY -> null;
            case COMPACTION -> "Background append only file rewriting started";
            case CHECKPOINT -> "Background saving started";
          };
      assertEquals(expectedStart, cycle.started(), "cycle " + cycle.cycle() + "; " + context);
    }
  }

  /**
   * The launcher and {@link ServerLaunch#java} must start the same JVM: the options of the script's
   * {@code server} branch, and the main class of the jar it runs.
   */
  @Test
  void theJavaCommandLineIsTheLaunchers() throws Exception {
    Path root = Path.of("").toAbsolutePath().getParent();
    String script = Files.readString(root.resolve("cellar"));
    String serverBranch =
        script.substring(
            script.indexOf("\n  server)"), script.indexOf(";;", script.indexOf("\n  server)")));
    // The options are one array (server_opts), used by the server's exec line and the start-up
    // cache's training run alike; the cache's own flags change no behaviour.
    String joined = serverBranch.replaceAll("\\s*\\n\\s*", " ");
    assertTrue(
        joined.contains(
            "server_opts=(" + String.join(" ", ServerLaunch.LAUNCHER_JVM_OPTIONS) + ")"),
        "the launcher's server options changed; update ServerLaunch.LAUNCHER_JVM_OPTIONS:\n"
            + serverBranch);
    assertTrue(
        joined.contains(
            "exec \"$java\" \"${server_opts[@]}\" ${aot_opts[@]+\"${aot_opts[@]}\"} ${CELLAR_JAVA_OPTS:-} -jar \"$cli_jar\""),
        "the launcher's server line changed:\n" + serverBranch);
    assertTrue(
        Files.readString(root.resolve("cellar-cli/pom.xml"))
            .contains("<mainClass>" + ServerLaunch.MAIN_CLASS + "</mainClass>"),
        "cellar-cli's jar no longer runs " + ServerLaunch.MAIN_CLASS);
  }
}
