package dev.cellar.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigFileTest {
  @TempDir Path dir;

  @Test
  void redisDirectivesCellarDoesNotNeedAreIgnoredWithAWarningEach() throws Exception {
    Path file =
        write(
            "port 7000\ndaemonize yes\nsave 900 1\ntls-cluster no\nloglevel warning\n"
                + "client-output-buffer-limit normal 0 0 0\nclient-output-buffer-limit replica 256mb 64mb 60\n");
    ServerConfig config = new ServerConfig();
    List<String> warnings = ConfigFile.read(file, config);
    assertEquals(3, warnings.size(), warnings::toString);
    assertTrue(
        warnings
            .get(0)
            .startsWith(file + ":2: ignoring 'daemonize': Cellar stays in the foreground"),
        warnings::toString);
    assertTrue(
        warnings.get(2).startsWith(file + ":4: ignoring 'tls-cluster no'"), warnings::toString);
    assertEquals(7000, config.port());
    assertEquals("warning", config.matching("loglevel").get("loglevel"));
    assertEquals(
        Long.MAX_VALUE,
        config.outputBufferLimit(),
        "the replica line leaves the normal class's limit");
  }

  @Test
  void notifyKeyspaceEventsIsASettingQuotedOrNot() throws Exception {
    ServerConfig config = new ServerConfig();
    assertEquals(List.of(), ConfigFile.read(write("notify-keyspace-events KEA\n"), config));
    assertEquals("AKE", config.matching("notify-keyspace-events").get("notify-keyspace-events"));
    assertEquals(List.of(), ConfigFile.read(write("notify-keyspace-events \"\"\n"), config));
    assertEquals(0, config.notifyKeyspaceEvents(), "the stock redis.conf's empty value: off");
    assertThrows(
        ConfigException.class,
        () -> ConfigFile.read(write("notify-keyspace-events KEQ\n"), config));
  }

  /**
   * Redis's encoding thresholds are settings now: applied from a file under either name, with
   * Redis's ranges, where other tuning of Redis's machinery is still ignored with a warning.
   */
  @Test
  void encodingThresholdsAreSettingsUnderBothNames() throws Exception {
    ServerConfig config = new ServerConfig();
    List<String> warnings =
        ConfigFile.read(
            write(
                "hash-max-ziplist-entries 64\nzset-max-listpack-value 1kb\n"
                    + "list-max-listpack-size -3\nlazyfree-lazy-user-del yes\n"),
            config);
    assertEquals(1, warnings.size(), warnings::toString);
    assertTrue(
        warnings.getFirst().contains("ignoring 'lazyfree-lazy-user-del'"), warnings::toString);
    assertEquals(64, config.packLimits().hashEntries());
    assertEquals(
        "64", config.matching("hash-max-listpack-entries").get("hash-max-listpack-entries"));
    assertEquals(1024, config.packLimits().zsetValue());
    assertEquals(-3, config.packLimits().listSize());
    assertEquals(512, config.packLimits().setIntsetEntries(), "untouched: Redis's default");
    assertThrows(
        ConfigException.class,
        () -> ConfigFile.read(write("set-max-intset-entries -1\n"), new ServerConfig()));
    assertThrows(
        ConfigException.class,
        () -> ConfigFile.read(write("list-max-listpack-size 2147483648\n"), new ServerConfig()));
  }

  /** CONFIG SET records an ignored Redis setting (both ways of setting), and reads it back. */
  @Test
  void ignoredRedisSettingsSetAtRunTimeReadBack() {
    ServerConfig config = new ServerConfig();
    assertTrue(config.acceptsAtRuntime("activedefrag"));
    config.setAtRuntime("ACTIVEDEFRAG", "yes");
    assertEquals("yes", config.matching("activedefrag").get("activedefrag"));
    config.set("activedefrag", "no");
    assertEquals("no", config.all().get("activedefrag"));
    assertTrue(!config.acceptsAtRuntime("no-such-setting"));
    assertThrows(ConfigException.class, () -> config.setAtRuntime("no-such-setting", "1"));
    assertThrows(ConfigException.class, () -> config.setAtRuntime("replicaof", "h 1"));
  }

  @Test
  void directivesCellarCannotHonourAreRefusedWithTheLineAndWhy() throws Exception {
    for (String line :
        List.of(
            "tls-cluster yes",
            "replicaof 10.0.0.1 6379",
            "rename-command FLUSHALL \"\"",
            "user alice on >pw ~* +@all")) {
      Path file = write("port 7000\n" + line + "\n");
      ConfigException e =
          assertThrows(ConfigException.class, () -> ConfigFile.read(file, new ServerConfig()));
      assertTrue(e.getMessage().startsWith(file + ":2: '"), e.getMessage());
      assertTrue(e.getMessage().contains("is not supported: Cellar"), e.getMessage());
    }
  }

  @Test
  void messagesNeverRepeatAValueThatMayBeASecret() throws Exception {
    Path ignored = write("masterauth s3cret\ntls-client-key-file-pass s3cret\n");
    List<String> warnings = ConfigFile.read(ignored, new ServerConfig());
    assertEquals(2, warnings.size(), warnings::toString);
    assertTrue(warnings.stream().noneMatch(w -> w.contains("s3cret")), warnings::toString);
    Path refused = write("user alice on >s3cret ~* +@all\n");
    ConfigException e =
        assertThrows(ConfigException.class, () -> ConfigFile.read(refused, new ServerConfig()));
    assertTrue(e.getMessage().startsWith(refused + ":1: 'user' is not supported"), e.getMessage());
    assertTrue(!e.getMessage().contains("s3cret"), e.getMessage());
  }

  @Test
  void aTypoIsStillAnUnknownSetting() throws Exception {
    Path file = write("prot 7000\n");
    ConfigException e =
        assertThrows(ConfigException.class, () -> ConfigFile.read(file, new ServerConfig()));
    assertEquals(file + ":1: unknown setting 'prot'", e.getMessage());
  }

  @Test
  void anOptionalFileNamingOnlyWhitespaceOnceParsedIsRefusedNotUnset() {
    // Path.of drops the trailing slash of " /", leaving " ": reported, then set back, that blank
    // would unset the file, so CONFIG GET's answer would not set back what it reported.
    ServerConfig config = new ServerConfig().set("tls-ca-cert-file", "ca.pem");
    ConfigException e =
        assertThrows(ConfigException.class, () -> config.set("tls-ca-cert-file", "\n /"));
    assertTrue(e.getMessage().contains("names only whitespace"), e.getMessage());
    assertEquals("ca.pem", config.all().get("tls-ca-cert-file"));
    config.set("tls-ca-cert-file", " ");
    assertEquals("", config.all().get("tls-ca-cert-file"));
    config.set("logfile", "/");
    assertEquals("/", config.all().get("logfile"));
  }

  private Path write(String text) throws Exception {
    return Files.writeString(Files.createTempFile(dir, "cellar", ".conf"), text);
  }
}
