package dev.cellar.bench.ipc;

import dev.cellar.client.ClientTransport;
import java.util.Locale;

/**
 * The transports compared, each with the client option that forces it and the prefix {@code
 * CellarClient.transport()} reports for it, so a run cannot silently measure the other one.
 */
enum IpcTransport {
  SHM(ClientTransport.SHARED_MEMORY, "shm:"),
  TCP(ClientTransport.TCP, "tcp://");

  private final ClientTransport option;
  private final String reportedPrefix;

  IpcTransport(ClientTransport option, String reportedPrefix) {
    this.option = option;
    this.reportedPrefix = reportedPrefix;
  }

  /** The name in results and on the command line. */
  String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  ClientTransport option() {
    return option;
  }

  /** Whether {@code CellarClient.transport()} says this transport is the one in use. */
  boolean isInUse(String reported) {
    return reported.startsWith(reportedPrefix);
  }

  static IpcTransport parse(String id) {
    for (IpcTransport t : values()) {
      if (t.id().equals(id.trim().toLowerCase(Locale.ROOT))) {
        return t;
      }
    }
    throw new IllegalArgumentException("unknown transport '" + id + "': expected shm or tcp");
  }
}
