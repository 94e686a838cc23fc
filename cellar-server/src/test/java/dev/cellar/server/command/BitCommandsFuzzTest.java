package dev.cellar.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.Fsync;
import dev.cellar.server.config.ServerConfig;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;

/**
 * Fuzz target for the bitmap and string-range commands (SETBIT GETBIT BITCOUNT BITPOS BITOP
 * BITFIELD BITFIELD_RO LCS SETRANGE GETRANGE), run through the real dispatcher over a real store:
 * any arguments end in a reply, never an internal error; and after each command the value agrees
 * with what the counting commands say of it (BITCOUNT and BITPOS against the bytes GET returns, and
 * a BITFIELD GET against the same field read from those bytes).
 *
 * <p>Arguments are mostly numbers in a small range (offsets, bit widths, values), so that the
 * commands' arithmetic is reached, and sometimes any bytes, so that their parsing is. {@code
 * proto-max-bulk-len} is 4 KiB, which keeps values small and makes the size limits reachable.
 */
class BitCommandsFuzzTest {
  private static final String[] COMMANDS = {
    "setbit",
    "getbit",
    "bitcount",
    "bitpos",
    "bitop",
    "bitfield",
    "bitfield_ro",
    "lcs",
    "setrange",
    "getrange"
  };
  private static final String[] WORDS = {
    "GET", "SET", "INCRBY", "OVERFLOW", "WRAP", "SAT", "FAIL", "BIT", "BYTE", "AND", "OR", "XOR",
    "NOT", "IDX", "LEN", "MINMATCHLEN", "WITHMATCHLEN", "i8", "u8", "i64", "u63", "i1", "u1", "#3",
    "k", "j"
  };

  private static final Fixture FIXTURE = new Fixture();

  @FuzzTest(maxDuration = "15s")
  void anyArguments(FuzzedDataProvider data) {
    run("del", "k", "j");
    int commands = data.consumeInt(1, 8);
    for (int n = 0; n < commands && data.remainingBytes() > 0; n++) {
      List<String> args = new ArrayList<>();
      args.add(COMMANDS[data.consumeInt(0, COMMANDS.length - 1)]);
      args.add(data.consumeBoolean() ? "k" : "j");
      int count = data.consumeInt(0, 8);
      for (int i = 0; i < count; i++) {
        args.add(
            switch (data.consumeInt(0, 3)) {
              case 0 -> Long.toString(data.consumeLong(-40, 200));
              case 1 -> WORDS[data.consumeInt(0, WORDS.length - 1)];
              case 2 -> Long.toString(data.consumeLong());
              default -> data.consumeString(8);
            });
      }
      String reply = run(args.toArray(String[]::new));
      assertFalse(reply.contains("internal error"), args + " -> " + reply);
      checkCounts("k");
    }
  }

  /** BITCOUNT and BITPOS of a value agree with its bytes. */
  private static void checkCounts(String key) {
    byte[] value = FIXTURE.value(key);
    long bits = 0;
    long firstSet = -1;
    for (int i = 0; i < value.length; i++) {
      bits += Integer.bitCount(value[i] & 0xFF);
      if (firstSet < 0 && value[i] != 0) {
        firstSet = i * 8L + Integer.numberOfLeadingZeros(value[i] & 0xFF) - 24;
      }
    }
    assertEquals(":" + bits + "\r\n", run("bitcount", key));
    assertEquals(":" + firstSet + "\r\n", run("bitpos", key, "1"));
    if (value.length > 0) {
      int byteAt = value.length - 1;
      long field = value[byteAt] & 0xFF;
      assertEquals("*1\r\n:" + field + "\r\n", run("bitfield_ro", key, "GET", "u8", "#" + byteAt));
    }
  }

  /** The store is closed and its directory removed, so that runs do not pile up in /tmp. */
  @AfterAll
  static void closeFixture() throws IOException {
    FIXTURE.close();
  }

  private static String run(String... args) {
    return FIXTURE.run(args);
  }

  /** A dispatcher and one session over a store in a temporary directory, for the whole run. */
  private static final class Fixture {
    final ServerContext server;
    final Session session;
    final Dispatcher dispatcher;
    final ReplyWriter out = new ReplyWriter(4096);
    final Request request = new Request();
    private final Path dir;
    private final Cellar store;

    Fixture() {
      try {
        dir = Files.createTempDirectory("bit-fuzz");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      store = Cellar.open(dir, CellarOptions.defaults().fsync(Fsync.NO));
      server =
          new ServerContext(
              store,
              new ServerConfig().set("proto-max-bulk-len", "4096"),
              new dev.cellar.server.testsupport.NoServerControl());
      session = new Session(1, "fuzz", "fuzz", out, server);
      dispatcher = new Dispatcher(server);
    }

    String run(String... args) {
      byte[][] bytes = new byte[args.length][];
      for (int i = 0; i < args.length; i++) {
        bytes[i] = args[i].getBytes(StandardCharsets.UTF_8);
      }
      request.set(bytes);
      out.reset();
      dispatcher.execute(session, request, out, System.nanoTime(), System.currentTimeMillis());
      return new String(out.buffer(), 0, out.size(), StandardCharsets.ISO_8859_1);
    }

    void close() throws IOException {
      store.close();
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }

    byte[] value(String key) {
      byte[] v = server.store().get(key.getBytes(StandardCharsets.UTF_8));
      return v == null ? new byte[0] : v;
    }
  }
}
