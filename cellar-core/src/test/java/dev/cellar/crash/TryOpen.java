package dev.cellar.crash;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.StoreLockedException;
import java.nio.file.Path;

/** Child process: tries to open a store and prints "locked" or "opened". */
public final class TryOpen {
  private TryOpen() {}

  public static void main(String[] args) {
    try (Cellar db =
        Cellar.open(
            Path.of(args[0]), CellarOptions.defaults().segmentBytes(1 << 20).maxValueBytes(4096))) {
      System.out.println("opened");
    } catch (StoreLockedException e) {
      System.out.println("locked");
    }
  }
}
