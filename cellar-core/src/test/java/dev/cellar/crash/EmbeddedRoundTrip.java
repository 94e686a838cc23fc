package dev.cellar.crash;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Child process: writes across several segments, closes, reopens and checks; exit 0 if all good.
 */
public final class EmbeddedRoundTrip {
  private EmbeddedRoundTrip() {}

  public static void main(String[] args) {
    Path dir = Path.of(args[0]);
    CellarOptions options =
        CellarOptions.defaults().segmentBytes(1 << 20).maxValueBytes(4096).shards(4);
    for (int round = 0; round < 2; round++) {
      try (Cellar db = Cellar.open(dir, options)) {
        for (int i = 0; i < 20_000; i++) {
          db.put(
              ("k" + i).getBytes(StandardCharsets.UTF_8),
              ("v" + i + "-" + round).getBytes(StandardCharsets.UTF_8));
        }
      }
      try (Cellar db = Cellar.open(dir, options)) {
        for (int i = 0; i < 20_000; i++) {
          byte[] v = db.get(("k" + i).getBytes(StandardCharsets.UTF_8));
          if (v == null || !new String(v, StandardCharsets.UTF_8).equals("v" + i + "-" + round)) {
            System.out.println("mismatch at k" + i);
            System.exit(1);
          }
        }
      }
    }
    System.out.println("ok");
  }
}
