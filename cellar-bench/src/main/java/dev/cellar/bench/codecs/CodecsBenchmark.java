package dev.cellar.bench.codecs;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cellar bench codecs}: the seed's encoding comparison (seed 003, "C like performance using
 * flyweight wrappers / structs") on Cellar's stack. A price update with an embedded instrument is
 * encoded and decoded by a flyweight over a {@code MemorySegment}, by Apache Fory with and without
 * reference tracking, by Cellar's {@code ForyCodec}, and by JDK serialization with and without
 * shared references; the table gives operations per second and each one's ratio to the best.
 *
 * <h2>Design notes</h2>
 *
 * <p>A hand-made harness rather than JMH: the run must fit in a minute or two inside the {@code
 * cellar} launcher, and the figures span three orders of magnitude, where JMH's precision buys
 * little. What JMH would guard against is guarded here by hand: each approach loops inside its own
 * methods (see {@link EncodingApproach}), results feed a sink (see {@link ThroughputMeter}), every
 * approach is verified against the source messages before it is timed, and the heap is collected
 * between measurements so one approach's garbage is not charged to the next. What it does not do
 * is fork a JVM per approach: approaches share no hot code but the timing loop, whose one call per
 * batch is cheap however megamorphic.
 *
 * <p>All approaches run on one thread, so Fory's thread-safety is not under test except in the
 * {@code ForyCodec} row, which pays for its pool as Cellar does.
 */
@Command(
    name = "codecs",
    mixinStandardHelpOptions = true,
    description = {
      "Encodes and decodes a price update with an embedded instrument (seed 003) with a flyweight"
          + " over a MemorySegment, Apache Fory, Cellar's ForyCodec and JDK serialization;"
          + " prints encode, decode and round-trip operations per second and each one's ratio"
          + " to the fastest.",
      "Runs for about approaches x 3 x (warm-up + iterations x seconds): 72 s by default."
    })
public final class CodecsBenchmark implements Callable<Integer> {
  /** The approaches by key, in the seed's column order. */
  private static final Map<String, Function<PriceUpdate[], EncodingApproach>> APPROACHES =
      approaches();

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
      description = "Only these approaches, of: flyweight, fory, fory-refs, fory-codec,"
          + " jdk-unshared, jdk (default: all).")
  private List<String> only;

  @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON.")
  private Path json;

  public static void main(String[] args) {
    System.exit(new CommandLine(new CodecsBenchmark()).execute(args));
  }

  @Override
  public Integer call() throws IOException {
    List<String> keys = checkOptions();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter progress = spec.commandLine().getErr();
    PriceUpdate[] samples = PriceUpdateSamples.generate(messages, 3);
    ThroughputMeter meter = new ThroughputMeter(warmupSeconds, seconds, iterations);
    CodecsReport report = new CodecsReport(settingsLine(), Environment.describe(), settingsJson());
    for (String key : keys) {
      try (EncodingApproach approach = APPROACHES.get(key).apply(samples)) {
        approach.verify();
        EnumMap<Operation, Throughput> results = new EnumMap<>(Operation.class);
        for (Operation operation : Operation.values()) {
          progress.printf(Locale.ROOT, "measuring %s: %s%n", approach.label(), operation.label);
          progress.flush();
          System.gc();
          results.put(operation, meter.measure(approach, operation));
        }
        report.add(key, approach.label(), approach.encodedLength(samples[0]), results);
      }
    }
    out.println();
    out.print(report.table());
    out.flush();
    if (json != null) {
      Files.writeString(json, report.json(), StandardCharsets.UTF_8);
      out.println("wrote " + json);
    }
    return 0;
  }

  private List<String> checkOptions() {
    if (!(seconds > 0) || !(warmupSeconds >= 0) || iterations < 1) {
      throw new ParameterException(
          spec.commandLine(),
          "need --seconds > 0, --warmup >= 0 and --iterations >= 1; got " + seconds + ", "
              + warmupSeconds + " and " + iterations);
    }
    if (messages < 1 || Integer.bitCount(messages) != 1) {
      throw new ParameterException(
          spec.commandLine(), "--messages must be a power of two, got " + messages);
    }
    if (only == null) {
      return List.copyOf(APPROACHES.keySet());
    }
    List<String> keys = new ArrayList<>();
    for (String key : only) {
      if (!APPROACHES.containsKey(key)) {
        throw new ParameterException(
            spec.commandLine(),
            "unknown approach '" + key + "'; known: " + String.join(", ", APPROACHES.keySet()));
      }
      keys.add(key);
    }
    return keys;
  }

  private String settingsLine() {
    return String.format(
        Locale.ROOT,
        "%d messages; per operation %.1f s warm-up, then %d x %.1f s",
        messages,
        warmupSeconds,
        iterations,
        seconds);
  }

  private Map<String, Object> settingsJson() {
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("warmupSeconds", warmupSeconds);
    settings.put("seconds", seconds);
    settings.put("iterations", iterations);
    settings.put("messages", messages);
    return settings;
  }

  private static Map<String, Function<PriceUpdate[], EncodingApproach>> approaches() {
    Map<String, Function<PriceUpdate[], EncodingApproach>> all = new LinkedHashMap<>();
    all.put("flyweight", FlyweightApproach::new);
    all.put("fory", samples -> new ForyApproach(samples, false));
    all.put("fory-refs", samples -> new ForyApproach(samples, true));
    all.put("fory-codec", ForyCodecApproach::new);
    all.put("jdk-unshared", samples -> new JdkSerializationApproach(samples, false));
    all.put("jdk", samples -> new JdkSerializationApproach(samples, true));
    return all;
  }
}
