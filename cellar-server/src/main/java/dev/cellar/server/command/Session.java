package dev.cellar.server.command;

import dev.cellar.ValueSink;
import dev.cellar.server.resp.ReplyWriter;

/**
 * What the server knows about one client connection: identity for {@code CLIENT}, whether it has
 * authenticated, its protocol version, and what the connection must do after the current batch
 * (close, shut the server down, wait for an fsync before replying).
 *
 * <p>Owned by the connection's event loop; {@code CLIENT LIST} from another loop reads the volatile
 * fields only.
 */
public final class Session {
  private final long id;
  private final String address;
  private final String localAddress;
  private final long createdMillis = System.currentTimeMillis();
  private final ReplyWriter out;
  private final ServerContext server;

  private volatile String name = "";
  private volatile boolean authenticated;
  private volatile ClientChannel channel = ClientChannel.NONE;
  private volatile boolean monitoring;
  private volatile boolean noEvict;

  /** Its {@code CLIENT TRACKING} options, or null while it does not track ({@link Tracking}). */
  private volatile Tracking.Mode tracking;

  /** {@code CLIENT CACHING} was given for the next command (or the transaction it queues). */
  private volatile boolean cachingGiven;

  private volatile String libName = "";
  private volatile String libVersion = "";

  /** The selected database ({@code SELECT}); volatile for {@code CLIENT LIST} on other loops. */
  private volatile int database;

  // Plain fields: written on every command by the owning loop, read only for CLIENT LIST, where
  // a slightly stale value is fine and a volatile store per command is not.
  private long lastCommandMillis = createdMillis;
  private String lastCommand = "NULL";

  /** Pub/sub subscriptions; made at the first SUBSCRIBE (see {@link PubSub}). */
  private Subscriptions subscriptions;

  private volatile QueuedCommands transaction;
  private WatchedKeys watched;
  private volatile boolean touched;

  /** Set while a blocking command waits ({@link BlockedClients}); on the owning thread. */
  private boolean blocked;

  private boolean script;

  /** {@code READONLY} was sent: on a cluster node, reads may be served by a replica (stale). */
  private boolean clusterReadOnly;

  private boolean closeAfterReply;
  private boolean wroteInBatch;

  /**
   * Writes a value from the log as a bulk reply: made once per connection, so GET allocates none. A
   * transport may put its own in ({@link #bulkReply(ValueSink)}), to write the value straight to
   * where the client reads it.
   */
  ValueSink bulkReply;

  /** Writes MGET's reply from one batch read; made once per connection. */
  final MultiGetReply multiGetReply;

  public Session(
      long id, String address, String localAddress, ReplyWriter out, ServerContext server) {
    this.id = id;
    this.address = address;
    this.localAddress = localAddress;
    this.out = out;
    this.server = server;
    this.authenticated = server.config().requirePass() == null;
    this.bulkReply = out::bulk;
    this.multiGetReply = new MultiGetReply();
  }

  /**
   * Replaces how GET and MGET write the values they found; the sink must write exactly what {@link
   * ReplyWriter#bulk(java.lang.foreign.MemorySegment, long, long)} would, in order with the rest of
   * the output. Set before the connection's first command.
   */
  public void bulkReply(ValueSink sink) {
    this.bulkReply = sink;
  }

  public long id() {
    return id;
  }

  /** The selected database ({@code SELECT}), 0 at first. */
  public int database() {
    return database;
  }

  void database(int index) {
    if (index != 0) {
      server.databases().useSeveral();
    }
    this.database = index;
  }

  public String address() {
    return address;
  }

  public String localAddress() {
    return localAddress;
  }

  public long createdMillis() {
    return createdMillis;
  }

  public ServerContext server() {
    return server;
  }

  public ReplyWriter out() {
    return out;
  }

  public String name() {
    return name;
  }

  public void name(String name) {
    this.name = name;
  }

  public boolean authenticated() {
    return authenticated;
  }

  public void authenticated(boolean value) {
    this.authenticated = value;
  }

