package dev.cellar;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@link Cellar#snapshot(Path)} wrote: a directory that {@link Cellar#open(Path)} opens as the
 * store was at one instant during the call.
 *
 * @param directory the snapshot's directory
 * @param lastSeq every change up to this sequence number is in the snapshot (a few written while it
 *     was taken may be too)
 * @param files the names of its files
 * @param linkedBytes bytes of the files that are hard links to the store's own (immutable) files
 * @param copiedBytes bytes copied: the segments still being written, and files that could not be
 *     linked (another file system)
 */
public record StoreSnapshot(
    Path directory, long lastSeq, List<String> files, long linkedBytes, long copiedBytes) {
  public StoreSnapshot {
    files = List.copyOf(files);
  }
}
