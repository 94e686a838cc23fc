package dev.cellar.bench.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Removal of the benchmark's data and log directories. */
public final class ScratchDirectory {
  private ScratchDirectory() {}

  /**
   * Deletes {@code root} and everything under it. Files that vanish meanwhile are no error: on
   * Ctrl-C the shutdown hook and the main thread may both be removing the same tree, and a stopping
   * server may still be removing its own files.
   */
  public static void delete(Path root) throws IOException {
    List<Path> paths;
    try (Stream<Path> walk = Files.walk(root)) {
      paths = walk.sorted(Comparator.reverseOrder()).toList();
    } catch (NoSuchFileException gone) {
      return;
    } catch (UncheckedIOException e) {
      if (e.getCause() instanceof NoSuchFileException) {
        delete(root); // something vanished mid-walk; walk what is left
        return;
      }
      throw e.getCause();
    }
    for (Path path : paths) {
      Files.deleteIfExists(path);
    }
  }
}
