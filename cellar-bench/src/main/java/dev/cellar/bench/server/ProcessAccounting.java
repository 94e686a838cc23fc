package dev.cellar.bench.server;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a server process has cost so far, read from {@code /proc}: CPU time, bytes it sent to
 * storage, and its CPU split by thread role. The sustained-write row takes a snapshot before and
 * after its measured run and reports the difference.
 *
 * <p>Children count. Redis rewrites its AOF in a forked child, on the same pinned core; its CPU and
 * its writes are part of what Redis's persistence costs. Linux adds a child's CPU ({@code cutime},
 * {@code cstime}) and I/O counters to its parent's once the parent has reaped it, so a snapshot is
 * the process's own figures (reaped children included) plus those of its children still alive. Both
 * snapshots read the same way, so a child alive at the first and reaped by the second is counted
 * once.
 *
 * <p>{@code write_bytes} ({@code /proc/PID/io}) is charged when a page is first dirtied, to the
 * task that dirties it: a {@code write} into the page cache, or the first store into a clean page
 * of a shared file mapping (Cellar's log). A page written back and dirtied again counts again,
 * which is the point: the disk writes it again. Pages dirtied and then truncated or deleted before
 * write-back are counted in {@code cancelled_write_bytes}, which the report gives beside it.
 */
final class ProcessAccounting {
  /**
   * Linux's USER_HZ, the unit of utime and stime in {@code stat}; 100 on every mainstream kernel.
   */
  static final long TICKS_PER_SECOND = 100;

  /** The thread roles the report splits CPU by, in its column order. */
  static final String EVENT_LOOP = "event_loop";

  static final String COMPACTION = "compaction";
  static final String FSYNC = "fsync";
  static final String PREFAULT = "prefault";
  static final String GC = "gc";
  static final String JIT = "jit";
  static final String CHILDREN = "children";
  static final String OTHER = "other";

  private ProcessAccounting() {}

  /**
   * One reading.
   *
   * @param cpuTicks user + system time of the process, its reaped children and its live children
   * @param writeBytes {@code write_bytes} of the same
   * @param cancelledWriteBytes {@code cancelled_write_bytes} of the same
   * @param roleTicks CPU by thread role (see {@link #role}); reaped and live children under {@link
   *     #CHILDREN}
   */
  record Snapshot(
      long cpuTicks, long writeBytes, long cancelledWriteBytes, Map<String, Long> roleTicks) {

    /** What happened between {@code earlier} and this reading. */
    Snapshot minus(Snapshot earlier) {
      Map<String, Long> roles = new TreeMap<>();
      roleTicks.forEach((role, ticks) -> roles.put(role, ticks - earlier.ticksOf(role)));
      earlier.roleTicks.forEach((role, ticks) -> roles.putIfAbsent(role, -ticks));
      return new Snapshot(
          cpuTicks - earlier.cpuTicks,
          writeBytes - earlier.writeBytes,
          cancelledWriteBytes - earlier.cancelledWriteBytes,
          roles);
    }

    long ticksOf(String role) {
      return roleTicks.getOrDefault(role, 0L);
    }

    double cpuSeconds() {
      return (double) cpuTicks / TICKS_PER_SECOND;
    }
  }

  static Snapshot read(long pid) throws IOException {
    Path proc = Path.of("/proc", Long.toString(pid));
    long[] own = statTicks(Files.readString(proc.resolve("stat")));
    Io io = Io.parse(Files.readString(proc.resolve("io")));
    long cpu = own[0] + own[1] + own[2];
    long children = own[2];
    long written = io.writeBytes();
    long cancelled = io.cancelledWriteBytes();
    Map<String, Long> roles = new TreeMap<>();
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(proc.resolve("task"))) {
      for (Path task : tasks) {
        try {
          String stat = Files.readString(task.resolve("stat"));
          long[] ticks = statTicks(stat);
          roles.merge(role(comm(stat)), ticks[0], Long::sum);
          for (String child : Files.readString(task.resolve("children")).trim().split("\\s+")) {
            if (child.isEmpty()) {
              continue;
            }
            Path childProc = Path.of("/proc", child);
            long[] c = statTicks(Files.readString(childProc.resolve("stat")));
            Io childIo = Io.parse(Files.readString(childProc.resolve("io")));
            cpu += c[0] + c[1];
            children += c[0] + c[1] + c[2];
            written += childIo.writeBytes();
            cancelled += childIo.cancelledWriteBytes();
          }
        } catch (NoSuchFileException exited) {
          // The thread or child ended between listing and reading: its figures moved to the
          // process's own totals (a thread's) or will once it is reaped (a child's).
        }
      }
    }
    roles.merge(CHILDREN, children, Long::sum);
    return new Snapshot(cpu, written, cancelled, roles);
  }

  /**
   * {@code /proc/PID/stat} or {@code /proc/PID/task/TID/stat}: {utime + stime, 0, cutime + cstime}.
   * For a thread's line the first is that thread's own time.
   */
  static long[] statTicks(String stat) {
    int close = stat.lastIndexOf(')');
    if (stat.indexOf('(') < 0 || close < 0) {
      throw new IllegalArgumentException("not a /proc stat line: " + stat);
    }
    // Fields after the command: state is field 3, utime 14, stime 15, cutime 16, cstime 17
    // (1-based, proc(5)).
    String[] f = stat.substring(close + 2).trim().split(" +");
    return new long[] {
      Long.parseLong(f[11]) + Long.parseLong(f[12]),
      0,
      Long.parseLong(f[13]) + Long.parseLong(f[14])
    };
  }

  static String comm(String stat) {
    return stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  }

  /**
   * A thread's role from its name ({@code comm}, the first 15 characters). Cellar: the event loops
   * ({@code cellar-loop-N}) run the request path (parse, index, append, reply); the maintenance and
   * idle-compaction threads seal segments, write checkpoints and compact; the flusher and the fsync
   * thread sync the log; the prefaulter maps log pages in ahead of the writer; HotSpot's VM Thread
   * runs the serial collector's collections. Redis: its main thread ({@code redis-server}) is the
   * request path and writes the AOF; {@code bio_aof} fsyncs it.
   */
  static String role(String comm) {
    if (comm.startsWith("cellar-loop") || comm.equals("redis-server")) {
      return EVENT_LOOP;
    }
    if (comm.startsWith("cellar-maintena") || comm.startsWith("cellar-idle-com")) {
      return COMPACTION;
    }
    if (comm.startsWith("cellar-flusher") || comm.startsWith("cellar-fsync")) {
      return FSYNC;
    }
    if (comm.startsWith("bio_aof")) {
      return FSYNC;
    }
    if (comm.startsWith("cellar-prefault")) {
      return PREFAULT;
    }
    if (comm.equals("VM Thread")) {
      return GC;
    }
    if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
      return JIT;
    }
    return OTHER;
  }

  /** The roles in the report's order, with ticks where there are some. */
  static Map<String, Long> ordered(Map<String, Long> roleTicks) {
    Map<String, Long> ordered = new LinkedHashMap<>();
    for (String role : new String[] {EVENT_LOOP, COMPACTION, FSYNC, PREFAULT, GC, JIT, CHILDREN}) {
      ordered.put(role, roleTicks.getOrDefault(role, 0L));
    }
    ordered.put(OTHER, roleTicks.getOrDefault(OTHER, 0L));
    return ordered;
  }

  /** The counters of {@code /proc/PID/io} the report uses. */
  record Io(long writeBytes, long cancelledWriteBytes) {
    static Io parse(String io) {
      Long write = null;
      Long cancelled = null;
      for (String line : io.split("\n")) {
        int colon = line.indexOf(':');
        if (colon < 0) {
          continue;
        }
        String name = line.substring(0, colon).trim();
        if (name.equals("write_bytes")) {
          write = Long.parseLong(line.substring(colon + 1).trim());
        } else if (name.equals("cancelled_write_bytes")) {
          cancelled = Long.parseLong(line.substring(colon + 1).trim());
        }
      }
      if (write == null || cancelled == null) {
        throw new IllegalArgumentException(
            "no write_bytes or cancelled_write_bytes in /proc/PID/io (a kernel without"
                + " CONFIG_TASK_IO_ACCOUNTING?): "
                + io);
      }
      return new Io(write, cancelled);
    }
  }
}
