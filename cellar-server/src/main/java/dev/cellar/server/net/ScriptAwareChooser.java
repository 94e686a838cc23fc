package dev.cellar.server.net;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorChooserFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Places new connections on the event loops in turn, as Netty's default chooser does, but passes
 * over a loop that is running a script or function now: a script holds its loop until it ends, so a
 * connection placed there would wait with it, and the client most likely to connect while a script
 * runs away is the one sending {@code SCRIPT KILL}. When every loop runs a script, the turn
 * decides.
 */
final class ScriptAwareChooser implements EventExecutorChooserFactory {
  private final Predicate<EventExecutor> busy;

  /**
   * @param busy whether a loop runs a script now; asked of each loop at most once per choice
   */
  ScriptAwareChooser(Predicate<EventExecutor> busy) {
    this.busy = busy;
  }

  @Override
  public EventExecutorChooser newChooser(EventExecutor[] executors) {
    AtomicLong turn = new AtomicLong();
    return () -> {
      long first = turn.getAndIncrement();
      for (int i = 0; i < executors.length; i++) {
        EventExecutor candidate = executors[(int) ((first + i) % executors.length)];
        if (!busy.test(candidate)) {
          if (i > 0) {
            turn.addAndGet(i); // the next choice starts after the loop chosen
          }
          return candidate;
        }
      }
      return executors[(int) (first % executors.length)];
    };
  }
}
