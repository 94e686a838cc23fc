package dev.cellar.ipc;

import java.time.Instant;

/**
 * A process as the other side of a ring sees it: its pid and when it started, so that a pid the
 * kernel has given to a new process since is not mistaken for the old one. Both come from {@link
 * ProcessHandle}, which on Linux reads {@code /proc}; a process in another pid namespace (another
 * container) does not match, which is as it should be: it cannot share this host's memory safely.
 *
 * @param pid the process id
 * @param startMillis when it started, epoch milliseconds, or 0 when the system does not say
 */
public record ProcessIdentity(long pid, long startMillis) {

  /** This process. */
  public static ProcessIdentity current() {
    ProcessHandle self = ProcessHandle.current();
    return new ProcessIdentity(self.pid(), start(self));
  }

  /** Whether the process this names is still running (the same process, not a reused pid). */
  public boolean alive() {
    return ProcessHandle.of(pid)
        .filter(ProcessHandle::isAlive)
        .map(p -> startMillis == 0 || start(p) == startMillis)
        .orElse(false);
  }

  private static long start(ProcessHandle p) {
    return p.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
  }
}
