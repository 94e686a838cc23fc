package dev.cellar.bench.jmh;

import dev.cellar.bench.stores.StoreAdapter;
import dev.cellar.bench.stores.StoreKind;
import dev.cellar.bench.workload.KeySpace;
import dev.cellar.bench.workload.ValueFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cellar's get and put next to their baseline, a {@link java.util.HashMap}, on a modest store (1M
 * keys by default) that fits any cache-warm machine. The keys are encoded once up front so the loop
 * measures the store, not key encoding; puts overwrite existing keys with one shared value, so the
 * heap map does not grow and Cellar's log grows at its own pace.
 *
 * <p>Both stores go through the same {@link StoreAdapter} classes as the macro benchmark; each fork
 * sees one store only, so the adapter call is monomorphic.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g", "--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class GetPutBenchmark {

  @Param({"cellar", "hashmap"})
  String store;

  @Param({"1000000"})
  int keys;

  @Param({"60"})
  int valueSize;

  private StoreAdapter adapter;
  private Path directory;
  private byte[][] keyBytes;
  private byte[] value;

  @Setup(Level.Trial)
  public void load() throws IOException {
    KeySpace keySpace = new KeySpace(keys);
    ValueFactory values = new ValueFactory(valueSize);
    keyBytes = new byte[keys][];
    for (int n = 0; n < keys; n++) {
      keyBytes[n] = keySpace.key(n);
    }
    value = values.value(keys, 1);
    directory = Files.createTempDirectory("cellar-jmh-");
    adapter = StoreKind.parse(store).newAdapter();
    adapter.open(directory, keys, keySpace.averageKeyBytes(), valueSize);
    for (int n = 0; n < keys; n++) {
      adapter.put(keyBytes[n], values.value(n, 0));
    }
    adapter.endBatch();
  }

  @TearDown(Level.Trial)
  public void close() throws IOException {
    adapter.close();
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  @Benchmark
  public byte[] get() {
    return adapter.get(keyBytes[ThreadLocalRandom.current().nextInt(keys)]);
  }

  @Benchmark
  public void put() {
    adapter.put(keyBytes[ThreadLocalRandom.current().nextInt(keys)], value);
  }
}
