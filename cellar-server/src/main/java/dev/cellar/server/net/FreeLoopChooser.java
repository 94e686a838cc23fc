package dev.cellar.server.net;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorChooserFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Places connections on the event loops in turn, passing over a loop that runs a script now. A loop
 * inside a script serves none of its connections until the script ends, so a connection placed
 * there could not even send {@code SCRIPT KILL}: an operator's new connection must land on a loop
 * that answers. Where every loop runs a script, the turn's loop is taken all the same.
 *
 * <p>The same turn serves everything else the group hands out ({@code next()} for scheduled tasks);
 * with no script running it is plain round robin, at the cost of one volatile read a choice.
 */
final class FreeLoopChooser implements EventExecutorChooserFactory {
  private final Predicate<Predicate<Thread>> scriptRunsOn;

  /**
   * @param scriptRunsOn whether a script runs now on a thread the given test accepts ({@code
   *     ServerContext.scriptRunsOn})
   */
  FreeLoopChooser(Predicate<Predicate<Thread>> scriptRunsOn) {
    this.scriptRunsOn = scriptRunsOn;
  }

  @Override
  public EventExecutorChooser newChooser(EventExecutor[] executors) {
    EventExecutor[] loops = executors.clone();
    AtomicInteger turn = new AtomicInteger();
    return () -> {
      int first = Math.floorMod(turn.getAndIncrement(), loops.length);
      for (int i = 0; i < loops.length; i++) {
        EventExecutor loop = loops[(first + i) % loops.length];
        if (!scriptRunsOn.test(loop::inEventLoop)) {
          return loop;
        }
      }
      return loops[first];
    };
  }
}
