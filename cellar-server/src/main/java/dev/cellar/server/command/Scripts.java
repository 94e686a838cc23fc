package dev.cellar.server.command;

import dev.cellar.server.resp.Request;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.luaj.vm2.Globals;
import org.luaj.vm2.Prototype;

/**
 * The server's scripts: compiled scripts by SHA-1 (shared by every thread; a compiled {@link
 * Prototype} is immutable), one {@link LuaRuntime} per thread that runs scripts, and the scripts
 * running now, which {@code SCRIPT KILL} stops.
 *
 * <p>Bounded: scripts added by {@code EVAL} are kept up to {@link #EVAL_SCRIPTS} (the oldest is
 * forgotten first, as Redis 7.4 does), and scripts loaded by {@code SCRIPT LOAD} up to {@link
 * #LOADED_BYTES} of source, past which loading is refused until {@code SCRIPT FLUSH}: no client can
 * fill the heap with scripts.
 */
final class Scripts {
  static final int EVAL_SCRIPTS = 500;
  static final long LOADED_BYTES = 64L << 20;

  /** A compiled script. */
  record Script(String sha, Prototype prototype, int sourceBytes) {}

  /**
   * Whether used memory is over {@code maxmemory} (after evicting what the policy allows), as Redis
   * tells it before a script or a deny-oom subcommand runs.
   */
  static boolean outOfMemory(ServerContext server) {
    return server.memory().limited() && !server.memory().admit();
  }

  /** A script or function running now. */
  static final class Run {
    private final String name;
    private final boolean readOnly;
    private final String chunk;
    private final long startedNanos = System.nanoTime();
    private final byte[][] command;
    private volatile boolean killed;

    /** The thread it runs on, set when it starts ({@link #runsOnThreadWhere}). */
    private volatile Thread thread;

    /**
     * Whether memory was over maxmemory when the script started and it has written nothing yet: its
     * deny-oom commands are then refused, as Redis refuses them ({@code scriptVerifyOOM}). Once it
     * wrote, it is not stopped halfway.
     */
    private boolean denyOom;

    /** A script run by EVAL and its family, called by {@code r}. */
    Run(String name, boolean readOnly, Request r) {
      this(name, readOnly, "user_script", r);
    }

    /**
     * @param chunk what errors name its code: {@code user_script} for a script, {@code
     *     user_function} for a function's library
     * @param r the command that runs it, copied for {@code FUNCTION STATS} (its buffer is the
     *     connection's, which another thread must not read)
     */
    Run(String name, boolean readOnly, String chunk, Request r) {
      this.name = name;
      this.readOnly = readOnly;
      this.chunk = chunk;
      this.command = new byte[r.argc()][];
      for (int i = 0; i < command.length; i++) {
        command[i] = r.bytes(i);
      }
    }

    /** The command that runs it, as its client sent it. */
    byte[][] command() {
      return command;
    }

    /** How long it has run, in milliseconds. */
    long durationMillis() {
      return java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    }

    String chunk() {
      return chunk;
    }

    String name() {
      return name;
    }

    boolean readOnly() {
      return readOnly;
    }

    void denyOom() {
      denyOom = true;
    }

    boolean deniesOom() {
      return denyOom;
    }

    /** A write command of the script ran: from now on it is not refused for memory. */
    void wrote() {
      denyOom = false;
    }

    boolean killed() {
      return killed;
    }

    void kill() {
      killed = true;
    }
  }

  private final Map<String, Script> loaded = new ConcurrentHashMap<>();
  private long loadedBytes;

  /** Scripts EVAL compiled, oldest first; guarded by {@code this}. */
  private final LinkedHashMap<String, Script> evaluated = new LinkedHashMap<>();

  private final Set<Run> running = ConcurrentHashMap.newKeySet();
  private final ThreadLocal<LuaRuntime> runtimes;
  private final ThreadLocal<Globals> compilers = ThreadLocal.withInitial(Scripts::compiler);

  private final FunctionLibraries libraries;

  Scripts(ServerContext server, java.nio.file.Path directory) {
    this.runtimes = ThreadLocal.withInitial(() -> new LuaRuntime(server));
    this.libraries = new FunctionLibraries(directory);
  }

  /** The function libraries ({@code FUNCTION LOAD}), restored from the data directory. */
  FunctionLibraries libraries() {
    return libraries;
  }

  /** Reads the saved function libraries; called once as the server starts. */
  void restoreFunctions() {
    libraries.restore(code -> runtime().functions().load(code, null));
  }

  private static Globals compiler() {
    Globals g = new Globals();
    org.luaj.vm2.LoadState.install(g);
    org.luaj.vm2.compiler.LuaC.install(g);
    return g;
  }

  LuaRuntime runtime() {
    return runtimes.get();
  }

  /** The script with this SHA-1 (lower or upper case), or null. */
  Script find(String sha) {
    String key = sha.toLowerCase(java.util.Locale.ROOT);
    Script s = loaded.get(key);
    if (s != null) {
      return s;
    }
    synchronized (this) {
      return evaluated.get(key);
    }
  }

