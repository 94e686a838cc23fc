package dev.cellar.cli.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.cli.CellarCommand;
import dev.cellar.cli.CommandRun;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cellar server} through the real {@code main}, in a JVM of its own: a plain start goes
 * around picocli (whose command tree was most of the CPU spent before the first PONG), and what the
 * fast path leaves to picocli (help, usage errors) reads as it always has.
 */
class ServerStartTest {
  @TempDir Path tmp;

  @Test
  void aPlainStartLoadsNoPicocliClass() throws Exception {
    Path classes = tmp.resolve("classes.txt");
    try (ServerProcess server =
        ServerProcess.run(
            tmp,
            List.of("-Xlog:class+load=info:file=" + classes),
            "--port",
            "0",
            "--http-port",
            "0",
            "--dir",
            tmp.resolve("data").toString())) {
      int port = server.awaitPort();
      assertEquals("PONG", ServerProcess.command(port, "PING").substring(1));
      assertEquals(CellarCommand.EXIT_OK, server.signal("TERM"), server::toString);
    }
    List<String> picocli =
        Files.readAllLines(classes, StandardCharsets.UTF_8).stream()
            .filter(line -> line.contains(" picocli."))
            .limit(5)
            .toList();
    assertEquals(List.of(), picocli, "picocli classes loaded by a plain start");
  }

  @Test
  void helpAndUsageErrorsStillComeFromPicocli() throws Exception {
    for (List<String> args :
        List.of(List.of("--help"), List.of("--port"), List.of("--nosuch", "1"))) {
      String[] line = args.toArray(String[]::new);
      try (ServerProcess server = ServerProcess.run(tmp, line)) {
        int exit = server.awaitExit();
        String[] withServer = new String[line.length + 1];
        withServer[0] = "server";
        System.arraycopy(line, 0, withServer, 1, line.length);
        CommandRun inProcess = CommandRun.of(withServer);
        assertEquals(inProcess.exitCode(), exit, server::toString);
        assertEquals(inProcess.out(), server.stdout(), server::toString);
        assertEquals(inProcess.err(), server.stderr(), server::toString);
        assertTrue(inProcess.out().length() + inProcess.err().length() > 0, inProcess::toString);
      }
    }
  }
}
