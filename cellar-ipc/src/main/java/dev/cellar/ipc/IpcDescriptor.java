package dev.cellar.ipc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * Layouts of the shared-memory transport's two files and of a frame. Specified in {@code
 * docs/format/ipc.md}; this class is the only place that knows the offsets. All integers are
 * little-endian (the transport is same-host only, and every host Cellar runs on is little-endian;
 * the readers refuse a big-endian one).
 *
 * <h2>Discovery file ({@code cellar.ipc} in the data directory, {@value #DISCOVERY_LENGTH} bytes)
 * </h2>
 *
 * <pre>
 *   0        8       10      12      16            24              32         36          40
 *   +--------+-------+-------+-------+-------------+---------------+----------+-----------+
 *   | magic  | major | minor | flags | server pid  | server start  | max ring | agents    |
 *   +--------+-------+-------+-------+-------------+---------------+----------+-----------+
 *   40                48      52                 56                                      128
 *   | heartbeat ms    | state | connect sequence | (0)                                  |
 *   +-----------------+-------+------------------+--------------------------------------+
 *   128: doorbells, one per agent, 64 bytes apart (a u32 futex word each)
 *   1152: connect slots, 64 of 64 bytes: state u32 | name length u32 | name (56 bytes)
 *   6144: ring directory: length u16, then its absolute path in UTF-8 (up to 2046 bytes)
 * </pre>
 *
 * <h2>Ring file ({@code <ring directory>/<name>.ring}: one per client connection)</h2>
 *
 * <pre>
 *   0        8       10      12         16           24             32      36      40
 *   +--------+-------+-------+----------+------------+--------------+-------+-------+
 *   | magic  | major | minor | capacity | client pid | client start | state | agent |
 *   +--------+-------+-------+----------+------------+--------------+-------+-------+
 *   40                  48    64                                                256
 *   | client heartbeat  | (0) | reason: length u32, UTF-8 bytes (188)            |
 *   +-------------------+-----+------------------------------------------------+
 *   1024: request ring control   (tail +0, head +128, producer waiting +256)
 *   2048: response ring control  (tail +0, head +128, producer waiting +256, consumer waiting +384)
 *   4096: request ring data (capacity bytes), then response ring data (capacity bytes)
 * </pre>
 *
 * <h2>Frame (in a ring's data, at an 8-byte aligned offset)</h2>
 *
 * <pre>
 *   +----------------+--------------+-----------------------------+---------+
 *   | length u32     | kind u32     | payload (length bytes)      | padding |  to a multiple of 8
 *   +----------------+--------------+-----------------------------+---------+
 * </pre>
 */
public final class IpcDescriptor {
  private IpcDescriptor() {}

  public static final short MAJOR_VERSION = 1;
  public static final short MINOR_VERSION = 0;

  static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;

  /** Cache line distance between words that different processes write. */
  public static final int LINE = 128;

  // ------------------------------------------------------------------ discovery file

  public static final String DISCOVERY_FILE = "cellar.ipc";
  public static final byte[] DISCOVERY_MAGIC = "CELLARIP".getBytes(StandardCharsets.US_ASCII);
  public static final int DISCOVERY_LENGTH = 8192;

  public static final int MAGIC_OFFSET = 0;
  public static final int MAJOR_OFFSET = 8;
  public static final int MINOR_OFFSET = 10;
  public static final int FLAGS_OFFSET = 12;
  public static final int SERVER_PID_OFFSET = 16;
  public static final int SERVER_START_OFFSET = 24;
  public static final int MAX_RING_OFFSET = 32;
  public static final int AGENTS_OFFSET = 36;
  public static final int HEARTBEAT_OFFSET = 40;
  public static final int SERVER_STATE_OFFSET = 48;

  /**
   * Bumped by each client after it marks a connect slot requested: one word for the server to watch
   * instead of every slot.
   */
  public static final int CONNECT_SEQUENCE_OFFSET = 52;

  public static final int RING_DIRECTORY_OFFSET = 6144;
  public static final int RING_DIRECTORY_MAX = DISCOVERY_LENGTH - RING_DIRECTORY_OFFSET - 2;

  /** Flag: the server has a password; the first request must be {@code AUTH} or {@code HELLO}. */
  public static final int FLAG_REQUIREPASS = 1;

  public static final int SERVER_STARTING = 0;
  public static final int SERVER_SERVING = 1;
  public static final int SERVER_STOPPED = 2;

  public static final int DOORBELLS_OFFSET = 128;
  public static final int DOORBELL_STRIDE = 64;
  public static final int MAX_AGENTS = 16;

  public static final int CONNECT_SLOTS_OFFSET = DOORBELLS_OFFSET + MAX_AGENTS * DOORBELL_STRIDE;
  public static final int CONNECT_SLOT_LENGTH = 64;
  public static final int CONNECT_SLOTS = 64;
  public static final int SLOT_STATE_OFFSET = 0;
  public static final int SLOT_NAME_LENGTH_OFFSET = 4;
  public static final int SLOT_NAME_OFFSET = 8;
  public static final int SLOT_NAME_MAX = CONNECT_SLOT_LENGTH - SLOT_NAME_OFFSET;

  public static final int SLOT_FREE = 0;
  public static final int SLOT_CLAIMED = 1;
  public static final int SLOT_REQUESTED = 2;

  public static long doorbellOffset(int agent) {
    return DOORBELLS_OFFSET + (long) agent * DOORBELL_STRIDE;
  }

  public static long slotOffset(int slot) {
    return CONNECT_SLOTS_OFFSET + (long) slot * CONNECT_SLOT_LENGTH;
  }

  // ------------------------------------------------------------------ ring file

  public static final byte[] RING_MAGIC = "CELLARRG".getBytes(StandardCharsets.US_ASCII);
  public static final String RING_SUFFIX = ".ring";

  public static final int CAPACITY_OFFSET = 12;
  public static final int CLIENT_PID_OFFSET = 16;
  public static final int CLIENT_START_OFFSET = 24;
  public static final int RING_STATE_OFFSET = 32;
  public static final int AGENT_OFFSET = 36;
  public static final int CLIENT_HEARTBEAT_OFFSET = 40;
  public static final int REASON_OFFSET = 64;
  public static final int REASON_MAX = 256 - REASON_OFFSET - 4;

  public static final int RING_OFFERED = 0;
  public static final int RING_ATTACHED = 1;
  public static final int RING_REFUSED = 2;
  public static final int RING_CLOSED_BY_CLIENT = 3;
  public static final int RING_CLOSED_BY_SERVER = 4;

  public static final int REQUEST_CONTROL_OFFSET = 1024;
  public static final int RESPONSE_CONTROL_OFFSET = 2048;
  public static final int CONTROL_LENGTH = 1024;
  public static final int TAIL_OFFSET = 0;
  public static final int HEAD_OFFSET = LINE;
  public static final int PRODUCER_WAITING_OFFSET = 2 * LINE;
  public static final int CONSUMER_WAITING_OFFSET = 3 * LINE;

  public static final int RING_HEADER_LENGTH = 4096;

  /** Smallest and largest ring capacity: a page, and 64 MiB. */
  public static final int MIN_CAPACITY = 4096;

  public static final int MAX_CAPACITY = 64 << 20;

  public static long ringFileLength(int capacity) {
    return RING_HEADER_LENGTH + 2L * capacity;
  }

  public static long requestDataOffset() {
    return RING_HEADER_LENGTH;
  }

  public static long responseDataOffset(int capacity) {
    return RING_HEADER_LENGTH + (long) capacity;
  }

  // ------------------------------------------------------------------ frames

  public static final int FRAME_HEADER_LENGTH = 8;
  public static final int FRAME_LENGTH_OFFSET = 0;
  public static final int FRAME_KIND_OFFSET = 4;
  public static final int FRAME_ALIGNMENT = 8;

  /** Fills a ring's end that the next frame does not fit in; the reader skips to the start. */
  public static final int KIND_PADDING = 1;

  /** A whole message, or the last part of one. */
  public static final int KIND_MESSAGE = 2;

  /** A part of a message too large for one frame; more parts follow, the last a MESSAGE. */
  public static final int KIND_PART = 3;

  /** Bytes a frame of {@code payload} bytes takes in the ring. */
  public static int frameLength(int payload) {
    return (FRAME_HEADER_LENGTH + payload + FRAME_ALIGNMENT - 1) & -FRAME_ALIGNMENT;
  }

  /**
   * The largest payload of one frame in a ring of {@code capacity}: half the ring, less the header,
   * so that a frame always fits once the ring is empty, whatever padding the end needs.
   */
  public static int maxPayload(int capacity) {
    return capacity / 2 - FRAME_HEADER_LENGTH;
  }

  // ------------------------------------------------------------------ validation

  /** Null if {@code capacity} is a valid ring capacity, else why not. */
  public static String checkCapacity(long capacity) {
    if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || Long.bitCount(capacity) != 1) {
      return "ring capacity "
          + capacity
          + " is not a power of two from "
          + MIN_CAPACITY
          + " to "
          + MAX_CAPACITY;
    }
    return null;
  }

  /**
   * Null if {@code s} starts with {@code magic} and a major version this build reads, else why not.
   */
  static String checkMagicAndVersion(MemorySegment s, byte[] magic, String what) {
    if (s.byteSize() < 16) {
      return what + " is " + s.byteSize() + " bytes, shorter than its header";
    }
    if (MemorySegment.mismatch(s, 0, magic.length, MemorySegment.ofArray(magic), 0, magic.length)
        != -1) {
      return what + " has a bad magic";
    }
    short major = s.get(SHORT, MAJOR_OFFSET);
    if (major != MAJOR_VERSION) {
      return what
          + " is format version "
          + major
          + "."
          + s.get(SHORT, MINOR_OFFSET)
          + "; this build reads version "
          + MAJOR_VERSION
          + ".x only";
    }
    return null;
  }

  static void writeMagicAndVersion(MemorySegment s, byte[] magic) {
    MemorySegment.copy(MemorySegment.ofArray(magic), 0, s, 0, magic.length);
    s.set(SHORT, MAJOR_OFFSET, MAJOR_VERSION);
    s.set(SHORT, MINOR_OFFSET, MINOR_VERSION);
  }
}
