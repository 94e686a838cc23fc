package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/** Connection commands: PING ECHO QUIT HELLO AUTH SELECT CLIENT. */
final class ConnectionCommands {
  private ConnectionCommands() {}

  /** The Redis version whose commands and replies this server follows; clients check it. */
  static final String REDIS_COMPAT_VERSION = "7.2.0";

  /**
   * {@link #REDIS_COMPAT_VERSION} as Redis's number: 0x00MMmmpp ({@code redis.REDIS_VERSION_NUM}).
   */
  static final int REDIS_COMPAT_VERSION_NUM = versionNumber(REDIS_COMPAT_VERSION);

  private static int versionNumber(String version) {
    String[] parts = version.split("\\.");
    return Integer.parseInt(parts[0]) << 16
        | Integer.parseInt(parts[1]) << 8
        | Integer.parseInt(parts[2]);
  }

  static void register(CommandTable t) {
    t.add(
            "cellar.ipc",
            1,
            "fast",
            0,
            0,
            0,
            "connection",
            "Where a client on this host finds the shared-memory endpoint: the discovery file and"
                + " the serving process.",
            ConnectionCommands::ipc)
        .add(
            "ping",
            -1,
            "fast stale",
            0,
            0,
            0,
            "connection",
            "Returns the server's liveliness response.",
            ConnectionCommands::ping)
        .add(
            "echo",
            2,
            "fast",
            0,
            0,
            0,
            "connection",
            "Returns the given string.",
            (s, r, o) -> o.bulk(r.buffer(), r.offset(1), r.length(1)))
        .add(
            "quit",
            -1,
            "noauth fast allow_busy",
            0,
            0,
            0,
            "connection",
            "Closes the connection.",
            ConnectionCommands::quit)
        .add(
            "hello",
            -1,
            "noauth fast stale",
            0,
            0,
            0,
            "connection",
            "Handshakes with the Redis server.",
            ConnectionCommands::hello)
        .add(
            "auth",
            -2,
            "noauth fast stale",
            0,
            0,
            0,
            "connection",
            "Authenticates the connection.",
            ConnectionCommands::auth)
        .add(
            "select",
            2,
            "fast stale",
            0,
            0,
            0,
            "connection",
            "Changes the selected database.",
            ConnectionCommands::select)
        .add(
            "reset",
            1,
            "noscript loading stale fast noauth allow_busy",
            0,
            0,
            0,
            "connection",
            "Resets the connection.",
            ConnectionCommands::reset)
        .add(
            "client",
            -2,
            "stale",
            0,
            0,
            0,
            "connection",
            "A container for client connection commands.",
            ConnectionCommands::client);
  }

  static void ping(Session s, Request r, ReplyWriter out) {
    if (r.argc() > 2) {
      throw CommandError.arity("ping");
    }
    if (s.pubSubOnly()) {
      // Redis's answer on a RESP2 connection that carries messages: a message-shaped array.
      out.array(2);
      out.bulk("pong");
      if (r.argc() == 2) {
        out.bulk(r.buffer(), r.offset(1), r.length(1));
      } else {
        out.bulk("");
      }
    } else if (r.argc() == 2) {
      out.bulk(r.buffer(), r.offset(1), r.length(1));
    } else {
      out.simple("PONG");
    }
  }

