package dev.cellar.cli.server;

import dev.cellar.Cellar;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;

/**
 * {@code cellar aot-training} (hidden): the training run from which the launcher makes the start-up
 * cache (JDK 25's AOT cache), run as {@code java -XX:AOTCacheOutput=FILE ... -jar cellar-cli.jar
 * aot-training} right after a build.
 *
 * <p>The cache holds what this JVM loaded, linked and spun, and the method profiles of what ran
 * hot, so the run goes through the path a real start takes: the {@code server} command itself, read
 * from flags without picocli ({@link ServerArguments}), as {@code cellar server} reads them, on a
 * fresh temporary directory and free ports; a {@link TrainingLoad} from a second thread then drives
 * the commands that matter at run time, and stops the server with {@code SHUTDOWN} as an operator
 * would. The JVM writes the cache when it exits. Nothing is left behind: the directory is deleted.
 * Exit code 0 means the server started, served the whole load and stopped cleanly; anything else
 * fails the training, and the launcher runs without a cache.
 */
@Command(
    name = "aot-training",
    hidden = true,
    description = "Trains the start-up cache (run by ./cellar after a build).")
public final class TrainingCommand implements Callable<Integer> {

  /**
   * Runs the training as {@code cellar aot-training} does, for {@code Main}, which runs it without
   * picocli; returns the exit code.
   */
  public static int train() {
    try {
      return new TrainingCommand().call();
    } catch (Exception e) {
      e.printStackTrace();
      return 1;
    }
  }

  @Override
  public Integer call() throws Exception {
    Path dir = Files.createTempDirectory("cellar-aot-training");
    try {
      leaveLogToReplay(dir);
      int port = freePort();
      int httpPort = freePort();
      TrainingLoad load = new TrainingLoad(port, httpPort);
      Thread driver = Thread.ofPlatform().name("cellar-aot-training").start(load);
      Integer served =
          ServerCommand.runWithoutPicocli(
              new String[] {
                "server",
                "--dir",
                dir.toString(),
                "--port",
                Integer.toString(port),
                "--http-port",
                Integer.toString(httpPort),
                "--logfile",
                dir.resolve("server.log").toString()
              });
      if (served == null) {
        throw new IllegalStateException(
            "the training's flags need picocli: make the fast path read them");
      }
      driver.join();
      if (load.failure() != null) {
        System.err.println("cellar aot-training: the training load failed: " + load.failure());
        return 1;
      }
      System.err.println("cellar aot-training: " + load.summary());
      return served;
    } finally {
      deleteTree(dir);
    }
  }

  /**
   * Records the training store holds before the server opens it, to be replayed; {@code
   * -Dcellar.aot.replay-records=0} trains without (to measure what the replay's profiles bring).
   */
  static final int REPLAYED_RECORDS = Integer.getInteger("cellar.aot.replay-records", 300_000);

  /**
   * Writes {@link #REPLAYED_RECORDS} records and removes the checkpoint their close wrote, so that
   * the server's open replays the whole log, as its restart after a crash does. Without this the
   * cache held no profile of replay (the training started on an empty directory), and a restart's
   * replay ran interpreted and in C1 code until C2 caught up: about 0.9 s of compilation in a 1.2 s
   * replay of 5M records (docs/benchmarks.md, "5M keys after kill -9").
   */
  private static void leaveLogToReplay(Path dir) throws IOException {
    if (REPLAYED_RECORDS == 0) {
      return;
    }
    byte[] value = new byte[60];
    try (Cellar store = Cellar.open(dir)) {
      for (int i = 0; i < REPLAYED_RECORDS; i++) {
        value[0] = (byte) i;
        store.put(("replay:" + i).getBytes(StandardCharsets.US_ASCII), value);
      }
    }
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p :
          files.filter(p -> p.getFileName().toString().startsWith("checkpoint-")).toList()) {
        Files.delete(p);
      }
    }
  }

  /**
   * A port free now; the server binds it a moment later (a race only another process could lose
   * us).
   */
  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.delete(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
  }
}