  /** The script of {@code body}, compiled now if not known; kept as EVAL keeps scripts. */
  Script forEval(byte[] body) {
    String sha = LuaRuntime.sha1hex(body);
    Script known = find(sha);
    if (known != null) {
      return known;
    }
    Script s = new Script(sha, LuaRuntime.compile(compilers.get(), body), body.length);
    synchronized (this) {
      evaluated.put(sha, s);
      Iterator<String> oldest = evaluated.keySet().iterator();
      while (evaluated.size() > EVAL_SCRIPTS && oldest.hasNext()) {
        oldest.next();
        oldest.remove();
      }
    }
    return s;
  }

  /** {@code SCRIPT LOAD}: compiles and keeps {@code body}; returns its SHA-1. */
  String load(byte[] body) {
    String sha = LuaRuntime.sha1hex(body);
    if (loaded.containsKey(sha)) {
      return sha;
    }
    Script s = new Script(sha, LuaRuntime.compile(compilers.get(), body), body.length);
    synchronized (this) {
      if (loadedBytes + body.length > LOADED_BYTES) {
        throw new CommandError(
            "ERR the script cache holds "
                + loadedBytes
                + " bytes of loaded scripts, its limit is "
                + LOADED_BYTES
                + "; SCRIPT FLUSH to empty it");
      }
      if (loaded.putIfAbsent(sha, s) == null) {
        loadedBytes += body.length;
      }
      evaluated.remove(sha);
    }
    return sha;
  }

  /** {@code SCRIPT FLUSH}. */
  synchronized void flush() {
    loaded.clear();
    evaluated.clear();
    loadedBytes = 0;
  }

  /** Redis's reply to SCRIPT KILL while only a function runs, and to others while it is busy. */
  static final String BUSY_SCRIPT =
      "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";

  /** Redis's reply to FUNCTION KILL while only a script runs, and to others while it is busy. */
  static final String BUSY_FUNCTION =
      "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";

  /** How many scripts run now: what every command reads, once, to learn that none does. */
  private final java.util.concurrent.atomic.AtomicInteger runningCount =
      new java.util.concurrent.atomic.AtomicInteger();

  /** Marks {@code run} as running (for SCRIPT KILL) until {@link #finished}. */
  void started(Run run) {
    run.thread = Thread.currentThread();
    running.add(run);
    runningCount.incrementAndGet();
  }

  /** Whether a script or function runs now on a thread that {@code thread} accepts. */
  boolean runsOnThreadWhere(java.util.function.Predicate<Thread> thread) {
    if (runningCount.get() == 0) {
      return false;
    }
    for (Run run : running) {
      Thread on = run.thread;
      if (on != null && thread.test(on)) {
        return true;
      }
    }
    return false;
  }

  void finished(Run run) {
    running.remove(run);
    runningCount.decrementAndGet();
  }

  /**
   * The script that has run longer than {@code thresholdMillis} (Redis's {@code
   * busy-reply-threshold}), or null: while one does, other clients' commands are refused as Redis
   * refuses them ({@link #BUSY_SCRIPT}), but those that stop it.
   */
  Run busy(long thresholdMillis) {
    Run longest = longestRunning();
    return longest != null && longest.durationMillis() > thresholdMillis ? longest : null;
  }

  /** Whether any script or function runs now. */
  boolean anyRunning() {
    return runningCount.get() != 0;
  }

  /** Whether {@code run} is a function's ({@code FCALL}), not a script's ({@code EVAL}). */
  static boolean isFunction(Run run) {
    return run.chunk().equals("user_function");
  }

  /**
   * {@code SCRIPT KILL} ({@code functions} false) or {@code FUNCTION KILL}: kills every running
   * script of that kind. As in Redis, the other kind is not killed and answers BUSY, and with
   * nothing running the answer is NOTBUSY.
   */
  void kill(boolean functions) {
    boolean killed = false;
    boolean other = false;
    for (Run run : running) {
      if (isFunction(run) == functions) {
        run.kill();
        killed = true;
      } else {
        other = true;
      }
    }
    if (!killed) {
      throw new CommandError(
          other
              ? (functions ? BUSY_SCRIPT : BUSY_FUNCTION)
              : "NOTBUSY No scripts in execution right now.");
    }
  }

  /** {@code SCRIPT KILL}: kills every script running now; false if none runs. */
  boolean killAll() {
    boolean any = false;
    for (Run run : running) {
      run.kill();
      any = true;
    }
    return any;
  }

  /** The script or function that has run longest of those running now, or null. */
  Run longestRunning() {
    Run longest = null;
    for (Run run : running) {
      if (longest == null || run.startedNanos - longest.startedNanos < 0) {
        longest = run;
      }
    }
    return longest;
  }

  /** How many scripts are known (INFO's {@code number_of_cached_scripts}). */
  synchronized int size() {
    return loaded.size() + evaluated.size();
  }
}
