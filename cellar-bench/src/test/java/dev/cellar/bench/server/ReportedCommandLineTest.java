package dev.cellar.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

class ReportedCommandLineTest {
  @Command(name = "probe")
  static final class Probe implements Runnable {
    @Spec CommandSpec spec;
    @Mixin LauncherOptions launcher;

    @Option(names = "--minutes")
    double minutes;

    @Option(names = "--out")
    Path out;

    @Option(names = "--markdown")
    Path markdown;

    @Override
    public void run() {}
  }

  @Test
  void keepsWhatWasMeasuredAndDropsWhereThingsWent() {
    Probe probe = new Probe();
    new CommandLine(probe)
        .execute(
            "--minutes",
            "60",
            "--dir",
            "/home/someone/tmp",
            "--keep-data",
            "--out=/x.json",
            "--markdown",
            "docs/b.md",
            "--cellar",
            "./c");
    assertEquals(
        "./cellar bench probe --minutes 60",
        ReportedCommandLine.of(probe.spec, "./cellar bench probe"));
  }
}
