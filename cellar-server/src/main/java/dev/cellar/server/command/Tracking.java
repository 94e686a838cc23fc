package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Server-assisted client-side caching ({@code CLIENT TRACKING}), as Redis 6 and later do it: the
 * server remembers which client read which key, and when the key changes it tells those clients to
 * drop their copy.
 *
 * <h2>Two modes</h2>
 *
 * <ul>
 *   <li><b>Default.</b> After a read-only command of a tracking client, its keys go into a table of
 *       key → client ids ({@link #remember}). A change of the key ({@link #invalidate}) sends every
 *       client in its entry one invalidation and removes the entry: a client that reads the key
 *       again is remembered again. OPTIN and OPTOUT make a client's reads remembered only after
 *       {@code CLIENT CACHING yes}, or all but those after {@code CLIENT CACHING no}.
 *   <li><b>Broadcast</b> ({@code BCAST}). The client names key prefixes (none: every key) and is
 *       told of every change to a key under one of them, read or not; nothing is remembered. The
 *       keys a command changes under a prefix go out in one message when the command ends, as Redis
 *       sends them once per event-loop turn ({@code MSET a b c}: one message of three keys).
 * </ul>
 *
 * <p>Like Redis's, the table holds key names, not databases: a change of {@code k} in any database
 * invalidates {@code k}. It is bounded by {@code tracking-table-max-keys} (Redis's default of a
 * million; 0: no bound): past it, keys are dropped from the table and their clients told, as if
 * they had changed, so that no client keeps a copy the server no longer watches and no client can
 * make the table grow without bound.
 *
 * <h2>Delivery</h2>
 *
 * A message goes to the client's own connection as a RESP3 push ({@code >2 invalidate [keys]}), or,
 * with {@code REDIRECT id}, to that client: as a push if it speaks RESP3, as a pub/sub message of
 * channel {@code __redis__:invalidate} if it speaks RESP2 and has subscribed to anything (else
 * nowhere, as in Redis). A flush ({@code FLUSHALL}, {@code FLUSHDB}) sends every tracking client a
 * null key list and empties the table. A redirect whose client has gone tells a RESP3 client once
 * ({@code tracking-redir-broken}); the shapes are {@link InvalidationMessage}'s. Messages are
 * handed to each client's event loop, which writes them after the replies already queued there;
 * inside a transaction or a script they are held until its writes are applied, and dropped with it
 * ({@link PubSub#afterCommit}).
 *
 * <p>Writes through the HTTP API invalidate too: it announces them as {@code SET} and {@code DEL}
 * ({@link ServerContext#keySet}).
 *
 * <p>Cost when no client tracks (the usual case): one volatile read per command and per changed
 * key.
 */
final class Tracking {

  /** A client's tracking options, fixed while it tracks (but for the redirect's state). */
  static final class Mode {
    final boolean bcast;
    final boolean optin;
    final boolean optout;
    final boolean noloop;

    /** The client that gets the messages (0: the client itself). */
    final long redirect;

    /** BCAST's prefixes ({@code ""}: every key). */
    final List<byte[]> prefixes;

    /** Set once the redirect's client has gone and the client was told. */
    volatile boolean redirectBroken;

    Mode(
        boolean bcast,
        boolean optin,
        boolean optout,
        boolean noloop,
        long redirect,
        List<byte[]> prefixes) {
      this.bcast = bcast;
      this.optin = optin;
      this.optout = optout;
      this.noloop = noloop;
      this.redirect = redirect;
      this.prefixes = List.copyOf(prefixes);
    }
  }

  private final ServerContext server;
  private final ConcurrentHashMap<ChannelName, Set<Long>> table = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<ChannelName, Set<Session>> prefixes = new ConcurrentHashMap<>();
  private final AtomicInteger clients = new AtomicInteger();
  private final AtomicLong items = new AtomicLong();

  /**
   * The client whose command runs on this thread, while any client tracks: whose changes NOLOOP
   * leaves out, and whose own invalidations wait for the command's reply.
   */
  private static final class Frame {
    final Session session;

    /** The client's output on this thread, where what precedes its reply is written. */
    final ReplyWriter out;

    /** The command itself runs (after what comes before it, such as eviction). */
    boolean executing;

    /** Invalidations of the client's own, sent after its reply (as Redis 7.2 orders them). */
    List<List<byte[]>> deferred;

    Frame(Session session, ReplyWriter out, boolean executing) {
      this.session = session;
      this.out = out;
      this.executing = executing;
    }
  }

  private final ThreadLocal<Frame> frame = new ThreadLocal<>();

  /** BCAST keys a command changed, by client and prefix, sent when it ends. */
  private final ThreadLocal<Map<Session, Map<ChannelName, Map<ChannelName, byte[]>>>> broadcast =
      new ThreadLocal<>();

  Tracking(ServerContext server) {
    this.server = server;
  }

  /** Whether any client tracks now. */
  boolean active() {
    return clients.get() != 0;
  }

  // ------------------------------------------------------------------ turning it on and off

  /**
   * Turns tracking on for {@code s} with {@code mode}, or changes its options (adding prefixes to a
   * BCAST client's), as {@code CLIENT TRACKING on} does.
   */
  synchronized void enable(Session s, Mode mode) {
    Mode before = s.tracking();
    List<byte[]> all = new ArrayList<>();
    if (before != null) {
      all.addAll(before.prefixes);
    } else {
      clients.incrementAndGet();
    }
    if (mode.bcast) {
      List<byte[]> added = mode.prefixes.isEmpty() ? List.of(new byte[0]) : mode.prefixes;
      for (byte[] p : added) {
        if (all.stream().noneMatch(q -> Arrays.equals(p, q))) {
          all.add(p);
          prefixes.computeIfAbsent(new ChannelName(p), k -> ConcurrentHashMap.newKeySet()).add(s);
        }
      }
    }
    s.tracking(new Mode(mode.bcast, mode.optin, mode.optout, mode.noloop, mode.redirect, all));
  }

  /** Turns tracking off for {@code s} ({@code CLIENT TRACKING off}, RESET, a closed connection). */
  synchronized void disable(Session s) {
    Mode mode = s.tracking();
    if (mode == null) {
      return;
    }
    for (byte[] p : mode.prefixes) {
      prefixes.computeIfPresent(
          new ChannelName(p),
          (k, sessions) -> {
            sessions.remove(s);
            return sessions.isEmpty() ? null : sessions;
          });
    }
    s.tracking(null);
    s.cachingGiven(false);
    clients.decrementAndGet();
    // Its entries in the table stay until their keys change, as in Redis: it is skipped then.
  }

  // ------------------------------------------------------------------ commands

  /**
   * Before a command of {@code s} is handled, replying into {@code out} (null: elsewhere): notes it
   * as the client whose changes NOLOOP leaves out. {@code executing}: the command itself runs now
   * (a blocked command's retry); else {@link #executing} says when it starts, and what is sent to
   * {@code s} before that (an eviction's invalidation) goes before its reply. Returns what {@link
   * #end} needs back.
   */
  Object begin(Session s, ReplyWriter out, boolean executing) {
    Frame outer = frame.get();
    frame.set(new Frame(s, out, executing));
    return outer;
  }

  /** The command of the client {@link #begin} named starts running. */
  void executing() {
    Frame f = frame.get();
    if (f != null) {
      f.executing = true;
    }
  }

  /** Ends {@link #begin}: sends the client's own invalidations, after its reply. */
  void end(Object outer) {
    Frame f = frame.get();
    if (outer == null) {
      frame.remove();
    } else {
      frame.set((Frame) outer);
    }
    if (f != null && f.deferred != null) {
      for (List<byte[]> keys : f.deferred) {
        send(f.session, keys);
      }
    }
  }

  /**
   * After a command of {@code s} (a client's own, not one inside EXEC or a script): remembers the
   * keys of a read-only command for a tracking client, sends what BCAST clients are owed, ends a
   * {@code CLIENT CACHING} that applied to this command, and ends {@link #begin}.
   */
  void after(Session s, CommandSpec spec, Request r, Object outer) {
    end(outer);
    Mode mode = s.tracking();
    if (mode != null && !mode.bcast && readsKeys(spec)) {
      remember(s, mode, spec, r);
    }
    if (s.cachingGiven() && !spec.name().equals("client") && !s.inTransaction()) {
      s.cachingGiven(false);
    }
    sendBroadcasts();
  }

  /**
   * A command run inside EXEC or a script: its keys count as read by the client that runs the EXEC
   * or the script, as Redis takes them.
   */
  void inner(CommandSpec spec, Request r) {
    Frame f = frame.get();
    if (f == null) {
      return;
    }
    Session caller = f.session;
    Mode mode = caller.tracking();
    if (mode != null && !mode.bcast && readsKeys(spec)) {
      remember(caller, mode, spec, r);
    }
  }

  /** Read-only commands but the read-only script runners, whose own keys Redis does not take. */
  private static boolean readsKeys(CommandSpec spec) {
    return spec.has("readonly")
        && !spec.has("pubsub")
        && switch (spec.name()) {
          case "eval_ro", "evalsha_ro", "fcall_ro" -> false;
          default -> true;
        };
  }

  private void remember(Session s, Mode mode, CommandSpec spec, Request r) {
    if ((mode.optin && !s.cachingGiven()) || (mode.optout && s.cachingGiven())) {
      return;
    }
    List<Integer> positions = keyPositions(spec, r);
    for (int position : positions) {
      Set<Long> ids =
          table.computeIfAbsent(
              new ChannelName(r.bytes(position)), k -> ConcurrentHashMap.newKeySet());
      if (ids.add(s.id())) {
        items.incrementAndGet();
      }
    }
    if (!positions.isEmpty()) {
      limit();
    }
  }

  /** The argument positions of {@code r}'s keys, as {@code COMMAND GETKEYS} finds them. */
  private static List<Integer> keyPositions(CommandSpec spec, Request r) {
    List<String> args = new ArrayList<>(r.argc());
    for (int i = 0; i < r.argc(); i++) {
      args.add(r.string(i));
    }
    return MovableKeys.keyPositions(spec, args);
  }

  /**
   * Keeps the table within {@code tracking-table-max-keys}, telling the clients of what it drops:
   * after each read that adds keys, and every 100 ms (a bound lowered by {@code CONFIG SET}).
   */
  void limit() {
    long max = server.config().trackingTableMaxKeys();
    if (max <= 0 || table.size() <= max) {
      return;
    }
    Iterator<ChannelName> keys = table.keySet().iterator();
    while (table.size() > max && keys.hasNext()) {
      ChannelName key = keys.next();
      Set<Long> ids = table.remove(key);
      if (ids != null) {
        items.addAndGet(-ids.size());
        for (long id : ids) {
          Session target = server.clients().find(id);
          if (target != null && target.tracking() != null && !target.tracking().bcast) {
            send(target, List.of(key.bytes()));
          }
        }
      }
    }
  }

  // ------------------------------------------------------------------ changes

  /** {@code key} changed (written, deleted, expired, evicted): its readers are told. */
  void invalidate(byte[] key) {
    if (clients.get() == 0) {
      return;
    }
    Frame f = frame.get();
    Session by = f == null ? null : f.session;
    if (!prefixes.isEmpty()) {
      for (Map.Entry<ChannelName, Set<Session>> e : prefixes.entrySet()) {
        if (startsWith(key, e.getKey().bytes())) {
          for (Session target : e.getValue()) {
            if (!(target.tracking() != null && target.tracking().noloop && target == by)) {
              owed(target, e.getKey(), key);
            }
          }
        }
      }
    }
    Set<Long> ids = table.remove(new ChannelName(key));
    if (ids == null) {
      return;
    }
    items.addAndGet(-ids.size());
    for (long id : ids) {
      Session target = server.clients().find(id);
      if (target == null) {
        continue;
      }
      Mode mode = target.tracking();
      // A client that switched to BCAST since is not sent what it read before.
      if (mode == null || mode.bcast || (mode.noloop && target == by)) {
        continue;
      }
      send(target, List.of(key));
    }
  }

  /** A flush: every tracking client is told to drop everything, and the table is emptied. */
  void flushed() {
    if (clients.get() == 0) {
      table.clear();
      items.set(0);
      return;
    }
    for (Session target : server.clients().all()) {
      if (target.tracking() != null) {
        send(target, null);
      }
    }
    table.clear();
    items.set(0);
  }

  private void owed(Session target, ChannelName prefix, byte[] key) {
    Map<Session, Map<ChannelName, Map<ChannelName, byte[]>>> pending = broadcast.get();
    if (pending == null) {
      pending = new LinkedHashMap<>();
      broadcast.set(pending);
    }
    pending
        .computeIfAbsent(target, t -> new LinkedHashMap<>())
        .computeIfAbsent(prefix, p -> new LinkedHashMap<>())
        .putIfAbsent(new ChannelName(key), key); // a key changed twice is sent once
    if (frame.get() == null) {
      sendBroadcasts(); // a change outside any command (active expiry, eviction): at once
    }
  }

  /** One message per client and prefix, as Redis sends one per prefix it broadcasts. */
  private void sendBroadcasts() {
    Map<Session, Map<ChannelName, Map<ChannelName, byte[]>>> pending = broadcast.get();
    if (pending == null) {
      return;
    }
    broadcast.remove();
    pending.forEach(
        (target, byPrefix) ->
            byPrefix.values().forEach(keys -> send(target, new ArrayList<>(keys.values()))));
  }

  private static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length
        && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }

  // ------------------------------------------------------------------ messages

  /** Sends {@code target} one invalidation of {@code keys} (null: everything). */
  private void send(Session target, List<byte[]> keys) {
    Mode mode = target.tracking();
    if (mode == null) {
      return;
    }
    Frame f = frame.get();
    if (f != null && f.session == target) {
      if (f.executing) {
        // Its own command's change: after that command's reply, as Redis 7.2 sends it.
        if (f.deferred == null) {
          f.deferred = new ArrayList<>();
        }
        f.deferred.add(keys);
        return;
      }
      if (mode.redirect == 0 && f.out != null) {
        // Before its command runs (an eviction it caused): ahead of the reply, into its output.
        InvalidationMessage.write(f.out, target, false, keys);
        return;
      }
    }
    Session to = target;
    if (mode.redirect != 0) {
      to = server.clients().find(mode.redirect);
      if (to == null || to.closing()) { // gone, or going (QUIT answered, the socket not yet shut)
        if (!mode.redirectBroken) {
          mode.redirectBroken = true;
          long redirect = mode.redirect;
          server
              .pubsub()
              .afterCommit(
                  () ->
                      target
                          .channel()
                          .deliver(64, out -> InvalidationMessage.redirectBroken(out, redirect)));
        }
        return;
      }
    }
    Session destination = to;
    boolean redirected = mode.redirect != 0;
    long bytes = InvalidationMessage.estimate(keys);
    server
        .pubsub()
        .afterCommit(
            () ->
                destination
                    .channel()
                    .deliver(
                        bytes,
                        out -> InvalidationMessage.write(out, destination, redirected, keys)));
  }

  // ------------------------------------------------------------------ INFO

  int clientCount() {
    return clients.get();
  }

  long keyCount() {
    return table.size();
  }

  long itemCount() {
    return Math.max(0, items.get());
  }

  long prefixCount() {
    return prefixes.size();
  }
}
