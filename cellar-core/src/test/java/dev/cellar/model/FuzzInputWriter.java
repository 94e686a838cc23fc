package dev.cellar.model;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Turns the first steps of a seeded run into an input for {@code StoreModelFuzzTest} that makes the
 * same choices, to start the fuzzer from sequences known to reach crashes and faults (the saved
 * inputs were written so).
 *
 * <p>Jazzer's {@code consumeInt(min, max)}, like libFuzzer's {@code ConsumeIntegralInRange}, takes
 * the bytes it needs from the end of the input, most significant first, one byte for a range below
 * 256, two below 65,536, and reduces them modulo the range's size; so the input is the recorded
 * choices' bytes in reverse order.
 *
 * <pre>
 * java -cp cellar-core/target/classes:cellar-core/target/test-classes \
 *     dev.cellar.model.FuzzInputWriter SEED STEPS FILE
 * </pre>
 */
final class FuzzInputWriter implements Choices {
  private final Choices seeded;
  private final ByteArrayOutputStream consumed = new ByteArrayOutputStream();

  FuzzInputWriter(long seed) {
    this.seeded = Choices.seeded(seed);
  }

  @Override
  public int nextInt(int bound) {
    int value = seeded.nextInt(bound);
    int range = bound - 1;
    int bytes = 0;
    while (bytes < 4 && (range >>> (8 * bytes)) != 0) {
      bytes++;
    }
    for (int i = bytes - 1; i >= 0; i--) {
      consumed.write(value >>> (8 * i));
    }
    return value;
  }

  @Override
  public boolean hasMore() {
    return true;
  }

  /** The input that replays the choices made so far. */
  byte[] input() {
    byte[] forward = consumed.toByteArray();
    byte[] input = new byte[forward.length];
    for (int i = 0; i < forward.length; i++) {
      input[i] = forward[forward.length - 1 - i];
    }
    return input;
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 3) {
      System.err.println("usage: FuzzInputWriter SEED STEPS FILE");
      System.exit(2);
    }
    FuzzInputWriter choices = new FuzzInputWriter(Long.parseLong(args[0]));
    Workload workload = Workload.draw(choices);
    StringBuilder steps = new StringBuilder(workload.toString());
    for (int i = 0; i < Integer.parseInt(args[1]); i++) {
      steps.append("\n").append(i + 1).append(": ").append(Op.next(choices, workload));
    }
    Files.write(Path.of(args[2]), choices.input());
    System.out.println(steps);
  }
}
