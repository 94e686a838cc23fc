package dev.cellar.io;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** {@link BlockReads} one block after another, on the calling thread. */
final class SerialBlockReads implements BlockReads {
  private static final ThreadLocal<MemorySegment> BUFFER =
      ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(BLOCK_BYTES, BLOCK_BYTES));

  @Override
  public void readAll(DirectReader[] files, long[] positions, int n, Sink sink) {
    if (n > MAX_BATCH) {
      throw new IllegalArgumentException(n + " blocks: at most " + MAX_BATCH + " a batch");
    }
    MemorySegment buffer = BUFFER.get();
    for (int i = 0; i < n; i++) {
      try {
        long read = files[i].read(positions[i], buffer);
        if (read < BLOCK_BYTES) {
          buffer.asSlice(read).fill((byte) 0);
        }
      } catch (IOException | IllegalStateException e) {
        continue; // the caller's own read reports it
      }
      sink.block(i, buffer);
    }
  }

  @Override
  public String name() {
    return "serial";
  }

  @Override
  public void close() {}
}
