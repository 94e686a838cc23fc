package dev.cellar.bench.codecs;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cellar bench codecs}: the seed's encoding comparison (seed 003, "C like performance using
 * flyweight wrappers / structs") on Cellar's stack. A price update with an embedded instrument is
 * encoded and decoded by a flyweight over a {@code MemorySegment}, by Cellar's structs ({@code
 * dev.cellar.Struct} in place, and {@code Codecs.struct}), by Apache Fory with and without
 * reference tracking, by Cellar's {@code ForyCodec}, and by JDK serialization with and without
 * shared references; the table gives operations per second and each one's ratio to the best.
 *
 * <h2>Design notes</h2>
 *
 * <p>A hand-made harness rather than JMH: the run must fit in a minute or two inside the {@code
 * cellar} launcher, and the figures span three orders of magnitude, where JMH's precision buys
 * little. What JMH would guard against is guarded here by hand: each approach loops inside its own
 * methods (see {@link EncodingApproach}), results feed a sink (see {@link ThroughputMeter}), every
 * approach is verified against the source messages before it is timed, the heap is collected
 * between measurements so one approach's garbage is not charged to the next, and each approach runs
 * in a JVM of its own (see {@link ForkedRunner}).
 *
 * <p>All approaches run on one thread, so Fory's thread-safety is not under test except in the
 * {@code ForyCodec} row, which pays for its pool as Cellar does.
 */
@Command(
    name = "codecs",
    mixinStandardHelpOptions = true,
    description = {
      "Encodes and decodes a price update with an embedded instrument (seed 003) with a flyweight"
          + " over a MemorySegment, Cellar's structs (in place and Codecs.struct), Apache Fory,"
          + " Cellar's ForyCodec and JDK serialization;"
          + " prints encode, decode and round-trip operations per second and each one's ratio"
          + " to the fastest.",
      "Runs for about approaches x 3 x (warm-up + iterations x seconds), plus a few seconds per"
          + " JVM: about 110 s by default."
    })
public final class CodecsBenchmark implements Callable<Integer> {
  /** The samples' seed: fixed, so that every run and every forked child sees the same messages. */
  private static final long SAMPLE_SEED = 3;

  @Spec private CommandSpec spec;

  @Option(
      names = "--seconds",
      defaultValue = "1",
      description = "Seconds per measured iteration (default: ${DEFAULT-VALUE}).")
  private double seconds;

  @Option(
      names = "--warmup",
      defaultValue = "1",
      description = "Seconds of warm-up before each measurement (default: ${DEFAULT-VALUE}).")
  private double warmupSeconds;

  @Option(
      names = "--iterations",
      defaultValue = "3",
      description = "Measured iterations per operation (default: ${DEFAULT-VALUE}).")
  private int iterations;

  @Option(
      names = "--messages",
      defaultValue = "1024",
      description = "Distinct sample messages, a power of two (default: ${DEFAULT-VALUE}).")
  private int messages;

  @Option(
      names = "--approaches",
      split = ",",
      paramLabel = "KEY",
      description =
          "Only these approaches, of: flyweight, struct-view, struct, fory, fory-refs,"
              + " fory-codec, jdk-unshared, jdk (default: all).")
  private List<String> only;

  @Option(
      names = "--clock",
      paramLabel = "wall|cpu",
      defaultValue = "wall",
      converter = ClockConverter.class,
      description =
          "What rates are per: 'wall' (a second of real time) or 'cpu' (a second of"
              + " the benchmark thread's CPU time: steadier on a busy machine, but leaves out GC"
              + " threads' work) (default: ${DEFAULT-VALUE}).")
  private ThroughputMeter.Clock clock;

  @Option(
      names = "--fork",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "Measure each approach in a JVM of its own, so that none runs on code the"
              + " JIT compiled for another (default: ${DEFAULT-VALUE}; --no-fork runs all in this"
              + " JVM).")
  private boolean fork;

  @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON.")
  private Path json;

  /** Set by {@link ForkedRunner}: measure one approach here and write its result to this file. */
  @Option(names = "--child-result", hidden = true)
  private Path childResult;

