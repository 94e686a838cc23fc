package dev.cellar.io;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A file system in memory behind the {@link FileIO} seam, which records everything the engine does
 * to it as a trace of {@link DiskEvent}s, so that {@link PowerLossModel} can later produce every
 * disk state a power loss at any point of that trace could leave.
 *
 * <h2>Files and mappings</h2>
 *
 * Each file (an inode: names point at inodes, so renames and open handles behave as on a real file
 * system) keeps its current content in one native buffer. A mapping is a slice of that buffer, so
 * writes through it land in the file at once and {@code write} is visible through it, as with a
 * shared mapping of a real file. A buffer must therefore never move once mapped: files start with a
 * capacity of at least {@code minCapacity} (make it the segment size), and a mapped file that needs
 * more fails loudly instead of silently detaching its mappings. The caller's arena is not tied to
 * the slice: the buffers live until {@link #close()}.
 *
 * <h2>Seeing writes through mappings</h2>
 *
 * The engine appends records with plain memory copies into a mapping, which no seam call sees. So
 * at every seam call (and every {@link #mark}), before anything else, each mapped file's buffer is
 * compared with a shadow copy of what the trace already holds, and each sector that differs becomes
 * a {@link DiskEvent.Write}. The writes of an API call therefore reach the trace no later than the
 * mark that follows the call, or the fsync inside it. A changed sector wholly past the file's end
 * is a write a real mapping would have answered with SIGBUS; it is listed in {@link #violations()}.
 *
 * <h2>Concurrency</h2>
 *
 * Every call holds this object's monitor, so the trace is one linear history even with the store's
 * background threads calling in.
 */
public final class SimulatedFileIO implements FileIO, AutoCloseable {
  private static final int SECTOR = DiskEvent.SECTOR;

  private final long minCapacity;
  private final boolean recording;
  private final Arena arena = Arena.ofShared();
  private final Map<Path, Inode> names = new TreeMap<>();
  private final Set<Inode> watched = new LinkedHashSet<>();
  private final List<DiskEvent> trace = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  private int nextInode;

  /** A recording file system, empty, whose files start with {@code minCapacity} bytes of room. */
  public SimulatedFileIO(long minCapacity) {
    this(minCapacity, true);
  }

  private SimulatedFileIO(long minCapacity, boolean recording) {
    this.minCapacity = minCapacity;
    this.recording = recording;
  }

  /** A file system holding {@code files} (path to content), recording nothing: a crash image. */
  public static SimulatedFileIO of(Map<Path, byte[]> files, long minCapacity) {
    return holding(files, minCapacity, false);
  }

  /**
   * A recording file system that starts out holding {@code files}, all durable: a crash image to
   * recover from and crash again. Inodes are numbered in path order, as {@link
   * PowerLossModel#PowerLossModel(Map, List)} numbers them.
   */
  public static SimulatedFileIO recording(Map<Path, byte[]> files, long minCapacity) {
    return holding(files, minCapacity, true);
  }

  private static SimulatedFileIO holding(
      Map<Path, byte[]> files, long minCapacity, boolean recording) {
    SimulatedFileIO io = new SimulatedFileIO(minCapacity, recording);
    for (Map.Entry<Path, byte[]> file : new TreeMap<>(files).entrySet()) {
      byte[] content = file.getValue();
      Inode inode = io.new Inode(content.length);
      MemorySegment.copy(MemorySegment.ofArray(content), 0, inode.buffer, 0, content.length);
      if (inode.shadow != null) {
        MemorySegment.copy(MemorySegment.ofArray(content), 0, inode.shadow, 0, content.length);
      }
      inode.size = content.length;
      io.names.put(file.getKey(), inode);
    }
    return io;
  }

  /** Puts a label into the trace and returns its index there. */
  public synchronized int mark(String label) {
    capture();
    return append(new DiskEvent.Mark(label));
  }

  /** The trace so far. */
  public synchronized List<DiskEvent> trace() {
    capture();
    return List.copyOf(trace);
  }

  /** Writes through mappings past the end of their file (each would be SIGBUS on a real one). */
  public synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  /** The current content of every file (names sorted), as a crash image would hold it. */
  public synchronized Map<Path, byte[]> contents() {
    Map<Path, byte[]> out = new TreeMap<>();
    names.forEach(
        (path, inode) ->
            out.put(path, inode.buffer.asSlice(0, inode.size).toArray(ValueLayout.JAVA_BYTE)));
    return out;
  }

  private int append(DiskEvent event) {
    if (recording) {
      trace.add(event);
    }
    return trace.size() - 1;
  }

  /** Records, as sector writes, whatever the mapped (or just written) files changed. */
  private void capture() {
    if (!recording) {
      return;
    }
    for (Inode inode : watched) {
      inode.capture();
    }
  }

  // ---------------------------------------------------------------- FileIO

  @Override
  public synchronized StoreFile open(Path path, boolean create) throws IOException {
    capture();
    Inode inode = names.get(path);
    if (inode == null) {
      if (!create) {
        throw new NoSuchFileException(path.toString());
      }
      inode = new Inode(0);
      names.put(path, inode);
      append(new DiskEvent.Create(path, inode.id));
    }
    return new SimulatedFile(path, inode, true);
  }

  @Override
  public synchronized StoreFile openReadOnly(Path path) throws IOException {
    Inode inode = names.get(path);
    if (inode == null) {
      throw new NoSuchFileException(path.toString());
    }
    return new SimulatedFile(path, inode, false);
  }

  @Override
  public synchronized void rename(Path source, Path target) throws IOException {
    capture();
    Inode inode = names.remove(source);
    if (inode == null) {
      throw new NoSuchFileException(source.toString());
    }
    names.put(target, inode);
    append(new DiskEvent.Rename(source, target));
  }

  @Override
  public synchronized void delete(Path path) {
    capture();
    if (names.remove(path) != null) {
      append(new DiskEvent.Delete(path));
    }
  }

  @Override
  public synchronized void syncDirectory(Path directory) {
    capture();
    append(new DiskEvent.SyncDirectory(directory));
  }

  @Override
  public synchronized List<Path> list(Path directory) {
    List<Path> out = new ArrayList<>();
    for (Path path : names.keySet()) {
      if (directory.equals(path.getParent())) {
        out.add(path);
      }
    }
    return out;
  }

  @Override
  public void createDirectories(Path directory) throws IOException {
    synchronized (this) {
      if (names.containsKey(directory)) {
        throw new FileAlreadyExistsException(directory + " is a file");
      }
    }
    // Directories are implicit: a file's parent is its directory.
  }

  /** Frees every file's memory; mappings handed out become inaccessible. */
  @Override
  public void close() {
    // A closed store's prefaulting thread may still be inside one madvise call on a mapping, which
    // keeps the arena acquired for that moment: wait it out rather than fail the test.
    for (int attempt = 0; ; attempt++) {
      try {
        arena.close();
        return;
      } catch (IllegalStateException inUse) {
        if (attempt == 1000) {
          throw inUse;
        }
        Thread.onSpinWait();
        Thread.yield();
      }
    }
  }

  // ---------------------------------------------------------------- inodes

  private final class Inode {
    final int id = nextInode++;
    MemorySegment buffer;

    /** What the trace holds of the buffer; null when not recording. */
    MemorySegment shadow;

    long size;
    boolean mapped;

    Inode(long bytes) {
      long capacity = Math.max(minCapacity, roundUp(bytes));
      buffer = arena.allocate(capacity, 4096);
      shadow = recording ? MemorySegment.ofArray(new byte[(int) capacity]) : null;
    }

    void ensureCapacity(long bytes, Path path) throws IOException {
      if (bytes <= buffer.byteSize()) {
        return;
      }
      if (mapped) {
        throw new IOException(
            "simulated file "
                + path
                + " needs "
                + bytes
                + " bytes but was mapped with room for "
                + buffer.byteSize()
                + "; give SimulatedFileIO a larger minimum capacity");
      }
      long capacity = Math.max(roundUp(bytes), buffer.byteSize() * 2);
      MemorySegment grown = arena.allocate(capacity, 4096);
      MemorySegment.copy(buffer, 0, grown, 0, buffer.byteSize());
      buffer = grown;
      if (shadow != null) {
        MemorySegment grownShadow = MemorySegment.ofArray(new byte[(int) capacity]);
        MemorySegment.copy(shadow, 0, grownShadow, 0, shadow.byteSize());
        shadow = grownShadow;
      }
    }

    void resize(long newSize) {
      if (newSize != size) {
        size = newSize;
        append(new DiskEvent.Resize(id, newSize));
      }
    }

    /** Turns every sector that differs from the shadow into a Write event. */
    void capture() {
      long length = buffer.byteSize();
      long from = 0;
      while (from < length) {
        long diff = MemorySegment.mismatch(buffer, from, length, shadow, from, length);
        if (diff < 0) {
          return;
        }
        long sector = (from + diff) / SECTOR;
        long start = sector * SECTOR;
        MemorySegment.copy(buffer, start, shadow, start, SECTOR);
        append(
            new DiskEvent.Write(
                id, sector, shadow.asSlice(start, SECTOR).toArray(ValueLayout.JAVA_BYTE)));
        if (start >= size) {
          violations.add(
              "inode "
                  + id
                  + ": write at offset "
                  + (from + diff)
                  + " past the end of file ("
                  + size
                  + " bytes)");
        }
        from = start + SECTOR;
      }
    }
  }

  private static long roundUp(long bytes) {
    return (bytes + 4095) & -4096L;
  }

  // ---------------------------------------------------------------- files

  private final class SimulatedFile implements StoreFile {
    private final Path openedAs;
    private final Inode inode;
    private final boolean writable;

    SimulatedFile(Path openedAs, Inode inode, boolean writable) {
      this.openedAs = openedAs;
      this.inode = inode;
      this.writable = writable;
    }

    @Override
    public long size() {
      synchronized (SimulatedFileIO.this) {
        return inode.size;
      }
    }

    @Override
    public int read(ByteBuffer dst, long position) {
      synchronized (SimulatedFileIO.this) {
        if (position >= inode.size) {
          return -1;
        }
        int n = (int) Math.min(dst.remaining(), inode.size - position);
        MemorySegment.copy(inode.buffer, position, MemorySegment.ofBuffer(dst), 0, n);
        dst.position(dst.position() + n);
        return n;
      }
    }

    @Override
    public void write(ByteBuffer src, long position) throws IOException {
      checkWritable();
      synchronized (SimulatedFileIO.this) {
        SimulatedFileIO.this.capture();
        int n = src.remaining();
        inode.ensureCapacity(position + n, openedAs);
        MemorySegment.copy(MemorySegment.ofBuffer(src), 0, inode.buffer, position, n);
        src.position(src.position() + n);
        if (position + n > inode.size) {
          inode.resize(position + n);
        }
        capture(inode);
      }
    }

    @Override
    public MemorySegment map(MapKind kind, long offset, long length, Arena unused)
        throws IOException {
      synchronized (SimulatedFileIO.this) {
        SimulatedFileIO.this.capture();
        inode.ensureCapacity(offset + length, openedAs);
        if (kind == MapKind.PRIVATE) {
          MemorySegment copy = arena.allocate(length, 4096);
          MemorySegment.copy(inode.buffer, offset, copy, 0, length);
          return copy;
        }
        inode.mapped = true;
        if (kind == MapKind.READ_ONLY) {
          return inode.buffer.asSlice(offset, length).asReadOnly();
        }
        checkWritable();
        // FileChannel.map extends a file to cover a writable mapping.
        if (offset + length > inode.size) {
          inode.resize(offset + length);
        }
        if (recording) {
          watched.add(inode);
        }
        return inode.buffer.asSlice(offset, length);
      }
    }

    @Override
    public void allocate(long offset, long length) throws IOException {
      checkWritable();
      synchronized (SimulatedFileIO.this) {
        SimulatedFileIO.this.capture();
        inode.ensureCapacity(offset + length, openedAs);
        // posix_fallocate (and the zero-writing fallback) extend the file.
        if (offset + length > inode.size) {
          inode.resize(offset + length);
        }
      }
    }

    @Override
    public void truncate(long length) throws IOException {
      checkWritable();
      synchronized (SimulatedFileIO.this) {
        SimulatedFileIO.this.capture();
        inode.ensureCapacity(length, openedAs);
        if (length < inode.size) {
          // What lies past the end is gone: zero it so a later extension reads zeros.
          inode.buffer.asSlice(length, inode.size - length).fill((byte) 0);
          capture(inode);
        }
        inode.resize(length);
      }
    }

    @Override
    public void force() {
      synchronized (SimulatedFileIO.this) {
        SimulatedFileIO.this.capture();
        capture(inode);
        append(new DiskEvent.Force(inode.id));
      }
    }

    @Override
    public FileLock tryLock() throws IOException {
      return writable ? new HeldLock() : null;
    }

    @Override
    public void close() {}

    private void checkWritable() throws IOException {
      if (!writable) {
        throw new IOException(openedAs + " is open read-only");
      }
    }

    private void capture(Inode target) {
      if (recording) {
        target.capture();
      }
    }

    @Override
    public String toString() {
      return openedAs.toString();
    }
  }

  /** A lock nobody else can contend for: the simulated disk belongs to one store at a time. */
  private static final class HeldLock extends FileLock {
    private static final FileChannel CHANNEL = devNull();
    private volatile boolean valid = true;

    HeldLock() {
      super(CHANNEL, 0, Long.MAX_VALUE, false);
    }

    private static FileChannel devNull() {
      try {
        return FileChannel.open(Path.of("/dev/null"));
      } catch (IOException e) {
        throw new IllegalStateException("cannot open /dev/null for a lock's channel", e);
      }
    }

    @Override
    public boolean isValid() {
      return valid;
    }

    @Override
    public void release() {
      valid = false;
    }
  }
}
