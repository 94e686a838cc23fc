package dev.cellar.server.command;

import static dev.cellar.server.config.KeyspaceEventFlags.GENERIC;

import dev.cellar.Cellar;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH pw | AUTH2 user pw] [KEYS
 * key...]}: sends keys to another server as Redis does, as {@code RESTORE}s of their {@code DUMP}
 * payloads on one connection, and deletes each one the target restored (unless {@code COPY}). The
 * target may be redis-server or Cellar.
 *
 * <p>As in Redis, the command waits for the target, up to {@code timeout} ms for the connection and
 * for each reply, holding the keys' locks so that nobody changes a key between its dump and its
 * deletion; the event loop running it waits too (Redis's whole server does). Unlike Redis, no
 * connection is kept for the next MIGRATE: each opens its own.
 */
final class MigrateCommand {
  private MigrateCommand() {}

  /** The most a reply line of the target may hold; Redis reads into 1 KiB buffers. */
  private static final int MAX_LINE = 1024;

  static void register(CommandTable t) {
    t.add(
        "migrate",
        -6,
        "write movablekeys",
        3,
        3,
        1,
        "generic",
        "Atomically transfers a key from one Redis instance to another.",
        MigrateCommand::migrate);
  }

  /** The parsed command. */
  private record Options(
      boolean copy, boolean replace, String user, String password, int firstKey, int keys) {}

  static void migrate(Session s, Request r, ReplyWriter out) {
    Options o = options(r);
    if (!r.isLong(5) || !r.isLong(4)) {
      throw CommandError.NOT_INTEGER;
    }
    long timeout = r.longValue(5) <= 0 ? 1000 : r.longValue(5);
    long db = r.longValue(4);
    ServerContext server = s.server();
    int[] stripes = new int[o.keys()];
    for (int i = 0; i < o.keys(); i++) {
      stripes[i] = Values.stripe(r, o.firstKey() + i);
    }
    int locked = server.locks().lockAll(stripes, stripes.length);
    try {
      List<byte[]> keys = new ArrayList<>();
      for (int i = 0; i < o.keys(); i++) {
        byte[] key = r.bytes(o.firstKey() + i);
        if (server.store().expiryOf(java.lang.foreign.MemorySegment.ofArray(key))
            != Cellar.ABSENT) {
          keys.add(key);
        }
      }
      if (keys.isEmpty()) {
        out.simple("NOKEY");
        return;
      }
      transfer(s, r, out, o, db, (int) Math.min(timeout, Integer.MAX_VALUE), keys);
    } finally {
      server.locks().unlockAll(stripes, locked);
    }
  }

  private static Options options(Request r) {
    boolean copy = false;
    boolean replace = false;
    String user = null;
    String password = null;
    int firstKey = 3;
    int keys = 1;
    for (int i = 6; i < r.argc(); i++) {
      int more = r.argc() - 1 - i;
      if (r.is(i, "copy")) {
        copy = true;
      } else if (r.is(i, "replace")) {
        replace = true;
      } else if (r.is(i, "auth")) {
        if (more < 1) {
          throw CommandError.SYNTAX;
        }
        password = r.string(++i);
      } else if (r.is(i, "auth2")) {
        if (more < 2) {
          throw CommandError.SYNTAX;
        }
        user = r.string(++i);
        password = r.string(++i);
      } else if (r.is(i, "keys")) {
        if (r.length(3) != 0) {
          throw new CommandError(
              "ERR When using MIGRATE KEYS option, the key argument must be set to the empty"
                  + " string");
        }
        firstKey = i + 1;
        keys = r.argc() - i - 1;
        break;
      } else {
        throw CommandError.SYNTAX;
      }
    }
    return new Options(copy, replace, user, password, firstKey, keys);
  }

  /**
   * Connects, sends AUTH and SELECT, then each key's RESTORE as it is dumped (one payload in memory
   * at a time, so many large keys do not gather on the heap; DUMP's budget bounds each), then reads
   * the replies and deletes what the target restored.
   */
  private static void transfer(
      Session s, Request r, ReplyWriter out, Options o, long db, int timeout, List<byte[]> keys) {
    ServerContext server = s.server();
    String host = r.string(1);
    int port;
    try {
      port = Integer.parseInt(r.string(2));
    } catch (NumberFormatException e) {
      port = -1;
    }
    try (Socket socket = new Socket()) {
      InetSocketAddress address =
          port < 0 || port > 65535 ? null : new InetSocketAddress(host, port);
      if (address == null || address.isUnresolved()) {
        throw new CommandError("IOERR error or timeout connecting to the client");
      }
      try {
        socket.connect(address, timeout);
        socket.setSoTimeout(timeout);
        socket.setTcpNoDelay(true);
      } catch (IOException e) {
        // Redis's connect waits for the socket to be writable and does not look at the outcome,
        // so a refused or timed-out connection shows as its first write failing: the same words.
        throw new CommandError("IOERR error or timeout writing to target instance");
      }
      try (Watchdog watchdog = new Watchdog(socket, timeout)) {
        exchange(server, socket, watchdog, o, db, keys, out);
      }
    } catch (IOException e) {
      throw new CommandError("IOERR error or timeout reading to target instance");
    }
  }

  /** Sends the AUTH, SELECT and RESTOREs, reads their replies, deletes what was restored. */
  private static void exchange(
      ServerContext server,
      Socket socket,
      Watchdog watchdog,
      Options o,
      long db,
      List<byte[]> keys,
      ReplyWriter out)
      throws IOException {
    List<byte[]> sent = new ArrayList<>();
    try {
      OutputStream to = new BufferedOutputStream(new Progressing(socket, watchdog), 64 << 10);
      if (o.password() != null) {
        command(
            to,
            o.user() == null
                ? List.of(bytes("AUTH"), bytes(o.password()))
                : List.of(bytes("AUTH"), bytes(o.user()), bytes(o.password())));
      }
      command(to, List.of(bytes("SELECT"), bytes(Long.toString(db))));
      for (byte[] key : keys) {
        DumpCommands.Dumped dumped = DumpCommands.dumpOf(server.store(), key);
        long ttl = dumped == null ? -1 : ttlOf(dumped.expireAt());
        if (ttl < 0) {
          continue; // expired since it was looked up: not sent, as in Redis
        }
        List<byte[]> restore = new ArrayList<>();
        restore.add(bytes("RESTORE"));
        restore.add(key);
        restore.add(bytes(Long.toString(ttl)));
        restore.add(dumped.payload());
        if (o.replace()) {
          restore.add(bytes("REPLACE"));
        }
        command(to, restore);
        sent.add(key);
      }
      to.flush();
    } catch (IOException e) {
      throw new CommandError("IOERR error or timeout writing to target instance");
    }
    InputStream from = socket.getInputStream();
    String authReply = o.password() == null ? null : line(from, watchdog);
    String selectReply = line(from, watchdog);
    String error = null;
    boolean socketError = false;
    for (byte[] key : sent) {
      String reply;
      try {
        reply = readLine(from);
        watchdog.progress();
      } catch (IOException e) {
        socketError = true;
        break;
      }
      if (authReply != null && authReply.startsWith("-")) {
        error = error == null ? authReply : error;
      } else if (selectReply.startsWith("-")) {
        error = error == null ? selectReply : error;
      } else if (reply.startsWith("-")) {
        error = error == null ? reply : error;
      } else if (!o.copy()) {
        // Restored there: gone from here, as a DEL.
        if (server.store().delete(java.lang.foreign.MemorySegment.ofArray(key))) {
          KeyspaceEvents.notify(server, GENERIC, "del", key);
        }
      }
    }
    if (error != null) {
      throw new CommandError("ERR Target instance replied with error: " + error.substring(1));
    }
    if (socketError) {
      throw new CommandError("IOERR error or timeout reading to target instance");
    }
    out.ok();
  }

  /**
   * Closes the socket once nothing has moved for the timeout: a socket's writes have no timeout in
   * Java, so a target that stops reading (or trickles a reply) would otherwise hold the event loop,
   * and the keys' locks, for good. Redis bounds each 64 KiB written and each line read the same
   * way.
   */
  private static final class Watchdog implements AutoCloseable {
    private final Socket socket;
    private final long timeoutNanos;
    private final Thread thread;
    private volatile long lastProgress = System.nanoTime();
    private volatile boolean done;

    Watchdog(Socket socket, int timeoutMillis) {
      this.socket = socket;
      this.timeoutNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
      this.thread = Thread.ofVirtual().name("cellar-migrate-watchdog").start(this::watch);
    }

    void progress() {
      lastProgress = System.nanoTime();
    }

    private void watch() {
      while (!done) {
        long idle = System.nanoTime() - lastProgress;
        if (idle >= timeoutNanos) {
          try {
            socket.close(); // the blocked write or read fails: an IOERR
          } catch (IOException ignored) {
            // closing is all that is wanted
          }
          return;
        }
        java.util.concurrent.locks.LockSupport.parkNanos(timeoutNanos - idle);
      }
    }

    @Override
    public void close() {
      done = true;
      java.util.concurrent.locks.LockSupport.unpark(thread);
    }
  }

  /** The socket's output, written 64 KiB at a time, each one telling the watchdog. */
  private static final class Progressing extends java.io.FilterOutputStream {
    private final Watchdog watchdog;

    Progressing(Socket socket, Watchdog watchdog) throws IOException {
      super(socket.getOutputStream());
      this.watchdog = watchdog;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      for (int at = off; at < off + len; ) {
        int n = Math.min(64 << 10, off + len - at);
        out.write(b, at, n);
        watchdog.progress();
        at += n;
      }
    }
  }

  /** The TTL RESTORE is sent with: 0 for none, at least 1 ms, -1 if it has expired. */
  private static long ttlOf(long expireAt) {
    if (expireAt == Cellar.NO_EXPIRY) {
      return 0;
    }
    long ttl = expireAt - System.currentTimeMillis();
    return ttl < 0 ? -1 : Math.max(ttl, 1);
  }

  /** A reply line for AUTH or SELECT, which must come: a failure to read it is an IOERR. */
  private static String line(InputStream from, Watchdog watchdog) {
    try {
      String line = readLine(from);
      watchdog.progress();
      return line;
    } catch (IOException e) {
      throw new CommandError("IOERR error or timeout reading to target instance");
    }
  }

  /** One reply line, without its CRLF; bounded, and an end of stream is an error. */
  private static String readLine(InputStream from) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    while (true) {
      int b = from.read();
      if (b < 0) {
        throw new IOException("the target closed the connection");
      }
      if (b == '\n') {
        break;
      }
      if (line.size() < MAX_LINE) {
        line.write(b);
      }
    }
    String text = line.toString(StandardCharsets.UTF_8);
    return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
  }

  private static void command(OutputStream out, List<byte[]> args) throws IOException {
    out.write(("*" + args.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
    for (byte[] a : args) {
      out.write(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.write(a);
      out.write(CRLF);
    }
  }

  private static final byte[] CRLF = {'\r', '\n'};

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
