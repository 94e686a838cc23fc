package dev.cellar.io;

import java.nio.file.Path;

/**
 * One step of a {@link SimulatedFileIO}'s trace: what a power-loss model needs to know about the
 * file system's history. Files are named by inode number, so that a renamed or unlinked file keeps
 * its identity (an open file outlives its name, as on a real file system).
 *
 * <p>Data reaches the trace only as whole {@link #SECTOR}-byte sectors: a write, whether by {@code
 * write} or through a mapping, is recorded as the new content of every sector it changed. That is
 * the granularity at which a disk can tear a write.
 */
public sealed interface DiskEvent {
  /** The unit a disk writes atomically. */
  int SECTOR = 512;

  /** Sector {@code sector} of inode {@code inode} now holds {@code bytes} (not yet durable). */
  record Write(int inode, long sector, byte[] bytes) implements DiskEvent {}

  /** The file's length became {@code size} (truncate, an extending write, allocate or map). */
  record Resize(int inode, long size) implements DiskEvent {}

  /** fsync of the file: its data and length are durable. */
  record Force(int inode) implements DiskEvent {}

  /** A new directory entry {@code name} for a new, empty inode. */
  record Create(Path name, int inode) implements DiskEvent {}

  /** {@code source}'s entry moved to {@code target}, replacing any entry there, atomically. */
  record Rename(Path source, Path target) implements DiskEvent {}

  /** {@code name}'s entry is gone (the inode lives on while open, but no crash image needs it). */
  record Delete(Path name) implements DiskEvent {}

  /** fsync of a directory: every directory operation before it is durable. */
  record SyncDirectory(Path directory) implements DiskEvent {}

  /** A label the test puts into the trace (an API call starting or returning); changes nothing. */
  record Mark(String label) implements DiskEvent {}

  /** Whether this event changes a directory (and so is lost or kept as a unit at a crash). */
  default boolean isDirectoryOperation() {
    return this instanceof Create || this instanceof Rename || this instanceof Delete;
  }
}
