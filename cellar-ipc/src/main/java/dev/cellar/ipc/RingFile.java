package dev.cellar.ipc;

import static dev.cellar.ipc.IpcDescriptor.*;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * One client connection's file: a header, then a request ring (client to server) and a response
 * ring (server to client), mapped by both processes. The client creates it ({@link #create}), the
 * server maps what a client offers ({@link #open}) after checking it, and whoever ends the
 * connection deletes it. Layout: {@link IpcDescriptor}, docs/format/ipc.md.
 *
 * <p>The file is created {@code 0600} in the server's ring directory (itself {@code 0700}), so only
 * the server's user can offer or read one. The server opens it without following links and only if
 * it is a regular file of exactly the length its header implies: a client cannot make the server
 * map anything else.
 *
 * <p>Thread-safe where shared memory is: the header's words are read and written with volatile
 * access. The rings handed out are each used by one thread per side.
 */
public final class RingFile implements AutoCloseable {
  private static final VarHandle WORD = ValueLayout.JAVA_INT.varHandle();
  private static final VarHandle LONG_WORD = ValueLayout.JAVA_LONG.varHandle();

  private final Path path;
  private final Arena arena;
  private final MemorySegment all;
  private final int capacity;

  private RingFile(Path path, Arena arena, MemorySegment all, int capacity) {
    this.path = path;
    this.arena = arena;
    this.all = all;
    this.capacity = capacity;
  }

  /**
   * Creates a ring file of two rings of {@code capacity} bytes at {@code path} (which must not
   * exist), owner read and write only, with every page touched so that the rings do not fault while
   * in use.
   */
  public static RingFile create(Path path, int capacity, ProcessIdentity client)
      throws IOException {
    String problem = checkCapacity(capacity);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    checkByteOrder();
    long length = ringFileLength(capacity);
    Files.createFile(
        path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Arena arena = Arena.ofShared();
    try (FileChannel channel =
        FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      MemorySegment all = channel.map(FileChannel.MapMode.READ_WRITE, 0, length, arena);
      all.fill((byte) 0);
      writeMagicAndVersion(all, RING_MAGIC);
      all.set(INT, CAPACITY_OFFSET, capacity);
      all.set(LONG, CLIENT_PID_OFFSET, client.pid());
      all.set(LONG, CLIENT_START_OFFSET, client.startMillis());
      all.set(LONG, CLIENT_HEARTBEAT_OFFSET, System.currentTimeMillis());
      WORD.setRelease(all, (long) RING_STATE_OFFSET, RING_OFFERED);
      return new RingFile(path, arena, all, capacity);
    } catch (IOException | RuntimeException e) {
      arena.close();
      Files.deleteIfExists(path);
      throw e;
    }
  }

  /**
   * Maps a ring file a client offers, after checking it: a regular file (not a link), of this
   * format's major version, with a capacity of at most {@code maxCapacity}, exactly as long as that
   * capacity implies.
   *
   * @throws IpcException when the file breaks any of that
   */
  public static RingFile open(Path path, int maxCapacity) throws IOException {
    checkByteOrder();
    BasicFileAttributes attributes =
        Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (!attributes.isRegularFile()) {
      throw new IpcException(path.getFileName() + " is not a regular file");
    }
    long size = attributes.size();
    if (size < RING_HEADER_LENGTH) {
      throw new IpcException(
          path.getFileName() + " is " + size + " bytes, shorter than its header");
    }
    Arena arena = Arena.ofShared();
    try (FileChannel channel =
        FileChannel.open(
            path, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      if (channel.size() != size) {
        throw new IpcException(path.getFileName() + " changed size while it was opened");
      }
      MemorySegment header =
          channel.map(FileChannel.MapMode.READ_WRITE, 0, RING_HEADER_LENGTH, arena);
      String problem = checkMagicAndVersion(header, RING_MAGIC, path.getFileName().toString());
      if (problem != null) {
        throw new IpcException(problem);
      }
      int capacity = header.get(INT, CAPACITY_OFFSET);
      problem = checkCapacity(capacity);
      if (problem != null || capacity > maxCapacity) {
        throw new IpcException(
            path.getFileName()
                + ": "
                + (problem != null
                    ? problem
                    : "ring capacity " + capacity + " over " + maxCapacity));
      }
      if (size != ringFileLength(capacity)) {
        throw new IpcException(
            path.getFileName()
                + " is "
                + size
                + " bytes; its capacity needs "
                + ringFileLength(capacity));
      }
      MemorySegment all = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
      return new RingFile(path, arena, all, capacity);
    } catch (IOException | RuntimeException e) {
      arena.close();
      throw e;
    }
  }

  private static void checkByteOrder() {
    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
      throw new IpcException("the shared-memory transport is little-endian and this host is not");
    }
  }

  public Path path() {
    return path;
  }

  public int capacity() {
    return capacity;
  }

  /**
   * The request ring: the client produces, the server consumes and sleeps on {@code serverBell}.
   */
  public Ring requests(Doorbell serverBell) {
    return new Ring(
        all.asSlice(REQUEST_CONTROL_OFFSET, CONTROL_LENGTH),
        all.asSlice(requestDataOffset(), capacity),
        serverBell);
  }

  /** The response ring: the server produces, the client consumes and sleeps on its own doorbell. */
  public Ring responses() {
    return new Ring(
        all.asSlice(RESPONSE_CONTROL_OFFSET, CONTROL_LENGTH),
        all.asSlice(responseDataOffset(capacity), capacity),
        clientBell());
  }

  /**
   * The response ring as the client reads it: releasing frames rings {@code serverBell}, the
   * doorbell of the agent that serves it, so that output waiting for room goes on at once.
   */
  public Ring responses(Doorbell serverBell) {
    return new Ring(
        all.asSlice(RESPONSE_CONTROL_OFFSET, CONTROL_LENGTH),
        all.asSlice(responseDataOffset(capacity), capacity),
        clientBell(),
        serverBell);
  }

  /** The doorbell the client sleeps on while it waits for a response. */
  public Doorbell clientBell() {
    return new Doorbell(all.asSlice(RESPONSE_CONTROL_OFFSET + CONSUMER_WAITING_OFFSET, 4));
  }

  public ProcessIdentity client() {
    return new ProcessIdentity(
        all.get(LONG, CLIENT_PID_OFFSET), all.get(LONG, CLIENT_START_OFFSET));
  }

  public int state() {
    return (int) WORD.getVolatile(all, (long) RING_STATE_OFFSET);
  }

  /** Sets the connection's state and wakes whoever waits on it. */
  public void state(int state) {
    WORD.setVolatile(all, (long) RING_STATE_OFFSET, state);
    Futex.wakeAll(all.asSlice(RING_STATE_OFFSET, 4));
    clientBell().ring(); // a client waiting for a response learns of a close at once
  }

  /** Waits up to {@code timeoutNanos} while the state is {@code state}; returns the state. */
  public int awaitStateChange(int state, long timeoutNanos) {
    long deadline = System.nanoTime() + timeoutNanos;
    int now;
    while ((now = state()) == state) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      Futex.await(all.asSlice(RING_STATE_OFFSET, 4), state, Math.min(left, 10_000_000L));
    }
    return now;
  }

  /** The server agent serving this connection (set before the state becomes attached). */
  public int agent() {
    return (int) WORD.getVolatile(all, (long) AGENT_OFFSET);
  }

  public void agent(int agent) {
    WORD.setVolatile(all, (long) AGENT_OFFSET, agent);
  }

  public long heartbeat() {
    return (long) LONG_WORD.getVolatile(all, (long) CLIENT_HEARTBEAT_OFFSET);
  }

  public void heartbeat(long epochMillis) {
    LONG_WORD.setVolatile(all, (long) CLIENT_HEARTBEAT_OFFSET, epochMillis);
  }

  /** The server's reason for refusing or closing the connection, or "" if it gave none. */
  public String reason() {
    int length = Math.clamp(all.get(INT, REASON_OFFSET), 0, REASON_MAX);
    byte[] bytes = all.asSlice(REASON_OFFSET + 4, length).toArray(ValueLayout.JAVA_BYTE);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  public void reason(String reason) {
    byte[] bytes = reason.getBytes(StandardCharsets.UTF_8);
    int length = Math.min(bytes.length, REASON_MAX);
    MemorySegment.copy(MemorySegment.ofArray(bytes), 0, all, REASON_OFFSET + 4, length);
    all.set(INT, REASON_OFFSET, length);
  }

  /** Unmaps the file (the rings handed out become unusable); the file stays. */
  @Override
  public synchronized void close() {
    if (arena.scope().isAlive()) {
      arena.close();
    }
  }

  /** Unmaps and deletes the file. */
  public void delete() throws IOException {
    close();
    Files.deleteIfExists(path);
  }
}
