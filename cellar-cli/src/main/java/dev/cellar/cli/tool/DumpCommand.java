package dev.cellar.cli.tool;

import dev.cellar.cli.CellarCommand;
import dev.cellar.inspect.SegmentFile;
import dev.cellar.inspect.SegmentRecord;
import dev.cellar.inspect.StoreDirectory;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code cellar tool dump DIR}: every valid record of a store's segments, one line each (see {@link
 * RecordPrinter}), in file order. Damaged regions appear as {@code #} comment lines after their
 * segment's records, classified as {@code tool verify} would, and as {@code verify} does the dump
 * fails (exit 1) when any is an error. Since the output usually goes to a file or a pager, a line
 * on stderr counts what was found, so damage is not noticed only by whoever reads to the end.
 *
 * <p>Output is buffered (a store can hold millions of records) and the dump stops when its reader
 * goes away, so {@code cellar tool dump DIR | head} returns at once.
 */
@Command(
    name = "dump",
    mixinStandardHelpOptions = true,
    description = {
      "Prints the records of a store directory in readable form, offline and read-only.",
      "Damaged regions of the segments show as # ERROR and # WARNING lines among the records, as tool verify"
          + " classifies them, and are counted on stderr."
    },
    footer = {"", "Exit codes: 0 no errors (warnings allowed), 1 errors found, 2 usage error."})
public final class DumpCommand implements Callable<Integer> {
  /** How many lines go out between checks that the reader is still there. */
  private static final int LINES_PER_PIPE_CHECK = 4096;

  @Spec CommandSpec spec;

  @Mixin ProgressOption progress;

  @Mixin KeyFileOption keyFile;

  @Parameters(paramLabel = "DIR", description = "The store directory.")
  Path directory;

  @Option(
      names = "--segment",
      paramLabel = "ID",
      description =
          "Only this segment: its id in hex as in the file name (seg-ID.log), leading zeros optional,"
              + " or the file name itself.")
  String segment;

  @Option(names = "--limit", paramLabel = "N", description = "Stop after N records.")
  long limit = Long.MAX_VALUE;

  @Option(names = "--values", description = "Also print a preview of each value (first 64 bytes).")
  boolean values;

  /**
   * Unwinds the scan once the output has what it needs; a scan cannot otherwise be stopped early.
   */
  private static final class StopDump extends RuntimeException {
    StopDump() {
      super(null, null, false, false);
    }
  }

  @Override
  public Integer call() throws IOException {
    ToolCommand.requireDirectory(spec, directory);
    if (limit < 0) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--limit must be zero or more, not " + limit);
    }
    StoreDirectory store = StoreDirectory.list(directory);
    List<Path> segments = selectSegments(store);
    long total = 0;
    for (Path path : segments) {
      total += Files.size(path);
    }
    PrintWriter out = new PrintWriter(new BufferedWriter(spec.commandLine().getOut(), 1 << 16));
    ProgressBar bar = progress.bar(spec.commandLine().getErr(), total, out);
    Run run = new Run(out, bar, ReplayPosition.of(store));
    try {
      run.dump(segments);
    } finally {
      bar.clear();
      out.flush();
    }
    return run.report(spec.commandLine().getErr());
  }

  private List<Path> selectSegments(StoreDirectory store) {
    if (segment == null) {
      return store.segments();
    }
    long id = parseSegmentId(segment);
    Path path = store.segment(id);
    if (path == null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "no "
              + SegmentFile.fileName(id)
              + " in "
              + directory
              + "; it has "
              + store.segments().size()
              + " segments"
              + (store.segments().isEmpty()
                  ? ""
                  : ", from "
                      + store.segments().getFirst().getFileName()
                      + " to "
                      + store.segments().getLast().getFileName()));
    }
    return List.of(path);
  }

  private long parseSegmentId(String text) {
    long fromName = SegmentFile.idOf(text);
    if (fromName >= 0) {
      return fromName;
    }
    try {
      return Long.parseUnsignedLong(text, 16);
    } catch (NumberFormatException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--segment " + text + " is neither a hex segment id nor a segment file name");
    }
  }

  private dev.cellar.EncryptionKeys readKeys() {
    try {
      return keyFile.keys();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("cannot read the encryption key file: " + e, e);
    }
  }

  /** The state of one dump: lines written, progress. */
  private final class Run {
    private final PrintWriter out;
    private final ProgressBar bar;
    private final ReplayPosition durable;
    private final RecordPrinter printer = new RecordPrinter(values);
    private long printed;
    private long scannedBefore;
    private int errors;
    private int warnings;
    private final dev.cellar.EncryptionKeys keys = readKeys();

    Run(PrintWriter out, ProgressBar bar, ReplayPosition durable) {
      this.out = out;
      this.bar = bar;
      this.durable = durable;
    }

    void dump(List<Path> segments) throws IOException {
      out.println(printer.header());
      try {
        for (Path path : segments) {
          dumpSegment(path);
        }
      } catch (StopDump stop) {
        // limit reached or nobody reading
      }
      bar.clear();
      out.printf(
          Locale.ROOT, "# %,d records%s%n", printed, printed == limit ? " (limit reached)" : "");
    }

    private void dumpSegment(Path path) throws IOException {
      if (printed >= limit) {
        throw new StopDump();
      }
      try (SegmentFile file = SegmentFile.open(path, keys)) {
        String name = file.name();
        SegmentVerifier.Result result =
            SegmentVerifier.verify(file, durable, record -> print(name, record));
        for (Finding finding : result.findings()) {
          bar.clear();
          out.println("# " + finding);
          switch (finding.severity()) {
            case ERROR -> errors++;
            case WARNING -> warnings++;
            case NOTE -> {}
          }
        }
        scannedBefore += file.size();
      }
    }

    /** Counts the damage on {@code err}, if there was any; returns the exit code. */
    int report(PrintWriter err) {
      if (errors + warnings > 0) {
        err.printf(
            Locale.ROOT,
            "%s: %s, %s in the segments read (the # ERROR and # WARNING lines of the dump);"
                + " cellar tool verify %s checks the checkpoints too%n",
            spec.qualifiedName(),
            count(errors, "error"),
            count(warnings, "warning"),
            directory);
        err.flush();
      }
      return errors == 0 ? CellarCommand.EXIT_OK : CellarCommand.EXIT_FAILURE;
    }

    private static String count(int n, String noun) {
      return n + " " + noun + (n == 1 ? "" : "s");
    }

    private void print(String file, SegmentRecord record) {
      if (printed >= limit) {
        throw new StopDump();
      }
      bar.clear();
      out.println(printer.line(file, record));
      printed++;
      if (printed % LINES_PER_PIPE_CHECK == 0 && out.checkError()) {
        throw new StopDump();
      }
      bar.update(scannedBefore + record.offset() + record.length());
    }
  }
}
