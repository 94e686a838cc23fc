package dev.cellar.compress;

import dev.cellar.Compression;
import dev.cellar.log.CodecBlockDescriptor;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A store's dictionaries: one instance per dictionary, shared by every segment that names it (so a
 * store of a thousand compressed segments digests its dictionary once), and the one compaction
 * compresses new segments with, the <em>current</em> one.
 *
 * <p>The current dictionary is the one compaction trained last or, after a reopen, the one of the
 * newest compressed segment of the store's codec: a store does not train again at every open. It is
 * trained again when it was trained on few values ({@link #wantsTraining}), since a dictionary made
 * from the first few hundred records of a young store may not be typical of what it holds later.
 */
public final class Dictionaries {
  /** A dictionary trained on fewer values than this is trained again when more are at hand. */
  public static final int WELL_TRAINED_SAMPLES = 2_000;

  private final ConcurrentHashMap<Long, ValueDictionary> byId = new ConcurrentHashMap<>();
  private ValueDictionary current;
  private long currentSegment = -1;

  /**
   * The shared instance for the dictionary of {@code block}.
   *
   * @throws IllegalArgumentException if another dictionary already has its id (damage, or a file
   *     from another store)
   */
  public ValueDictionary resolve(CodecBlockDescriptor.Block block) {
    ValueDictionary d =
        byId.computeIfAbsent(
            block.dictId(),
            id -> new ValueDictionary(id, block.codec(), block.dictionary(), block.samples()));
    if (!d.sameAs(block.codec(), block.dictionary())) {
      throw new IllegalArgumentException(
          "codec block names dictionary "
              + Long.toHexString(block.dictId())
              + ", which another segment holds with different contents");
    }
    return d;
  }

  /**
   * Offers a dictionary found on disk in segment {@code segmentId}: it becomes the current one if
   * it is of {@code codec} and of the newest such segment so far.
   */
  public synchronized void found(ValueDictionary dictionary, long segmentId, Compression codec) {
    if (dictionary.codec() == codec && segmentId > currentSegment) {
      current = dictionary;
      currentSegment = segmentId;
    }
  }

  /** The dictionary new segments of {@code codec} are compressed with, or null if none yet. */
  public synchronized ValueDictionary current(Compression codec) {
    return current != null && current.codec() == codec ? current : null;
  }

  /** Whether compaction should train a dictionary for {@code codec} before it compresses. */
  public synchronized boolean wantsTraining(Compression codec) {
    ValueDictionary d = current(codec);
    return d == null || d.samples() < WELL_TRAINED_SAMPLES;
  }

  /**
   * Whether a dictionary trained on {@code samples} values should replace the current one of {@code
   * codec}: there is none, or it was trained on fewer than half as many (so that a small store does
   * not train again at every pass).
   */
  public synchronized boolean worthTraining(Compression codec, int samples) {
    ValueDictionary d = current(codec);
    return d == null || (d.samples() < WELL_TRAINED_SAMPLES && samples >= 2L * d.samples());
  }

  /** Makes {@code dictionary} the current one. */
  public synchronized void adopt(ValueDictionary dictionary) {
    byId.put(dictionary.id(), dictionary);
    current = dictionary;
    currentSegment = Long.MAX_VALUE;
  }
}