  /**
   * Whether this is the session scripts' {@code redis.call} runs commands in (Redis's Lua client).
   */
  boolean script() {
    return script;
  }

  void script(boolean value) {
    this.script = value;
  }

  public long lastCommandMillis() {
    return lastCommandMillis;
  }

  public String lastCommand() {
    return lastCommand;
  }

  public ClientChannel channel() {
    return channel;
  }

  public void channel(ClientChannel channel) {
    this.channel = channel;
  }

  public boolean monitoring() {
    return monitoring;
  }

  void monitoring(boolean on) {
    this.monitoring = on;
  }

  /**
   * The query buffer as {@code CLIENT LIST} shows it ({@code qbuf}, {@code qbuf-free}): the bytes
   * received and not yet consumed when its commands began running, the running ones included, as
   * Redis's buffer holds them until it has run them all. Written by the client's thread, read by
   * any.
   */
  private volatile long queryBuffer;

  /** Notes the query buffer: {@code used} bytes, and {@code free} more it has room for. */
  public void queryBuffer(int used, int free) {
    queryBuffer = ((long) used << 32) | free;
  }

  /** {@code qbuf}. */
  int queryBufferUsed() {
    return (int) (queryBuffer >>> 32);
  }

  /** {@code qbuf-free}. */
  int queryBufferFree() {
    return (int) queryBuffer;
  }

  /** {@code CLIENT REPLY OFF}: no command of this client is answered until {@code ON}. */
  private boolean repliesOff;

  /** {@code CLIENT REPLY SKIP}: the next command is not answered. */
  private boolean skipNext;

  /** Whether the command running now goes unanswered (it follows a SKIP, or is OFF or SKIP). */
  private boolean skipThis;

  /**
   * Called as a command starts: whether its answer is to be dropped by the connection once it ends,
   * as {@code CLIENT REPLY} asked ({@link #dropThisReply} says after the command ran).
   */
  public void commandStarts() {
    skipThis = skipNext;
    skipNext = false;
    push = false;
  }

  /**
   * Whether the command that just ran goes unanswered: {@code CLIENT REPLY OFF} is in force (it was
   * just set, or {@code ON} has not come yet), or it was skipped. Messages pushed to the client
   * (pub/sub) are not answers and still go out, as in Redis.
   */
  public boolean dropThisReply() {
    boolean drop = (repliesOff || skipThis) && !push;
    skipThis = false;
    push = false;
    return drop;
  }

  /** Whether the command running now answers with pushes ({@link #answerIsPush}). */
  private boolean push;

  /**
   * Marks the running command's answer as pushed messages ((un)subscribe confirmations), which
   * Redis sends whatever {@code CLIENT REPLY} says.
   */
  void answerIsPush() {
    push = true;
  }

  /** {@code CLIENT REPLY ON|OFF|SKIP}; OFF and SKIP go unanswered themselves. */
  void replies(String mode) {
    switch (mode) {
      case "on" -> {
        // As Redis: ON is answered even when it is the command a SKIP meant to silence.
        repliesOff = false;
        skipNext = false;
        skipThis = false;
      }
      case "off" -> repliesOff = true;
      default -> {
        skipThis = true;
        skipNext = !repliesOff;
      }
    }
  }

  public boolean noEvict() {
    return noEvict;
  }

  void noEvict(boolean on) {
    this.noEvict = on;
  }

  public String libName() {
    return libName;
  }

  public String libVersion() {
    return libVersion;
  }

  void lib(String name, String version) {
    if (name != null) {
      libName = name;
    }
    if (version != null) {
      libVersion = version;
    }
  }

  /**
   * A container command names its subcommand, so CLIENT LIST shows {@code cmd=client|list} as Redis
   * does; a subcommand that is not a short printable word (it comes from the client) is left out,
   * so that it cannot break the line's {@code name=value} fields.
   */
  void subcommand(String container, String sub) {
    if (sub.length() <= 32 && sub.chars().allMatch(c -> c > ' ' && c < 127 && c != '=')) {
      lastCommand = container + "|" + sub;
    }
  }

