package dev.cellar.bench.codecs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CodecsBenchmarkTest {
  @TempDir Path dir;

  @Test
  void everyApproachRoundTripsTheSamples() {
    PriceUpdate[] samples = PriceUpdateSamples.generate(64, 3);
    for (String key : Approaches.keys()) {
      try (EncodingApproach approach = Approaches.create(key, samples)) {
        approach.verify();
        assertTrue(approach.encodedLength(samples[0]) > 0, approach.label());
        assertTrue(approach.run(Operation.ENCODE, 100) > 0, approach.label());
      }
    }
  }

  @Test
  void aShortRunPrintsTheTableAndWritesJson() throws Exception {
    Path json = dir.resolve("codecs.json");
    StringWriter out = new StringWriter();
    CommandLine command = new CommandLine(new CodecsBenchmark());
    command.setOut(new PrintWriter(out));
    command.setErr(new PrintWriter(new StringWriter()));
    int status =
        command.execute(
            "--seconds",
            "0.02",
            "--warmup",
            "0",
            "--iterations",
            "1",
            "--messages",
            "16",
            "--approaches",
            "flyweight,jdk",
            "--clock",
            "cpu",
            "--no-fork",
            "--json",
            json.toString());
    assertEquals(0, status, out.toString());
    assertTrue(out.toString().contains("flyweight over MemorySegment"), out.toString());
    assertTrue(out.toString().contains("JDK serialization"), out.toString());
    String written = Files.readString(json);
    assertTrue(written.contains("\"approach\": \"flyweight\""), written);
    assertTrue(written.contains("\"roundTrip\": {\"opsPerSecond\": "), written);
    assertTrue(written.contains("\"clock\": \"cpu\""), written);
  }

  @Test
  void aForkedRunMeasuresInAChildJvm() {
    StringWriter out = new StringWriter();
    CommandLine command = new CommandLine(new CodecsBenchmark());
    command.setOut(new PrintWriter(out));
    command.setErr(new PrintWriter(new StringWriter()));
    int status =
        command.execute(
            "--seconds",
            "0.02",
            "--warmup",
            "0",
            "--iterations",
            "2",
            "--messages",
            "16",
            "--approaches",
            "flyweight");
    assertEquals(0, status, out.toString());
    assertTrue(out.toString().contains("each approach in its own JVM"), out.toString());
    assertTrue(out.toString().contains("flyweight over MemorySegment"), out.toString());
  }

  @Test
  void resultsSurviveTheTripFromAChild() throws Exception {
    Map<Operation, Throughput> rates = new EnumMap<>(Operation.class);
    for (Operation operation : Operation.values()) {
      rates.put(operation, new Throughput(new double[] {1.5e6, 2.25e6 + operation.ordinal()}));
    }
    ApproachResult sent = new ApproachResult("jdk", "JDK serialization", 322, rates);
    Path file = dir.resolve("result.txt");
    sent.writeTo(file);
    ApproachResult received = ApproachResult.readFrom(file);
    assertEquals(sent.label(), received.label());
    assertEquals(sent.bytes(), received.bytes());
    for (Operation operation : Operation.values()) {
      assertArrayEquals(
          sent.throughput().get(operation).perIteration(),
          received.throughput().get(operation).perIteration());
    }
  }

  @Test
  void refusesUnknownApproachesAndBadCounts() {
    CommandLine command = new CommandLine(new CodecsBenchmark());
    command.setErr(new PrintWriter(new StringWriter()));
    assertEquals(2, command.execute("--approaches", "protobuf"));
    assertEquals(2, command.execute("--messages", "1000"));
    assertEquals(2, command.execute("--seconds", "0"));
    assertEquals(2, command.execute("--clock", "sundial"));
  }

  @Test
  void throughputReportsTheMedianAndSpread() {
    Throughput t = new Throughput(new double[] {90, 110, 100});
    assertEquals(100, t.median());
    assertEquals(0.1, t.spread(), 1e-9);
    assertEquals(105, new Throughput(new double[] {100, 110}).median());
  }
}
