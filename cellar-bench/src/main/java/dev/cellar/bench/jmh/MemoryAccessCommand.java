package dev.cellar.bench.jmh;

import dev.cellar.bench.embedded.MachineInfo;
import dev.cellar.bench.server.MarkdownSection;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cellar bench memory-access}: runs {@link MemoryAccessBenchmark} through JMH's API and
 * prints its table, each cell a ratio to the array in the same run, from the median time of a pass
 * (why the median: {@link MemoryAccessBenchmark}). JMH's own progress goes to stderr, the table to
 * stdout; the options are JMH's {@code -f -wi -w -i -r -p size=}.
 */
@Command(
    name = "memory-access",
    mixinStandardHelpOptions = true,
    description =
        "JMH: FFM MemorySegment reads and writes against long[]/byte[] and ByteBuffers, as ratios.")
public final class MemoryAccessCommand implements Callable<Integer> {
  static final String BEGIN = "<!-- memory-access:begin -->";
  static final String END = "<!-- memory-access:end -->";

  @Spec CommandSpec spec;

  @Option(
      names = "--sizes",
      split = ",",
      defaultValue = "16384,524288,268435456",
      description = "bytes per holder, comma-separated (default: ${DEFAULT-VALUE})")
  List<String> sizes;

  @Option(
      names = "--include",
      defaultValue = ".*",
      description =
          "regular expression on the method name, e.g. 'sumLongs_.*' or '.*_(array|segment)'"
              + " (default: all)")
  String include;

  @Option(
      names = "--kinds",
      split = ",",
      description =
          "only these kinds of buffer and segment (heap, direct, confined, shared, global,"
              + " ofArray, mapped); default all. JMH gives them to both: a buffer fork given a"
              + " segment's kind fails at set-up and is left out of the table")
  List<String> kinds;

  @Option(names = "--forks", defaultValue = "1", description = "JMH -f (default: ${DEFAULT-VALUE})")
  int forks;

  @Option(
      names = "--warmups",
      defaultValue = "3",
      description = "JMH -wi (default: ${DEFAULT-VALUE})")
  int warmups;

  @Option(
      names = "--warmup-seconds",
      defaultValue = "1",
      description = "JMH -w (default: ${DEFAULT-VALUE})")
  int warmupSeconds;

  @Option(
      names = "--iterations",
      defaultValue = "5",
      description = "JMH -i (default: ${DEFAULT-VALUE})")
  int iterations;

  @Option(
      names = "--seconds",
      defaultValue = "1",
      description = "JMH -r (default: ${DEFAULT-VALUE})")
  int seconds;

  @Option(
      names = "--markdown",
      description = "also write the tables into this file, between " + BEGIN + " and " + END)
  Path markdown;

  @Option(
      names = "--jvm-arg",
      description =
          "extra flag for every fork, after -Xms2g -Xmx2g (repeatable), e.g."
              + " -XX:-UseSuperWord to see which loops were vectorised")
  List<String> jvmArgs;

  @Option(names = "--json", description = "also write JMH's raw results as JSON to this file")
  Path json;

  @Override
  public Integer call() throws RunnerException, IOException {
    if (forks < 1) {
      // In-process runs would share one JIT profile among all holders: the ratios would lie.
      throw new ParameterException(spec.commandLine(), "--forks " + forks + ": must be at least 1");
    }
    for (String size : sizes) {
      try {
        MemoryAccessBenchmark.checkedSize(size);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "--sizes: " + e.getMessage());
      }
    }
    if (markdown != null) {
      MarkdownSection.check(Files.readString(markdown), BEGIN, END);
    }
    OptionsBuilder options = new OptionsBuilder();
    options
        .include(Pattern.quote(MemoryAccessBenchmark.class.getName()) + "\\." + include + "$")
        .mode(Mode.SampleTime)
        .timeUnit(TimeUnit.NANOSECONDS)
        .forks(forks)
        .warmupIterations(warmups)
        .warmupTime(TimeValue.seconds(warmupSeconds))
        .measurementIterations(iterations)
        .measurementTime(TimeValue.seconds(seconds))
        .param("size", sizes.toArray(String[]::new));
    if (jvmArgs != null) {
      // Given here, JMH's jvmArgsAppend replaces the class's @Fork one rather than adding to it.
      List<String> forkArgs =
          new ArrayList<>(List.of(MemoryAccessBenchmark.HEAP_MIN, MemoryAccessBenchmark.HEAP_MAX));
      forkArgs.addAll(jvmArgs);
      options.jvmArgsAppend(forkArgs.toArray(String[]::new));
    }
    if (json != null) {
      options.result(json.toString()).resultFormat(ResultFormatType.JSON);
    }
    if (kinds != null) {
      options.param("kind", kinds.toArray(String[]::new));
    }
    Options built = options.build();
    Collection<RunResult> runs =
        new Runner(built, OutputFormatFactory.createFormatInstance(System.err, VerboseMode.NORMAL))
            .run();
    String section = heading() + "\n\n" + MemoryAccessTable.markdown(results(runs));
    PrintStream out = System.out;
    out.print(section);
    if (markdown != null) {
      Files.writeString(
          markdown,
          MarkdownSection.replace(Files.readString(markdown), section, BEGIN, END),
          StandardCharsets.UTF_8);
      System.err.println("wrote the tables into " + markdown);
    }
    return 0;
  }

  private String heading() {
    Map<String, Object> machine = MachineInfo.describe();
    return String.format(
        "`./cellar bench memory-access --sizes %s%s%s%s --forks %d --warmups %d --warmup-seconds %d"
            + " --iterations %d --seconds %d`, %s; %s; %s cores (%s).",
        String.join(",", sizes),
        ".*".equals(include) ? "" : " --include '" + include + "'",
        kinds == null ? "" : " --kinds " + String.join(",", kinds),
        jvmArgs == null
            ? ""
            : jvmArgs.stream().map(arg -> " --jvm-arg=" + arg).collect(Collectors.joining()),
        forks,
        warmups,
        warmupSeconds,
        iterations,
        seconds,
        machine.get("date"),
        machine.get("jdk"),
        machine.get("cores"),
        machine.get("cpu"));
  }

  private static List<MemoryAccessTable.Result> results(Collection<RunResult> runs) {
    List<MemoryAccessTable.Result> results = new ArrayList<>();
    for (RunResult run : runs) {
      BenchmarkParams params = run.getParams();
      String benchmark = params.getBenchmark();
      String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
      String kind = params.getParam("kind");
      // Sample mode in nanoseconds (set in call), so the percentiles are ns per pass.
      Result<?> primary = run.getPrimaryResult();
      results.add(
          new MemoryAccessTable.Result(
              method,
              kind == null ? "" : kind,
              Long.parseLong(params.getParam("size")),
              primary.getStatistics().getPercentile(50)));
    }
    return results;
  }
}
