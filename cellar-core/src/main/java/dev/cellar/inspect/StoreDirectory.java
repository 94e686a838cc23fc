package dev.cellar.inspect;

import dev.cellar.checkpoint.CheckpointDescriptor;
import dev.cellar.log.Segment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The files of a store directory as recovery sees them, sorted by name (which is id order for
 * segments and sequence order for checkpoints). Names are recognised by the engine's own parsers,
 * so a tool and recovery always agree on which file is what.
 *
 * @param segments {@code seg-<id>.log} files
 * @param checkpoints {@code checkpoint-<sequence>.ckpt} files, oldest first
 * @param temporary {@code *.tmp} files: unfinished writes that the next open deletes
 */
public record StoreDirectory(
    Path path, List<Path> segments, List<Path> checkpoints, List<Path> temporary) {

  /** Lists {@code directory}; it must exist. */
  public static StoreDirectory list(Path directory) throws IOException {
    List<Path> segments = new ArrayList<>();
    List<Path> checkpoints = new ArrayList<>();
    List<Path> temporary = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file :
          files
              .filter(Files::isRegularFile)
              .sorted(Comparator.comparing(Path::getFileName))
              .toList()) {
        String name = file.getFileName().toString();
        if (Segment.idOf(name) >= 0) {
          segments.add(file);
        } else if (CheckpointDescriptor.sequenceOf(name) >= 0) {
          checkpoints.add(file);
        } else if (name.endsWith(".tmp")) {
          temporary.add(file);
        }
      }
    }
    return new StoreDirectory(
        directory, List.copyOf(segments), List.copyOf(checkpoints), List.copyOf(temporary));
  }

  /**
   * Holds {@code directory} with the lock an open store holds, until closed: no store opens it
   * meanwhile, so its files stay as they are (a tool that copies them, such as a backup, gets a
   * consistent set). Writes nothing else.
   *
   * @throws dev.cellar.StoreLockedException if a process has the store open, naming it
   */
  public static java.io.Closeable holdExclusively(Path directory) throws IOException {
    return dev.cellar.store.DirectoryLock.acquire(dev.cellar.io.FileIO.platform(), directory);
  }

  /** The identity file, {@code cellar.meta}; it may be missing. */
  public Path metaFile() {
    return path.resolve(StoreMetaFile.FILE_NAME);
  }

  /** The ids of the segment files. */
  public Set<Long> segmentIds() {
    return segments.stream()
        .map(p -> Segment.idOf(p.getFileName().toString()))
        .collect(Collectors.toSet());
  }

  /** The segment with {@code id}, if the directory holds it. */
  public Path segment(long id) {
    return segments.stream()
        .filter(p -> Segment.idOf(p.getFileName().toString()) == id)
        .findFirst()
        .orElse(null);
  }
}
