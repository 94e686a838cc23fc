package dev.cellar.server.net;

import dev.cellar.server.command.AccessTracker;
import dev.cellar.server.command.ClientMemory;
import dev.cellar.server.command.Dispatcher;
import dev.cellar.server.command.ServerContext;
import dev.cellar.server.command.Session;
import dev.cellar.server.config.ServerConfig;
import dev.cellar.server.resp.ProtocolException;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import dev.cellar.server.resp.RequestParser;

/**
 * One client's requests as they arrive, whatever carries them (a socket, a shared-memory ring): the
 * query buffer, the incremental parser, and the run that parses requests ahead, prefetches their
 * keys and executes them through the {@link Dispatcher} into the client's {@link ReplyWriter}.
 * Every transport serves through this class, so that a request means the same and meets the same
 * limits however it came.
 *
 * <h2>The query buffer</h2>
 *
 * A growable heap array: the transport {@link #reserve}s room, copies what arrived to {@link
 * #end()}, and calls {@link #appended}. Growth is bounded by {@code client-query-buffer-limit} and
 * counted against {@code maxmemory-clients} (through the {@link Host}); either refusal answers an
 * error and closes the client after the reply. A buffer grows by doubling from what arrived, never
 * from what a header announces, so a client that announces a large bulk and sends nothing makes the
 * server allocate nothing; once a large request has passed, the buffer is given back.
 *
 * <h2>The run</h2>
 *
 * Requests are parsed up to {@link #LOOKAHEAD} ahead, so that when a client pipelines, the engine
 * can prefetch the keys of the whole run at once ({@link dev.cellar.Cellar#prefetch}): their cache
 * misses then overlap instead of each command waiting for its own. A malformed request ends the
 * run; the requests before it are executed and answered first, as when they were parsed one at a
 * time, then the protocol error is answered and the client closed.
 *
 * <p>Owned by the thread that serves the client (its event loop or agent).
 */
final class RequestStream {
  /** What the transport provides. */
  interface Host {
    /**
     * Sets the client's share of {@code maxmemory-clients} to its buffers, the query buffer taken
     * as {@code inCapacity} bytes; false when that does not fit and this client holds the most.
     */
    boolean account(int inCapacity);

    /** The output of the run so far is over {@link #FLUSH_THRESHOLD}: send it now. */
    void flushOutput();

    /** The client's share of {@code maxmemory-clients}. */
    ClientMemory.Account memory();
  }

  /** Above this much pending output in one run, it is sent rather than let the array grow. */
  static final int FLUSH_THRESHOLD = 64 * 1024;

  static final int INITIAL_INPUT = 16 * 1024;
  static final int LOOKAHEAD = 32;

  private static final System.Logger LOG = System.getLogger("dev.cellar.server");

  private final ServerContext server;
  private final Dispatcher dispatcher;
  private final RequestParser parser;
  private final Session session;
  private final ReplyWriter out;
  private final Host host;

  /** Requests parsed ahead of execution, at most {@link #LOOKAHEAD}; see {@link #process}. */
  private Request[] pending = new Request[1];

  private final int[] ends = new int[LOOKAHEAD];

  /** The ranges of the input that hold the keys to prefetch; see {@link #prefetch}. */
  private final long[] prefetchOffsets = new long[LOOKAHEAD];

  private final long[] prefetchLengths = new long[LOOKAHEAD];

  /** Scratch for the access tracker's run of key hashes (see {@link AccessTracker#touchRun}). */
  private final long[] keyHashes = new long[AccessTracker.RUN];

  /** What the engine's prefetch read; kept so the reads are not optimised away. */
  private long prefetchDigest;

  private byte[] in = new byte[INITIAL_INPUT];
  private int inStart;
  private int inEnd;

  /** Replies in {@link #out} since {@link #takeReplies()}. */
  private int replies;

  RequestStream(
      ServerContext server,
      Dispatcher dispatcher,
      RequestParser parser,
      Session session,
      ReplyWriter out,
      Host host) {
    this.server = server;
    this.dispatcher = dispatcher;
    this.parser = parser;
    this.session = session;
    this.out = out;
    this.host = host;
  }

  /** The query buffer's size, for the client's memory share. */
  int capacity() {
    return in.length;
  }

  /** Replies written since the last call (every command answers once, except SHUTDOWN). */
  /** A reply written outside a run (a blocked command answered later) counts as one. */
  void answered() {
    replies++;
  }

  int takeReplies() {
    int count = replies;
    replies = 0;
    return count;
  }

  /** Counts a reply the transport wrote itself. */
  void countReply() {
    replies++;
  }

  /** The query buffer: after {@link #reserve}, copy the bytes that arrived to {@link #end()}. */
  byte[] buffer() {
    return in;
  }

  int end() {
    return inEnd;
  }

  void appended(int n) {
    inEnd += n;
  }

