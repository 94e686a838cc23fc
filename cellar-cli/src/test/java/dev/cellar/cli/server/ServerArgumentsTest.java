package dev.cellar.cli.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cellar.server.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@link ServerArguments}, the way {@code cellar server} reads its flags without picocli, against
 * picocli's reading of the same {@link ServerCommand}: every option picocli knows (taken from its
 * model, so that a flag added to {@link ServerCommand} alone fails here) must be read and give the
 * same configuration, and whatever the parser does not take must be left to picocli.
 */
class ServerArgumentsTest {
  /**
   * A value for each option, none of them the default, so that a flag read but dropped shows as a
   * difference. A new option needs a line here.
   */
  private static final Map<String, String> SAMPLES =
      Map.ofEntries(
          Map.entry("--port", "7001"),
          Map.entry("--bind", "0.0.0.0"),
          Map.entry("--dir", "some/data"),
          Map.entry("--appendfsync", "always"),
          Map.entry("--io-threads", "3"),
          Map.entry("--maxmemory", "100mb"),
          Map.entry("--maxmemory-policy", "allkeys-random"),
          Map.entry("--requirepass", "s3cret"),
          Map.entry("--http-port", "7002"),
          Map.entry("--protected-mode", "no"),
          Map.entry("--maxclients", "50"),
          Map.entry("--proto-max-bulk-len", "1mb"),
          Map.entry("--client-query-buffer-limit", "2mb"),
          Map.entry("--maxmemory-clients", "10%"),
          Map.entry("--client-output-buffer-limit", "3mb"),
          Map.entry("--transport", "nio"),
          Map.entry("--tls-port", "7003"),
          Map.entry("--https-port", "7004"),
          Map.entry("--tls-cert-file", "cert.pem"),
          Map.entry("--tls-key-file", "key.pem"),
          Map.entry("--tls-key-file-pass", "key pass"),
          Map.entry("--tls-ca-cert-file", "ca.pem"),
          Map.entry("--tls-auth-clients", "optional"),
          Map.entry("--tls-protocols", "TLSv1.3"),
          Map.entry("--auto-aof-rewrite-percentage", "50"),
          Map.entry("--loglevel", "warning"),
          Map.entry("--logfile", "cellar.log"),
          Map.entry("--http-maxclients", "20"),
          Map.entry("--http-header-timeout", "5"),
          Map.entry("--http-idle-timeout", "60"),
          Map.entry("--ipc", "no"),
          Map.entry("--ipc-agents", "2"),
          Map.entry("--ipc-max-ring", "4mb"),
          Map.entry("--ipc-client-timeout", "15"),
          Map.entry("--segment-size", "1mb"),
          Map.entry("--databases", "4"),
          Map.entry("--backup-target", "s3://backups/cellar"),
          Map.entry("--encryption-key-file", "/etc/cellar/cellar.key"),
          Map.entry("--compression", "zstd"),
          Map.entry("--io", "direct"),
          Map.entry("--read-cache-size", "64mb"));

  @TempDir Path tmp;

  /** Each name of each option picocli knows for {@code server}, but help and version. */
  static Stream<String> everyFlag() {
    return serverOptions().stream().flatMap(o -> Arrays.stream(o.names()));
  }

  private static List<OptionSpec> serverOptions() {
    return new CommandLine(new ServerCommand())
        .getCommandSpec().options().stream()
            .filter(o -> !o.usageHelp() && !o.versionHelp())
            .toList();
  }

  private static String sample(OptionSpec option) {
    String value = SAMPLES.get(option.longestName());
    if (value == null) {
      fail("no sample value for " + option.longestName() + ": add one to SAMPLES");
    }
    return value;
  }

  private static OptionSpec option(String name) {
    return serverOptions().stream()
        .filter(o -> Arrays.asList(o.names()).contains(name))
        .findFirst()
        .orElseThrow();
  }

  @ParameterizedTest
  @MethodSource("everyFlag")
  void everyFlagIsReadWithItsValueAsPicocliReadsIt(String flag) {
    String value = sample(option(flag));
    assertSameAsPicocli(flag, value);
    assertSameAsPicocli(flag + "=" + value);
  }

  @Test
  void allFlagsAtOnceAndAConfigFileGiveWhatPicocliGives() throws IOException {
    Path conf = tmp.resolve("cellar.conf");
    Files.writeString(
        conf, "port 7100\nmaxclients 9\nappendfsync no\nsave 900 1\nrequirepass \"from file\"\n");
    List<String> args = new ArrayList<>();
    for (OptionSpec option : serverOptions()) {
      args.add(option.longestName());
      args.add(sample(option));
    }
    assertSameAsPicocli(args.toArray(String[]::new));
    args.add(conf.toString());
    assertSameAsPicocli(args.toArray(String[]::new));
    args.addFirst(args.removeLast());
    assertSameAsPicocli(args.toArray(String[]::new));
  }

