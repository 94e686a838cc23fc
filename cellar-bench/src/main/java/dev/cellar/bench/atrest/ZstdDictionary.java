package dev.cellar.bench.atrest;

import com.github.luben.zstd.ZstdDictTrainer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;

/**
 * A zstd dictionary trained on a sample of the store's own documents, as a store would train one
 * from the records it holds when it first compresses (at compaction or sealing), and what the
 * training cost.
 *
 * <p>The sample is every {@code stride}-th document, about {@link #SAMPLE_DOCUMENTS} of them (all
 * of them in a smaller data set): spread over the whole data set, so that it sees what a store that
 * has been written to for a while would hold. The documents outside the sample are the held-out
 * set: a dictionary can contain whole strings of the documents it was trained on, so the ratio on
 * the documents it never saw is the honest one for the data written after training.
 *
 * @param bytes the dictionary
 * @param stride the sample is the documents whose index is a multiple of it
 * @param sampleDocuments how many documents it was trained on
 * @param sampleBytes their bytes
 * @param cpuNanos the training's CPU time on the calling thread (the trainer runs on it)
 * @param wallNanos the training's wall time
 */
record ZstdDictionary(
    byte[] bytes,
    int stride,
    int sampleDocuments,
    long sampleBytes,
    long cpuNanos,
    long wallNanos) {
  static final int SAMPLE_DOCUMENTS = 5_000;

  /** A dictionary of at most {@code dictionaryBytes}, trained on a sample of {@code documents}. */
  static ZstdDictionary train(List<byte[]> documents, int dictionaryBytes) {
    int stride = Math.max(1, documents.size() / SAMPLE_DOCUMENTS);
    long sampleBytes = 0;
    int sampleDocuments = 0;
    for (int i = 0; i < documents.size(); i += stride) {
      sampleBytes += documents.get(i).length;
      sampleDocuments++;
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long cpu0 = threads.getCurrentThreadCpuTime();
    long wall0 = System.nanoTime();
    ZstdDictTrainer trainer = new ZstdDictTrainer(Math.toIntExact(sampleBytes), dictionaryBytes);
    for (int i = 0; i < documents.size(); i += stride) {
      if (!trainer.addSample(documents.get(i))) {
        throw new IllegalStateException(
            "the dictionary trainer refused sample " + i + " of " + sampleBytes + " bytes");
      }
    }
    byte[] dictionary = trainer.trainSamples();
    long wall = System.nanoTime() - wall0;
    long cpu = threads.getCurrentThreadCpuTime() - cpu0;
    return new ZstdDictionary(dictionary, stride, sampleDocuments, sampleBytes, cpu, wall);
  }

  /** Whether document {@code index} was in the training sample. */
  boolean sampled(int index) {
    return index % stride == 0;
  }
}
