package dev.cellar.bench.atrest;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;

/**
 * The codec part's AES-256-GCM per record ({@link GcmSteps}: one {@code Cipher}, re-initialised per
 * record, {@code doFinal} over the document) timed once per round of the engine part, so that the
 * engine's overhead per operation can be set beside what the GCM operations alone cost, in the same
 * JVM and the same minutes. Warmed up as the codec part warms its rows, in the constructor.
 */
final class GcmYardstick {
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final CodecStep encrypt;
  private final CodecStep decrypt;

  GcmYardstick(List<byte[]> docs) throws Exception {
    GcmSteps gcm = new GcmSteps(CodecCpuRun.SEED);
    encrypt = gcm.encrypt(docs, docs.size(), "record");
    decrypt = gcm.decrypt(docs, docs.size(), "record");
    warmUp(encrypt);
    warmUp(decrypt);
  }

  int documents() {
    return encrypt.documents();
  }

  /** One pass of each; CPU nanoseconds per record of the measuring thread. */
  EngineRun.GcmSample pass(int round) throws Exception {
    return new EngineRun.GcmSample(round, timed(encrypt), timed(decrypt));
  }

  private void warmUp(CodecStep step) throws Exception {
    long cpu0 = threads.getCurrentThreadCpuTime();
    for (int pass = 0;
        pass < CodecCpuRun.WARMUP_PASSES
            || threads.getCurrentThreadCpuTime() - cpu0 < CodecCpuRun.WARMUP_CPU_NANOS;
        pass++) {
      step.pass().run();
    }
  }

  private double timed(CodecStep step) throws Exception {
    long cpu0 = threads.getCurrentThreadCpuTime();
    long sink = step.pass().run();
    long cpu = threads.getCurrentThreadCpuTime() - cpu0;
    if (sink == Long.MIN_VALUE) { // never: keeps the pass's result alive
      throw new IllegalStateException("sink " + sink);
    }
    return (double) cpu / step.documents();
  }
}