  @Test
  void realCommandLines() throws IOException {
    Path conf = tmp.resolve("redis.conf");
    Files.writeString(conf, "port 7100\nbind 127.0.0.1 -::1\nloglevel verbose\nappendonly yes\n");
    assertSameAsPicocli("--port", "0", "--http-port", "0", "--dir", tmp.toString());
    assertSameAsPicocli(conf.toString());
    assertSameAsPicocli(conf.toString(), "--port", "7200", "--fsync", "always");
    assertSameAsPicocli("--port", "7200", conf.toString(), "--threads=2", "--loglevel", "debug");
    assertSameAsPicocli("--requirepass", "", "--tls-protocols", "TLSv1.2 TLSv1.3");
    assertSameAsPicocli("--requirepass=a=b", "--bind", "::1");
    assertSameAsPicocli();
  }

  @Test
  void aBadValueFailsWithPicocliPathsMessage() {
    String[] args = {"--port", "70000", "--maxmemory", "lots"};
    ServerArguments fast = ServerArguments.parse(withServer(args), 1);
    assertNotNull(fast);
    ConfigException fastFailure =
        assertThrows(
            ConfigException.class, () -> ServerCommand.settings(fast.configFile(), fast.flags()));
    ServerCommand viaPicocli = viaPicocli(args);
    ConfigException picocliFailure =
        assertThrows(
            ConfigException.class,
            () -> ServerCommand.settings(viaPicocli.configFile, viaPicocli.flags()));
    assertEquals(picocliFailure.getMessage(), fastFailure.getMessage());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "--help",
        "-h",
        "--version",
        "-V",
        "--port 1 --help",
        "--nosuch 1",
        "--Port 1",
        "--por 1",
        "-port 1",
        "--port",
        "--port=",
        "--port --dir",
        "--port -1",
        "--requirepass -secret",
        "--port 1 --port 2",
        "--fsync always --appendfsync no",
        "--threads 1 --io-threads 2",
        "a.conf b.conf",
        "@args.txt",
        "--dir @dir",
        "-- a.conf",
        "-",
        "'' --port 1",
        "--slowlog-max-len 10"
      })
  void whatItDoesNotTakeIsLeftToPicocli(String line) {
    List<String> args = new ArrayList<>();
    for (String word : line.split(" ")) {
      args.add(word.equals("''") ? "" : word);
    }
    assertNull(
        ServerArguments.parse(withServer(args.toArray(String[]::new)), 1),
        () -> "taken without picocli: " + args);
  }

  @Test
  void everySettingTheParserKnowsIsAnOptionOfServerCommand() {
    List<String> picocli = everyFlag().toList();
    for (String setting : ServerArguments.SETTINGS) {
      assertEquals(true, picocli.contains("--" + setting), "--" + setting + " in " + picocli);
    }
  }

  private void assertSameAsPicocli(String... args) {
    ServerArguments fast = ServerArguments.parse(withServer(args), 1);
    assertNotNull(fast, () -> "left to picocli: " + List.of(args));
    ServerCommand viaPicocli = viaPicocli(args);
    assertEquals(viaPicocli.configFile, fast.configFile(), () -> "config file of " + List.of(args));
    assertEquals(viaPicocli.flags(), fast.flags(), () -> "flags of " + List.of(args));
    ServerCommand.Settings expected =
        ServerCommand.settings(viaPicocli.configFile, viaPicocli.flags());
    ServerCommand.Settings actual = ServerCommand.settings(fast.configFile(), fast.flags());
    assertEquals(
        expected.config().all(), actual.config().all(), () -> "settings of " + List.of(args));
    assertEquals(expected.config().requirePass(), actual.config().requirePass());
    assertEquals(expected.config().tlsKeyFilePass(), actual.config().tlsKeyFilePass());
    assertEquals(expected.warnings(), actual.warnings());
  }

  private static ServerCommand viaPicocli(String... args) {
    ServerCommand command = new ServerCommand();
    new CommandLine(command).parseArgs(args);
    return command;
  }

  private static String[] withServer(String... args) {
    String[] all = new String[args.length + 1];
    all[0] = "server";
    System.arraycopy(args, 0, all, 1, args.length);
    return all;
  }
}
