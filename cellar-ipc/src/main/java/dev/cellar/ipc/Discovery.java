package dev.cellar.ipc;

import static dev.cellar.ipc.IpcDescriptor.*;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The discovery file, {@code cellar.ipc} in a server's data directory: how a client on the same
 * host finds the server, checks that it runs, and asks it for a connection. Layout: {@link
 * IpcDescriptor}, docs/format/ipc.md.
 *
 * <h2>Connecting</h2>
 *
 * A client creates its {@link RingFile} in the ring directory the file names, then takes a free
 * connect slot (a compare-and-set from free to claimed, so two clients never share one), writes the
 * ring file's name into it, marks it requested, and rings the first agent's doorbell. The server
 * takes the name, frees the slot, and opens and checks the ring file; it answers in the ring file's
 * state word (attached, or refused with a reason), which the client waits on. Everything goes
 * through shared memory: connecting needs no socket.
 *
 * <p>Thread-safe: every shared word is read and written with volatile access or compare-and-set.
 */
public final class Discovery implements AutoCloseable {
  private static final VarHandle WORD = ValueLayout.JAVA_INT.varHandle();
  private static final VarHandle LONG_WORD = ValueLayout.JAVA_LONG.varHandle();

  private final Path path;
  private final Arena arena;
  private final MemorySegment all;

  private Discovery(Path path, Arena arena, MemorySegment all) {
    this.path = path;
    this.arena = arena;
    this.all = all;
  }

  /**
   * Writes a fresh discovery file into {@code dataDirectory} (replacing one a previous server
   * left), owner read and write only, in state starting: {@link #state(int)} to serving once the
   * agents run.
   */
  public static Discovery create(
      Path dataDirectory,
      Path ringDirectory,
      int agents,
      int maxCapacity,
      int flags,
      ProcessIdentity server)
      throws IOException {
    if (agents < 1 || agents > MAX_AGENTS) {
      throw new IllegalArgumentException("agents " + agents + " not in 1.." + MAX_AGENTS);
    }
    String problem = checkCapacity(maxCapacity);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    byte[] directory = ringDirectory.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8);
    if (directory.length > RING_DIRECTORY_MAX) {
      throw new IllegalArgumentException(
          "ring directory " + ringDirectory + " is longer than " + RING_DIRECTORY_MAX + " bytes");
    }
    Path path = dataDirectory.resolve(DISCOVERY_FILE);
    Files.deleteIfExists(path);
    Files.createFile(
        path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Arena arena = Arena.ofShared();
    try (FileChannel channel =
        FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      MemorySegment all = channel.map(FileChannel.MapMode.READ_WRITE, 0, DISCOVERY_LENGTH, arena);
      all.fill((byte) 0);
      writeMagicAndVersion(all, DISCOVERY_MAGIC);
      all.set(INT, FLAGS_OFFSET, flags);
      all.set(LONG, SERVER_PID_OFFSET, server.pid());
      all.set(LONG, SERVER_START_OFFSET, server.startMillis());
      all.set(INT, MAX_RING_OFFSET, maxCapacity);
      all.set(INT, AGENTS_OFFSET, agents);
      all.set(SHORT, RING_DIRECTORY_OFFSET, (short) directory.length);
      MemorySegment.copy(
          MemorySegment.ofArray(directory), 0, all, RING_DIRECTORY_OFFSET + 2, directory.length);
      LONG_WORD.setVolatile(all, (long) HEARTBEAT_OFFSET, System.currentTimeMillis());
      WORD.setVolatile(all, (long) SERVER_STATE_OFFSET, SERVER_STARTING);
      return new Discovery(path, arena, all);
    } catch (IOException | RuntimeException e) {
      arena.close();
      throw e;
    }
  }

