package dev.cellar.log;

import dev.cellar.platform.MemoryAdvice;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Faults in the log's next chunk on a background thread while the writer fills the current one, so
 * appends do not stop for page faults ({@link MemoryAdvice#populateWrite}). Purely an optimisation:
 * a request it drops or a kernel that declines changes nothing but speed.
 *
 * <p>Owns one daemon thread; requests cross from the writer through a bounded queue.
 */
final class Prefaulter {
  private static final long PAGE = 4096;

  private final BlockingQueue<MemorySegment> requests = new ArrayBlockingQueue<>(4);
  private final Thread thread;

  Prefaulter(String name) {
    thread = Thread.ofPlatform().daemon().name("cellar-prefault-" + name).unstarted(this::run);
    if (MemoryAdvice.available()) {
      thread.start();
    }
  }

  /** Asks for {@code [from, to)} of {@code mapping} to be faulted in; never blocks. */
  void request(MemorySegment mapping, long from, long to) {
    if (!thread.isAlive()) {
      return;
    }
    long start = (from + PAGE - 1) & -PAGE;
    long end = to & -PAGE;
    if (end > start) {
      requests.offer(mapping.asSlice(start, end - start));
    }
  }

  private void run() {
    while (true) {
      try {
        MemoryAdvice.populateWrite(requests.take());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  void stop() {
    thread.interrupt();
  }
}
