package dev.cellar.recovery;

import dev.cellar.log.RecordView;
import dev.cellar.log.Segment;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A run of consecutive valid records of one segment, as recovery hands them to its {@link
 * Recovery.Target}: the decoded header fields of each, in log order, in parallel arrays.
 *
 * <p>Why batches: applying a record costs a cache miss on its index slot, and one record at a time
 * those misses follow each other. With a batch at hand the target can first issue the loads of all
 * its slots (independent, so the CPU keeps many in flight) and only then apply the records, as
 * group prefetching does. The fields are copied because the scanner reuses its view for the next
 * record; copying them is cheaper than parsing each header twice.
 *
 * <p>Filled by the scanning thread, then handed to the applying thread ({@link ReplayPipeline});
 * one thread at a time, and reused.
 */
public final class ReplayBatch {
  private final long[] offset;
  private final long[] length;
  private final long[] keyOffset;
  private final long[] keyLength;
  private final long[] seq;
  private final long[] expireAt;
  private final boolean[] delete;
  private final boolean[] element;
  private final long[] hash;
  private Segment segment;
  private int size;

  /**
   * The plaintext keys of an encrypted segment's records, back to back: their view decrypts them
   * into its own array, which the next record reuses. Empty for a plaintext segment, whose keys are
   * read where they lie.
   */
  private byte[] keyBytes = new byte[0];

  private int keyBytesUsed;

  public ReplayBatch(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("replay batch capacity " + capacity + " < 1");
    }
    offset = new long[capacity];
    length = new long[capacity];
    keyOffset = new long[capacity];
    keyLength = new long[capacity];
    seq = new long[capacity];
    expireAt = new long[capacity];
    delete = new boolean[capacity];
    element = new boolean[capacity];
    hash = new long[capacity];
  }

  /** Empties the batch for records of {@code segment}. */
  void start(Segment segment) {
    this.segment = segment;
    size = 0;
    keyBytesUsed = 0;
  }

  /**
   * The memory the records' {@link #keyOffset(int) key offsets} are offsets into: the segment's
   * mapping (or the O_DIRECT scan recovery reads it through, {@link Segment#replayMemory}), or, for
   * an encrypted segment, the batch's copy of the decrypted keys.
   */
  public MemorySegment keys() {
    return segment.cipher() == null ? segment.replayMemory() : MemorySegment.ofArray(keyBytes);
  }

  /** The segment the records are in. */
  public Segment segment() {
    return segment;
  }

  /** Appends the record {@code view} holds; returns whether the batch is now full. */
  boolean add(RecordView view) {
    int i = size++;
    offset[i] = view.offset();
    length[i] = view.length();
    if (view.encrypted()) {
      int n = (int) view.keyLength();
      if (keyBytesUsed + n > keyBytes.length) {
        keyBytes =
            java.util.Arrays.copyOf(keyBytes, Math.max(keyBytesUsed + n, 2 * keyBytes.length));
      }
      MemorySegment.copy(
          view.data(), ValueLayout.JAVA_BYTE, view.keyOffset(), keyBytes, keyBytesUsed, n);
      keyOffset[i] = keyBytesUsed;
      keyBytesUsed += n;
    } else {
      keyOffset[i] = view.keyOffset();
    }
    keyLength[i] = view.keyLength();
    seq[i] = view.seq();
    expireAt[i] = view.expireAt();
    delete[i] = view.isDelete();
    element[i] = view.isElement();
    return size == offset.length;
  }

  public int size() {
    return size;
  }

  public int capacity() {
    return offset.length;
  }

  /** Offset of record {@code i} in its segment. */
  public long offset(int i) {
    return offset[i];
  }

  /** Total bytes of record {@code i}. */
  public long length(int i) {
    return length[i];
  }

  public long keyOffset(int i) {
    return keyOffset[i];
  }

  public long keyLength(int i) {
    return keyLength[i];
  }

  public long seq(int i) {
    return seq[i];
  }

  /** Epoch millis, or 0 when record {@code i} does not expire. */
  public long expireAt(int i) {
    return expireAt[i];
  }

  public boolean isDelete(int i) {
    return delete[i];
  }

  /** Whether record {@code i} is of the keyspace of elements. */
  public boolean isElement(int i) {
    return element[i];
  }

  /** The key hash {@link Recovery.Target#prepare} stored for record {@code i}. */
  public long hash(int i) {
    return hash[i];
  }

  public void hash(int i, long value) {
    hash[i] = value;
  }
}