  void commandStarted(CommandSpec spec, long nowMillis) {
    lastCommand = spec.name();
    lastCommandMillis = nowMillis;
  }

  /** This client's subscriptions; made when {@code create} and there are none yet, else null. */
  Subscriptions subscriptions(boolean create) {
    if (subscriptions == null && create) {
      subscriptions = new Subscriptions();
    }
    return subscriptions;
  }

  /** Subscribed channels, patterns and shard channels, for {@code CLIENT LIST} (any thread). */
  int[] subscriptionCounts() {
    Subscriptions subs = subscriptions;
    return subs == null
        ? new int[3]
        : new int[] {subs.channels(), subs.patterns(), subs.shardChannels()};
  }

  /** Whether the client holds any subscription (Redis's {@code CLIENT_PUBSUB}). */
  public boolean subscribed() {
    Subscriptions subs = subscriptions;
    return subs != null && subs.any();
  }

  /**
   * A RESP2 client with subscriptions: its connection carries messages, and it may only run the
   * commands that manage them (and PING, QUIT, RESET).
   */
  boolean pubSubOnly() {
    return subscriptions != null && out.protocol() == 2 && subscriptions.any();
  }

  /** The commands queued since {@code MULTI}, or null outside a transaction. */
  QueuedCommands transaction() {
    return transaction;
  }

  void transaction(QueuedCommands queued) {
    this.transaction = queued;
  }

  /** Whether the client is between {@code MULTI} and {@code EXEC}/{@code DISCARD} (any thread). */
  public boolean inTransaction() {
    return transaction != null;
  }

  /** Commands queued in the transaction, -1 outside one (CLIENT LIST's {@code multi}). */
  int queuedCommands() {
    QueuedCommands q = transaction;
    return q == null ? -1 : q.size();
  }

  /** Bytes of the commands queued in the transaction (CLIENT LIST's {@code multi-mem}). */
  long queuedBytes() {
    QueuedCommands q = transaction;
    return q == null ? 0 : q.bytes();
  }

  Tracking.Mode tracking() {
    return tracking;
  }

  void tracking(Tracking.Mode mode) {
    this.tracking = mode;
  }

  boolean cachingGiven() {
    return cachingGiven;
  }

  void cachingGiven(boolean given) {
    this.cachingGiven = given;
  }

  /** The keys this client watches, or null. */
  WatchedKeys watched(boolean create) {
    if (watched == null && create) {
      watched = new WatchedKeys();
      touched = false;
    }
    return watched;
  }

  /** Forgets every watched key ({@code UNWATCH}, and after {@code EXEC} or {@code DISCARD}). */
  void unwatch() {
    WatchedKeys w = watched;
    if (w != null) {
      server.watches().unwatch(this, w.keys());
      watched = null;
    }
    touched = false;
  }

  /** A key this client watches was modified: its EXEC fails (any thread). */
  void watchTouched() {
    touched = true;
  }

  /** Whether a watched key was touched since the watch began. */
  boolean watchedKeyTouched() {
    return touched;
  }

  /** The connection closes once the replies so far are written ({@code QUIT}, protocol error). */
  /** Whether a blocking command of this client waits: its later requests wait behind it. */
  public boolean blocked() {
    return blocked;
  }

  void block() {
    blocked = true;
  }

  void unblock() {
    blocked = false;
  }

  public void closeAfterReply() {
    closeAfterReply = true;
  }

  public boolean closing() {
    return closeAfterReply;
  }

  /**
   * A write command ran in this batch: under {@code appendfsync always} its reply waits for fsync.
   */
  void wrote() {
    wroteInBatch = true;
  }

  /** Whether a write ran since the last call, and resets it. */
  public boolean takeWrote() {
    boolean w = wroteInBatch;
    wroteInBatch = false;
    return w;
  }

  /** Whether this connection said {@code READONLY} (and not {@code READWRITE} since). */
  public boolean clusterReadOnly() {
    return clusterReadOnly;
  }

  void clusterReadOnly(boolean on) {
    clusterReadOnly = on;
  }
}
