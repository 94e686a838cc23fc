package dev.cellar.client;

/** How a {@link CellarClient} reaches its server ({@link ClientOptions#withTransport}). */
public enum ClientTransport {
  /**
   * Shared memory when the server runs on this host, offers it ({@code ipc yes}, its default) and
   * its files are readable by this user; TCP otherwise. Decided when the client connects.
   */
  AUTO,
  /** TCP always. */
  TCP,
  /** Shared memory, or fail to connect (for a caller that must not fall back to TCP). */
  SHARED_MEMORY
}