  public static void main(String[] args) {
    System.exit(new CommandLine(new CodecsBenchmark()).execute(args));
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    List<String> keys = checkOptions();
    List<ApproachResult> results = fork ? measureForked(keys) : measureHere(keys);
    if (childResult != null) {
      results.getFirst().writeTo(childResult);
      return 0;
    }
    CodecsReport report = new CodecsReport(settingsLine(), Environment.describe(), settingsJson());
    results.forEach(report::add);
    PrintWriter out = spec.commandLine().getOut();
    out.println();
    out.print(report.table());
    if (json != null) {
      Files.writeString(json, report.json(), StandardCharsets.UTF_8);
      out.println("wrote " + json);
    }
    out.flush();
    return 0;
  }

  private List<ApproachResult> measureForked(List<String> keys)
      throws IOException, InterruptedException {
    ForkedRunner runner = new ForkedRunner(childOptions(), secondsPerApproach());
    List<ApproachResult> results = new ArrayList<>();
    for (String key : keys) {
      results.add(runner.run(key));
    }
    return results;
  }

  private List<ApproachResult> measureHere(List<String> keys) {
    PriceUpdate[] samples = PriceUpdateSamples.generate(messages, SAMPLE_SEED);
    ThroughputMeter meter = new ThroughputMeter(warmupSeconds, seconds, iterations, clock);
    InProcessRunner runner = new InProcessRunner(samples, meter, spec.commandLine().getErr());
    List<ApproachResult> results = new ArrayList<>();
    for (String key : keys) {
      results.add(runner.run(key));
    }
    return results;
  }

  /** The options a forked child needs to measure as this run would. */
  private List<String> childOptions() {
    return List.of(
        "--seconds", Double.toString(seconds),
        "--warmup", Double.toString(warmupSeconds),
        "--iterations", Integer.toString(iterations),
        "--messages", Integer.toString(messages),
        "--clock", clock.name().toLowerCase(Locale.ROOT));
  }

  private double secondsPerApproach() {
    return Operation.values().length * (warmupSeconds + iterations * seconds);
  }

  private List<String> checkOptions() {
    if (!(seconds > 0) || !(warmupSeconds >= 0) || iterations < 1) {
      throw new ParameterException(
          spec.commandLine(),
          "need --seconds > 0, --warmup >= 0 and --iterations >= 1; got "
              + seconds
              + ", "
              + warmupSeconds
              + " and "
              + iterations);
    }
    if (messages < 1 || Integer.bitCount(messages) != 1) {
      throw new ParameterException(
          spec.commandLine(), "--messages must be a power of two, got " + messages);
    }
    if (childResult != null && (fork || only == null || only.size() != 1)) {
      throw new ParameterException(
          spec.commandLine(), "--child-result needs --no-fork and exactly one approach");
    }
    if (only == null) {
      return List.copyOf(Approaches.keys());
    }
    for (String key : only) {
      if (!Approaches.known(key)) {
        throw new ParameterException(
            spec.commandLine(),
            "unknown approach '" + key + "'; known: " + String.join(", ", Approaches.keys()));
      }
    }
    return List.copyOf(only);
  }

  private String settingsLine() {
    return String.format(
        Locale.ROOT,
        "%d messages; per operation %.1f s warm-up, then %d x %.1f s; rates per %s second; %s",
        messages,
        warmupSeconds,
        iterations,
        seconds,
        clock == ThroughputMeter.Clock.CPU ? "CPU" : "wall-clock",
        fork
            ? "each approach in its own JVM (" + String.join(" ", ForkedRunner.CHILD_FLAGS) + ")"
            : "all approaches in one JVM");
  }

  private Map<String, Object> settingsJson() {
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("warmupSeconds", warmupSeconds);
    settings.put("seconds", seconds);
    settings.put("iterations", iterations);
    settings.put("messages", messages);
    settings.put("clock", clock.name().toLowerCase(Locale.ROOT));
    settings.put("forked", fork);
    return settings;
  }

  /** Reads {@code --clock} in lower case, as the help shows it. */
  static final class ClockConverter implements CommandLine.ITypeConverter<ThroughputMeter.Clock> {
    @Override
    public ThroughputMeter.Clock convert(String value) {
      return switch (value) {
        case "wall" -> ThroughputMeter.Clock.WALL;
        case "cpu" -> ThroughputMeter.Clock.CPU;
        default ->
            throw new CommandLine.TypeConversionException(
                "--clock is 'wall' or 'cpu', got '" + value + "'");
      };
    }
  }
}