  /**
   * Maps the discovery file of the server whose data directory is {@code dataDirectory}.
   *
   * @throws IpcException when the file is of another format version, or malformed
   * @throws java.nio.file.NoSuchFileException when there is none (no server, or IPC off)
   */
  public static Discovery open(Path dataDirectory) throws IOException {
    Path path = dataDirectory.resolve(DISCOVERY_FILE);
    Arena arena = Arena.ofShared();
    try (FileChannel channel =
        FileChannel.open(
            path, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      if (channel.size() != DISCOVERY_LENGTH) {
        throw new IpcException(
            path
                + " is "
                + channel.size()
                + " bytes, not "
                + DISCOVERY_LENGTH
                + " (not a server's)");
      }
      MemorySegment all = channel.map(FileChannel.MapMode.READ_WRITE, 0, DISCOVERY_LENGTH, arena);
      String problem = checkMagicAndVersion(all, DISCOVERY_MAGIC, path.toString());
      if (problem != null) {
        throw new IpcException(problem);
      }
      int agents = all.get(INT, AGENTS_OFFSET);
      int directoryLength = all.get(SHORT, RING_DIRECTORY_OFFSET);
      if (agents < 1
          || agents > MAX_AGENTS
          || directoryLength < 1
          || directoryLength > RING_DIRECTORY_MAX) {
        throw new IpcException(path + " is malformed (agents " + agents + ")");
      }
      return new Discovery(path, arena, all);
    } catch (IOException | RuntimeException e) {
      arena.close();
      throw e;
    }
  }

  public Path path() {
    return path;
  }

  public ProcessIdentity server() {
    return new ProcessIdentity(
        all.get(LONG, SERVER_PID_OFFSET), all.get(LONG, SERVER_START_OFFSET));
  }

  public int flags() {
    return all.get(INT, FLAGS_OFFSET);
  }

  public int agents() {
    return all.get(INT, AGENTS_OFFSET);
  }

  public int maxCapacity() {
    return all.get(INT, MAX_RING_OFFSET);
  }

  public Path ringDirectory() {
    int length = all.get(SHORT, RING_DIRECTORY_OFFSET);
    byte[] bytes = all.asSlice(RING_DIRECTORY_OFFSET + 2, length).toArray(ValueLayout.JAVA_BYTE);
    return Path.of(new String(bytes, StandardCharsets.UTF_8));
  }

  public int state() {
    return (int) WORD.getVolatile(all, (long) SERVER_STATE_OFFSET);
  }

  public void state(int state) {
    WORD.setVolatile(all, (long) SERVER_STATE_OFFSET, state);
  }

  public long heartbeat() {
    return (long) LONG_WORD.getVolatile(all, (long) HEARTBEAT_OFFSET);
  }

  public void heartbeat(long epochMillis) {
    LONG_WORD.setVolatile(all, (long) HEARTBEAT_OFFSET, epochMillis);
  }

  /** Whether the server that wrote this file is running and serving. */
  public boolean serving() {
    return state() == SERVER_SERVING && server().alive();
  }

  /** Agent {@code agent}'s doorbell: its clients ring it after publishing a request. */
  public Doorbell doorbell(int agent) {
    if (agent < 0 || agent >= agents()) {
      throw new IpcException("agent " + agent + " is not one of the server's " + agents());
    }
    return new Doorbell(all.asSlice(doorbellOffset(agent), 4));
  }

  // ------------------------------------------------------------------ connect slots

  /**
   * Client: asks for a connection to the ring file named {@code name} (in the ring directory).
   * Returns false when every slot is taken (many clients connecting at once): try again shortly.
   */
  public boolean requestConnection(String name) {
    byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
    if (!validName(name) || bytes.length > SLOT_NAME_MAX) {
      throw new IllegalArgumentException("ring file name " + name);
    }
    for (int slot = 0; slot < CONNECT_SLOTS; slot++) {
      long at = slotOffset(slot);
      if (WORD.compareAndSet(all, at + SLOT_STATE_OFFSET, SLOT_FREE, SLOT_CLAIMED)) {
        MemorySegment.copy(
            MemorySegment.ofArray(bytes), 0, all, at + SLOT_NAME_OFFSET, bytes.length);
        all.set(INT, at + SLOT_NAME_LENGTH_OFFSET, bytes.length);
        WORD.setRelease(all, at + SLOT_STATE_OFFSET, SLOT_REQUESTED);
        WORD.getAndAdd(all, (long) CONNECT_SEQUENCE_OFFSET, 1);
        doorbell(0).ring();
        return true;
      }
    }
    return false;
  }

  /**
   * Server: the connect sequence, which every request bumps after its slot is marked: while it is
   * what the server last saw, no slot needs a look.
   */
  public int connectSequence() {
    return (int) WORD.getAcquire(all, (long) CONNECT_SEQUENCE_OFFSET);
  }

  /** Server: whether any connect slot holds a request (a look at every slot). */
  public boolean connectionRequested() {
    for (int slot = 0; slot < CONNECT_SLOTS; slot++) {
      if ((int) WORD.getAcquire(all, slotOffset(slot) + SLOT_STATE_OFFSET) == SLOT_REQUESTED) {
        return true;
      }
    }
    return false;
  }

  /**
   * Server: takes the request in {@code slot}, freeing the slot; returns the ring file's name, or
   * null when the slot holds no request or a name that is not a ring file's (the slot is freed
   * either way).
   */
  public String takeRequest(int slot) {
    long at = slotOffset(slot);
    if ((int) WORD.getAcquire(all, at + SLOT_STATE_OFFSET) != SLOT_REQUESTED) {
      return null;
    }
    int length = all.get(INT, at + SLOT_NAME_LENGTH_OFFSET);
    String name = null;
    if (length > 0 && length <= SLOT_NAME_MAX) {
      byte[] bytes = all.asSlice(at + SLOT_NAME_OFFSET, length).toArray(ValueLayout.JAVA_BYTE);
      name = new String(bytes, StandardCharsets.US_ASCII);
    }
    all.asSlice(at + SLOT_NAME_LENGTH_OFFSET, CONNECT_SLOT_LENGTH - SLOT_NAME_LENGTH_OFFSET)
        .fill((byte) 0);
    WORD.setRelease(all, at + SLOT_STATE_OFFSET, SLOT_FREE);
    return name != null && validName(name) ? name : null;
  }

  /** A ring file's name: letters, digits, dots, dashes and underscores, ending in .ring. */
  public static boolean validName(String name) {
    if (!name.endsWith(RING_SUFFIX)
        || name.length() <= RING_SUFFIX.length()
        || name.startsWith(".")) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_'
              || c == '.';
      if (!ok) {
        return false;
      }
    }
    return !name.contains("..");
  }

  /** Unmaps the file; it stays on disk. */
  @Override
  public synchronized void close() {
    if (arena.scope().isAlive()) {
      arena.close();
    }
  }

  /** Server: marks the file stopped, unmaps and deletes it. */
  public void retire() throws IOException {
    state(SERVER_STOPPED);
    close();
    Files.deleteIfExists(path);
  }
}