  /**
   * Makes room for {@code n} more bytes at {@link #end()}; false when the client may not have it
   * (the error is answered and the client closes after it: drop the bytes).
   */
  boolean reserve(int n) {
    if (inEnd + n <= in.length) {
      return true;
    }
    int pending = inEnd - inStart;
    if (pending + (long) n > server.config().maxQueryBuffer()) {
      LOG.log(
          System.Logger.Level.WARNING,
          "closing client " + session.address() + ": query buffer over client-query-buffer-limit");
      refuse("ERR Protocol error: query buffer over client-query-buffer-limit");
      return false;
    }
    if (pending + n <= in.length) {
      System.arraycopy(in, inStart, in, 0, pending);
    } else {
      // Grow by what arrived, not by what a header claims: a client that announces a large
      // bulk and sends nothing makes the server allocate nothing.
      int length =
          QueryBufferGrowth.grown(in.length, pending + (long) n, server.config().maxQueryBuffer());
      // Both arrays are live while the bytes are copied, so both are counted.
      if (!host.account(in.length + length)) {
        server
            .clientMemory()
            .evictedSelf(host.memory(), "its request needs a query buffer of " + length + " bytes");
        refuse(
            "ERR client buffers over maxmemory-clients: this request does not fit now; send it again later or in parts");
        return false;
      }
      byte[] bigger = new byte[length];
      System.arraycopy(in, inStart, bigger, 0, pending);
      in = bigger;
      host.account(in.length);
    }
    parser.moved(inStart, in, 0);
    inStart = 0;
    inEnd = pending;
    return true;
  }

  private void refuse(String error) {
    out.error(error);
    replies++;
    session.closeAfterReply();
    inStart = inEnd = 0;
  }

  /**
   * Executes every complete request in the buffer, in order; a malformed one is answered with the
   * protocol error after those before it, and the client closes after the reply.
   */
  void process() {
    try {
      run();
    } catch (ProtocolException e) {
      server.stats().protocolErrors.increment();
      refuse("ERR Protocol error: " + e.getMessage());
    }
  }

  private void run() throws ProtocolException {
    session.queryBuffer(inEnd - inStart, in.length - inEnd);
    try {
      runBuffered();
    } finally {
      session.queryBuffer(inEnd - inStart, in.length - inEnd);
    }
  }

  private void runBuffered() throws ProtocolException {
    while (inStart < inEnd && !session.closing() && !session.blocked()) {
      int parsed = 0;
      int position = inStart;
      boolean needMore = false;
      ProtocolException malformed = null;
      // Before AUTH, one request at a time: the limits on its size depend on whether the request
      // before it (an AUTH) succeeded, as in Redis.
      boolean authenticated = session.authenticated();
      int lookahead = authenticated ? LOOKAHEAD : 1;
      parser.authenticated(authenticated);
      try {
        while (parsed < lookahead) {
          Request r = pending(parsed);
          int next = parser.parse(in, position, inEnd, r);
          if (next == RequestParser.NEED_MORE) {
            needMore = true;
            break;
          }
          position = next;
          if (r.argc() > 0) {
            ends[parsed++] = next;
          }
        }
      } catch (ProtocolException e) {
        malformed = e;
      }
      if (parsed > 1 && session.authenticated()) {
        prefetch(parsed);
      }
      ServerConfig.EvictionPolicy policy = server.config().evictionPolicy();
      if ((policy.lru() || policy.lfu()) && parsed > 0 && session.authenticated()) {
        prefetchDigest ^=
            server
                .accessTracker()
                .touchRun(server.commands(), pending, parsed, policy.lfu(), keyHashes);
      }
      long now = System.nanoTime();
      long batchMillis = System.currentTimeMillis();
      for (int i = 0; i < parsed && !session.closing() && !session.blocked(); i++) {
        inStart = ends[i];
        int before = out.size();
        session.commandStarts();
        now = dispatcher.execute(session, pending[i], out, now, batchMillis);
        if (session.dropThisReply()) {
          out.truncate(before); // CLIENT REPLY OFF or SKIP
        }
        if (out.size() > before) {
          replies++; // every command answers once, except SHUTDOWN, which closes instead
        }
        if (out.size() >= FLUSH_THRESHOLD) {
          host.flushOutput();
        }
      }
      if (session.closing() || session.blocked()) {
        // Blocked: the requests after the blocking one are parsed again once it is answered.
        break;
      }
      inStart = position; // past empty requests after the last command too
      if (malformed != null) {
        throw malformed;
      }
      if (needMore) {
        if (parsed > 0) {
          // The incomplete request goes first next time, so that the parser resumes it there.
          Request partial = pending[parsed];
          pending[parsed] = pending[0];
          pending[0] = partial;
        }
        break;
      }
    }
    if (inStart == inEnd) {
      inStart = inEnd = 0;
      if (in.length > 1 << 20) {
        in = new byte[INITIAL_INPUT]; // a large request has passed: give the memory back
        host.account(in.length);
      }
    }
  }

  /** The lookahead's request {@code i}; allocated on first use, so idle connections stay small. */
  private Request pending(int i) {
    if (i == pending.length) {
      pending = java.util.Arrays.copyOf(pending, Math.min(LOOKAHEAD, i * 2));
    }
    Request r = pending[i];
    if (r == null) {
      r = pending[i] = new Request();
    }
    return r;
  }

  private void prefetch(int count) {
    int keys = 0;
    for (int i = 0; i < count; i++) {
      if (pending[i].argc() >= 2) {
        prefetchOffsets[keys] = pending[i].offset(1); // the first key of most commands
        prefetchLengths[keys++] = pending[i].length(1);
      }
    }
    prefetchDigest ^=
        server.store().prefetch(pending[0].input(), prefetchOffsets, prefetchLengths, keys);
  }
}