  /**
   * {@code CELLAR.IPC}: the discovery file's absolute path and the server's pid and start time, so
   * that a client can check that the file it opens belongs to the server it is talking to (and so
   * that it is on the same host).
   */
  static void ipc(Session s, Request r, ReplyWriter out) {
    java.nio.file.Path discovery = s.server().control().ipcDiscovery();
    if (discovery == null) {
      throw new CommandError(
          "ERR shared memory is off on this server (ipc no, or it could not be set up: see its log)");
    }
    ProcessHandle self = ProcessHandle.current();
    out.map(3);
    out.bulk("discovery");
    out.bulk(discovery.toString());
    out.bulk("pid");
    out.integer(self.pid());
    out.bulk("start");
    out.integer(self.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L));
  }

  /**
   * {@code RESET}, as Redis's {@code clearClientConnectionState}: out of MONITOR and every
   * subscription, back to RESP2, the default authentication (none when there is no {@code
   * requirepass}), no name and no no-evict. The library name and version stay: they still describe
   * the client behind the connection.
   */
  static void reset(Session s, Request r, ReplyWriter out) {
    s.server().monitors().remove(s);
    s.monitoring(false);
    s.server().pubsub().leave(s);
    s.transaction(null);
    s.unwatch();
    s.server().tracking().disable(s);
    out.protocol(2);
    s.authenticated(s.server().config().requirePass() == null);
    s.name("");
    s.database(0);
    s.noEvict(false);
    s.channel().noEvict(false);
    out.simple("RESET");
  }

  static void quit(Session s, Request r, ReplyWriter out) {
    out.ok();
    s.closeAfterReply();
  }

  static void hello(Session s, Request r, ReplyWriter out) {
    int protocol = out.protocol();
    int i = 1;
    if (r.argc() >= 2) {
      if (!r.isLong(1)) {
        throw new CommandError("ERR Protocol version is not an integer or out of range");
      }
      long version = r.longValue(1);
      if (version < 2 || version > 3) {
        throw new CommandError("NOPROTO unsupported protocol version");
      }
      protocol = (int) version;
      i = 2;
    }
    String name = null;
    for (; i < r.argc(); i++) {
      if (r.is(i, "auth") && i + 2 < r.argc()) {
        if (!authenticate(s, r.bytes(i + 1), r.bytes(i + 2))) {
          return;
        }
        i += 2;
      } else if (r.is(i, "setname") && i + 1 < r.argc()) {
        name = checkName(r.string(i + 1));
        i++;
      } else {
        throw new CommandError("ERR Syntax error in HELLO option '" + r.string(i) + "'");
      }
    }
    if (!s.authenticated()) {
      throw new CommandError(
          "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time");
    }
    if (name != null) {
      s.name(name);
    }
    out.protocol(protocol);
    out.map(7);
    out.bulk("server");
    out.bulk("redis");
    out.bulk("version");
    out.bulk(REDIS_COMPAT_VERSION);
    out.bulk("proto");
    out.integer(protocol);
    out.bulk("id");
    out.integer(s.id());
    out.bulk("mode");
    out.bulk("standalone");
    out.bulk("role");
    out.bulk("master");
    out.bulk("modules");
    out.array(0);
  }

  static void auth(Session s, Request r, ReplyWriter out) {
    if (r.argc() > 3) {
      throw CommandError.SYNTAX;
    }
    byte[] user = r.argc() == 3 ? r.bytes(1) : "default".getBytes(StandardCharsets.US_ASCII);
    byte[] password = r.bytes(r.argc() - 1);
    if (s.server().config().requirePass() == null && r.argc() == 2) {
      throw new CommandError(
          "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?");
    }
    if (authenticate(s, user, password)) {
      out.ok();
    }
  }

  /**
   * Checks a user and password; throws WRONGPASS when they do not match. The comparison takes the
   * same time whatever the password's content ({@link MessageDigest#isEqual} over digests, so not
   * even its length leaks).
   */
  private static boolean authenticate(Session s, byte[] user, byte[] password) {
    String required = s.server().config().requirePass();
    boolean userOk = java.util.Arrays.equals(user, "default".getBytes(StandardCharsets.US_ASCII));
    boolean passwordOk;
    if (required == null) {
      passwordOk = true; // "default" has no password: any password is accepted, as in Redis
    } else {
      passwordOk =
          MessageDigest.isEqual(
              sha256(password), sha256(required.getBytes(StandardCharsets.UTF_8)));
    }
    if (!(userOk & passwordOk)) {
      throw new CommandError("WRONGPASS invalid username-password pair or user is disabled.");
    }
    s.authenticated(true);
    return true;
  }

  private static byte[] sha256(byte[] b) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(b);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static void select(Session s, Request r, ReplyWriter out) {
    int index = DatabaseCommands.index(s, r, 1);
    if (s.server().inAtomicRun()) {
      // A transaction or script stays in the database it runs in (see DatabaseCommands).
      if (index != s.server().databaseIndex()) {
        DatabaseCommands.requireOutsideAtomicRun(s.server(), "SELECT of another database");
      }
      out.ok();
      return;
    }
    s.database(index);
    out.ok();
  }

  static void client(Session s, Request r, ReplyWriter out) {
    String sub = r.string(1).toLowerCase(java.util.Locale.ROOT);
    s.subcommand("client", sub);
    switch (sub) {
      case "kill" -> ClientKill.run(s, r, out);
      case "no-evict" -> {
        ServerCommands.requireArity(r, "client", sub, 3);
        if (r.is(2, "on")) {
          s.noEvict(true);
          s.channel().noEvict(true);
        } else if (r.is(2, "off")) {
          s.noEvict(false);
          s.channel().noEvict(false);
        } else {
          throw CommandError.SYNTAX;
        }
        out.ok();
      }
      case "reply" -> {
        ServerCommands.requireArity(r, "client", sub, 3);
        String mode = r.string(2).toLowerCase(java.util.Locale.ROOT);
        if (!mode.equals("on") && !mode.equals("off") && !mode.equals("skip")) {
          throw CommandError.SYNTAX;
        }
        s.replies(mode);
        if (mode.equals("on")) {
          out.ok();
        }
      }
      case "setname" -> {
        ServerCommands.requireArity(r, "client", sub, 3);
        s.name(checkName(r.string(2)));
        out.ok();
      }
      case "getname" -> {
        ServerCommands.requireArity(r, "client", sub, 2);
        if (s.name().isEmpty()) {
          out.nullBulk();
        } else {
          out.bulk(s.name());
        }
      }
      case "id" -> {
        ServerCommands.requireArity(r, "client", sub, 2);
        out.integer(s.id());
      }
      case "list" -> clientList(s, r, out);
      case "tracking" -> {
        ServerCommands.requireArity(r, "client", sub, -3);
        ClientTracking.tracking(s, r, out);
      }
      case "caching" -> {
        ServerCommands.requireArity(r, "client", sub, 3);
        ClientTracking.caching(s, r, out);
      }
      case "getredir" -> {
        ServerCommands.requireArity(r, "client", sub, 2);
        ClientTracking.getRedir(s, out);
      }
      case "trackinginfo" -> {
        ServerCommands.requireArity(r, "client", sub, 2);
        ClientTracking.trackingInfo(s, out);
      }
      case "unblock" -> {
        if (r.argc() > 4) {
          throw new CommandError(
              "ERR unknown subcommand or wrong number of arguments for 'unblock'. Try CLIENT"
                  + " HELP.");
        }
        boolean error = false;
        if (r.argc() == 4) {
          if (r.is(3, "error")) {
            error = true;
          } else if (!r.is(3, "timeout")) {
            throw new CommandError("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
          }
        }
        if (!r.isLong(2)) {
          throw CommandError.NOT_INTEGER;
        }
        out.integer(s.server().blocked().unblock(r.longValue(2), error) ? 1 : 0);
      }
      case "info" -> {
        ServerCommands.requireArity(r, "client", sub, 2);
        out.verbatim(describe(s) + "\n");
      }
      case "setinfo" -> {
        // Client libraries announce their name and version (Jedis, Lettuce, redis-py do).
        ServerCommands.requireArity(r, "client", sub, 4);
        if (!r.is(2, "lib-name") && !r.is(2, "lib-ver")) {
          throw new CommandError("ERR Unrecognized option '" + r.string(2) + "'");
        }
        if (!isPrintableWord(r.string(3))) {
          throw new CommandError(
              "ERR " + r.string(2) + " cannot contain spaces, newlines or special characters.");
        }
        s.lib(r.is(2, "lib-name") ? r.string(3) : null, r.is(2, "lib-ver") ? r.string(3) : null);
        out.ok();
      }
      case "help" -> {
        ServerCommands.requireArity(r, "client", sub, 2);
        String[] lines = {
          "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
          "CACHING (YES|NO)",
          "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
          "GETREDIR",
          "    Return the client ID we are redirecting to when tracking is enabled.",
          "GETNAME",
          "    Return the name of the current connection.",
          "ID",
          "    Return the ID of the current connection.",
          "INFO",
          "    Return information about the current client connection.",
          "KILL <ip:port>",
          "    Kill connection made from <ip:port>.",
          "KILL <option> <value> [<option> <value> [...]]",
          "    Kill connections. Options are:",
          "    * ADDR (<ip:port>|<unixsocket>:0)",
          "      Kill connections made from the specified address",
          "    * LADDR (<ip:port>|<unixsocket>:0)",
          "      Kill connections made to specified local address",
          "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
          "      Kill connections by type.",
          "    * USER <username>",
          "      Kill connections authenticated by <username>.",
          "    * SKIPME (YES|NO)",
          "      Skip killing current connection (default: yes).",
          "    * ID <client-id>",
          "      Kill connections by client id.",
          "LIST [TYPE (NORMAL|MASTER|REPLICA|PUBSUB)] [ID <id> [<id> ...]]",
          "    Return information about client connections.",
          "REPLY (ON|OFF|SKIP)",
          "    Control the replies sent to the current connection.",
          "UNBLOCK <clientid> [TIMEOUT|ERROR]",
          "    Unblock the specified blocked client.",
          "SETINFO <option> <value>",
          "    Set client meta attr. Options are: LIB-NAME, LIB-VER.",
          "SETNAME <name>",
          "    Assign the name <name> to the current connection.",
          "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
          "         [OPTIN] [OPTOUT] [NOLOOP]",
          "    Control server assisted client side caching.",
          "TRACKINGINFO",
          "    Report tracking status for the current connection.",
          "NO-EVICT (ON|OFF)",
          "    Protect current client connection from eviction.",
          "HELP",
          "    Print this help."
        };
        out.simpleLines(lines);
      }
      default ->
          throw new CommandError("ERR unknown subcommand '" + r.string(1) + "'. Try CLIENT HELP.");
    }
  }

  /** {@code CLIENT LIST [TYPE type] [ID id ...]}: every connection here is of type normal. */
  private static void clientList(Session s, Request r, ReplyWriter out) {
    int argc = r.argc();
    java.util.function.Predicate<Session> wanted = other -> true;
    if (argc == 4 && r.is(2, "type")) {
      String type = r.string(3).toLowerCase(java.util.Locale.ROOT);
      if (!java.util.List.of("normal", "master", "replica", "slave", "pubsub").contains(type)) {
        throw new CommandError("ERR Unknown client type '" + r.string(3) + "'");
      }
      wanted = other -> type.equals(clientType(other));
    } else if (argc > 3 && r.is(2, "id")) {
      java.util.Set<Long> ids = new java.util.HashSet<>();
      for (int i = 3; i < argc; i++) {
        if (!r.isLong(i)) {
          throw new CommandError("ERR Invalid client ID");
        }
        ids.add(r.longValue(i));
      }
      wanted = other -> ids.contains(other.id());
    } else if (argc != 2) {
      throw CommandError.SYNTAX;
    }
    StringBuilder text = new StringBuilder();
    for (Session other : s.server().clients().all()) {
      if (wanted.test(other)) {
        text.append(describe(other)).append('\n');
      }
    }
    out.verbatim(text.toString());
  }

  private static String checkName(String name) {
    if (!isPrintableWord(name)) {
      throw new CommandError(
          "ERR Client names cannot contain spaces, newlines or special characters.");
    }
    return name;
  }

  /** Only printable ASCII other than space, as Redis requires of client names and library info. */
  private static boolean isPrintableWord(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '!' || c > '~') {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code CLIENT LIST}'s tracking flags: {@code t} tracking, {@code R} broken redirect, {@code B}
   * broadcast.
   */
  private static String trackingFlags(Tracking.Mode mode) {
    if (mode == null) {
      return "";
    }
    return "t" + (mode.redirectBroken ? "R" : "") + (mode.bcast ? "B" : "");
  }

  /**
   * Redis's client type: {@code pubsub} while subscribed, else {@code normal} (no replicas here).
   */
  static String clientType(Session s) {
    return s.subscribed() ? "pubsub" : "normal";
  }

  /**
   * One {@code CLIENT LIST} line, with Redis 7.2's fields in its order. Flags: {@code O}
   * monitoring, {@code e} no-evict, else {@code N}. {@code fd} is -1 under NIO, which does not
   * expose it; {@code tot-mem} is what the client's buffers hold (its {@code maxmemory-clients}
   * account) and the per-buffer fields are zero.
   */
  static String describe(Session s) {
    long now = System.currentTimeMillis();
    int[] subs = s.subscriptionCounts();
    String flags =
        (s.monitoring() ? "O" : "")
            + (subs[0] + subs[1] + subs[2] > 0 ? "P" : "")
            + (s.inTransaction() ? "x" : "")
            + trackingFlags(s.tracking())
            + (s.noEvict() ? "e" : "");
    return "id="
        + s.id()
        + " addr="
        + s.address()
        + " laddr="
        + s.localAddress()
        + " fd="
        + s.channel().fd()
        + " name="
        + s.name()
        + " age="
        + (now - s.createdMillis()) / 1000
        + " idle="
        + (now - s.lastCommandMillis()) / 1000
        + " flags="
        + (flags.isEmpty() ? "N" : flags)
        + " db="
        + s.database()
        + " sub="
        + subs[0]
        + " psub="
        + subs[1]
        + " ssub="
        + subs[2]
        + " multi="
        + s.queuedCommands()
        + " qbuf="
        + s.queryBufferUsed()
        + " qbuf-free="
        + s.queryBufferFree()
        + " argv-mem=0 multi-mem="
        + s.queuedBytes()
        + " rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem="
        + s.channel().memory()
        + " events=r"
        + " cmd="
        + s.lastCommand()
        + " user=default redir=-1 resp="
        + s.out().protocol()
        + " lib-name="
        + s.libName()
        + " lib-ver="
        + s.libVersion();
  }
}
