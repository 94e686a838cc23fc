package dev.cellar.client;

import dev.cellar.client.transport.Connector;
import dev.cellar.client.transport.ShmConnector;
import dev.cellar.ipc.Discovery;
import dev.cellar.ipc.ProcessIdentity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Whether a server reached over TCP can be reached through shared memory instead, and how. Asks the
 * server {@code CELLAR.IPC} (over a TCP connection with the client's credentials: the command needs
 * them as any other does), then checks that the discovery file it names is readable here and was
 * written by that very process (pid and start time): a server on another host names a path that is
 * absent here, or that belongs to another process.
 */
final class SharedMemoryRoute {
  private SharedMemoryRoute() {}

  /**
   * The connector to use: shared memory when it checks out (with {@code tcp} as the fallback for
   * reconnections when {@code required} is false), else {@code tcp}; or, when {@code required}, an
   * exception saying why not.
   */
  static Connector choose(Connector tcp, ClientOptions options, boolean required) {
    String why;
    CellarClient probe;
    try {
      probe = CellarClient.connect(tcp, options.withTransport(ClientTransport.TCP));
      probe.ping(); // the handshake: a wrong password is the caller's to see, as over TCP
    } catch (CellarConnectionException e) {
      if (required) {
        throw e;
      }
      return tcp; // the connection proper will meet the same trouble and report it
    }
    try (probe) {
      Reply reply = probe.command("CELLAR.IPC");
      why = check(reply);
      if (why == null) {
        Path discovery = discoveryOf(reply);
        return new ShmConnector(
            discovery, options.ringBytes(), options.connectTimeout(), required ? null : tcp);
      }
    } catch (CellarServerException e) {
      why = e.getMessage(); // a server without CELLAR.IPC (an older Cellar, a Redis)
    }
    if (required) {
      throw new CellarConnectionException(
          "shared memory is not available from " + tcp.describe() + ": " + why, null);
    }
    return tcp;
  }

  /** Null if the reply names a discovery file of this host's serving process, else why not. */
  private static String check(Reply reply) {
    if (!(reply instanceof Reply.MapReply map)) {
      return "the server's CELLAR.IPC reply is not a map: " + reply;
    }
    Path discovery = discoveryOf(reply);
    long pid = number(map.entries(), "pid");
    long start = number(map.entries(), "start");
    if (discovery == null || !Files.isReadable(discovery)) {
      return "its discovery file " + discovery + " is not readable here (another host, or user)";
    }
    try (Discovery d = Discovery.open(discovery.getParent())) {
      ProcessIdentity server = d.server();
      if (server.pid() != pid || server.startMillis() != start) {
        return discovery + " belongs to another process than the server's (another host?)";
      }
      if (!d.serving()) {
        return discovery + " says its server is not serving";
      }
      return null;
    } catch (IOException | RuntimeException e) {
      return "its discovery file cannot be used: " + e.getMessage();
    }
  }

  private static Path discoveryOf(Reply reply) {
    if (reply instanceof Reply.MapReply map
        && map.entries().get(bulk("discovery")) instanceof Reply.Bulk path) {
      return Path.of(new String(path.bytes(), StandardCharsets.UTF_8));
    }
    return null;
  }

  private static long number(Map<Reply, Reply> entries, String key) {
    return entries.get(bulk(key)) instanceof Reply.Int n ? n.value() : -1;
  }

  private static Reply bulk(String text) {
    return new Reply.Bulk(text.getBytes(StandardCharsets.UTF_8));
  }
}
