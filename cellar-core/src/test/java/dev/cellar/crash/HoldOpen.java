package dev.cellar.crash;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import java.nio.file.Path;

/** Child process: opens a store, says so, and holds it until killed. */
public final class HoldOpen {
  private HoldOpen() {}

  public static void main(String[] args) throws Exception {
    Cellar db =
        Cellar.open(
            Path.of(args[0]),
            CellarOptions.defaults().segmentBytes(1 << 20).maxValueBytes(4096).shards(4));
    db.put("held".getBytes(), "yes".getBytes());
    System.out.println("open");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
