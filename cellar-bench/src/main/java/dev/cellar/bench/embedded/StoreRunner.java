package dev.cellar.bench.embedded;

import dev.cellar.bench.stores.StoreKind;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The child-JVM side of the embedded benchmark: runs every phase against one store in a fresh JVM
 * and writes the {@link Measurements} to a file for the parent. Not meant to be run by hand, though
 * it can be, to profile one store.
 */
@Command(
    name = "embedded-store",
    description = "Runs the embedded benchmark on one store (child JVM).")
public final class StoreRunner implements Callable<Integer> {

  @Option(names = "--store", required = true, description = "Store to run.")
  String store;

  @Option(names = "--dir", required = true, description = "Empty data directory for the store.")
  Path directory;

  @Option(names = "--out", required = true, description = "File to write the results to.")
  Path out;

  @Option(names = "--keys", required = true)
  long keys;

  @Option(names = "--value-size", required = true)
  int valueBytes;

  @Option(names = "--ops", required = true)
  long ops;

  @Option(names = "--seed", required = true)
  long seed;

  @Override
  public Integer call() throws Exception {
    StoreKind kind = StoreKind.parse(store);
    Workload workload = new Workload(keys, valueBytes, ops, seed);
    WorkloadDriver driver =
        new WorkloadDriver(kind.id(), kind.newAdapter(), workload, directory, System.err);
    Measurements results = new Measurements();
    try {
      driver.run(results);
    } catch (Exception | Error e) {
      // Keep the phases that completed; the parent shows them next to the failure.
      results.fail(e.toString());
      results.write(out, "store=" + kind.id() + " failed");
      throw e;
    }
    results.write(out, "store=" + kind.id() + " checksum=" + driver.checksum());
    return 0;
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new StoreRunner()).execute(args));
  }
}
