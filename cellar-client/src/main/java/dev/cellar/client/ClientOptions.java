package dev.cellar.client;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link CellarClient} connects, authenticates, waits and reconnects. Immutable; each {@code
 * with} method returns a copy. A user and password given here win over those in the URI.
 */
public final class ClientOptions {
  private final String user;
  private final String password;
  private final String clientName;
  private final Duration connectTimeout;
  private final Duration responseTimeout;
  private final Duration reconnectTimeout;
  private final Duration backoffMin;
  private final Duration backoffMax;
  private final ClientTransport transport;
  private final int ringBytes;

  private ClientOptions(
      String user,
      String password,
      String clientName,
      Duration connectTimeout,
      Duration responseTimeout,
      Duration reconnectTimeout,
      Duration backoffMin,
      Duration backoffMax,
      ClientTransport transport,
      int ringBytes) {
    this.user = user;
    this.password = password;
    this.clientName = clientName;
    this.connectTimeout = connectTimeout;
    this.responseTimeout = responseTimeout;
    this.reconnectTimeout = reconnectTimeout;
    this.backoffMin = backoffMin;
    this.backoffMax = backoffMax;
    this.transport = transport;
    this.ringBytes = ringBytes;
  }

  /**
   * No credentials; connect within 2 s; a reply within 30 s; after a lost connection, keep trying
   * to connect again for up to 2 s per call, waiting 10 ms, then twice as long each time up to 500
   * ms, between attempts.
   */
  public static ClientOptions defaults() {
    return new ClientOptions(
        null,
        null,
        null,
        Duration.ofSeconds(2),
        Duration.ofSeconds(30),
        Duration.ofSeconds(2),
        Duration.ofMillis(10),
        Duration.ofMillis(500),
        ClientTransport.AUTO,
        1 << 20);
  }

  /** {@code AUTH user password} in the handshake; the user is {@code default} if null. */
  public ClientOptions withCredentials(String user, String password) {
    return new ClientOptions(
        user,
        Objects.requireNonNull(password, "password"),
        clientName,
        connectTimeout,
        responseTimeout,
        reconnectTimeout,
        backoffMin,
        backoffMax,
        transport,
        ringBytes);
  }

  /** {@code SETNAME name} in the handshake: what {@code CLIENT LIST} shows. */
  public ClientOptions withClientName(String name) {
    return new ClientOptions(
        user,
        password,
        name,
        connectTimeout,
        responseTimeout,
        reconnectTimeout,
        backoffMin,
        backoffMax,
        transport,
        ringBytes);
  }

  /** How long one attempt to connect may take. */
  public ClientOptions withConnectTimeout(Duration timeout) {
    return new ClientOptions(
        user,
        password,
        clientName,
        positive(timeout, "connect timeout"),
        responseTimeout,
        reconnectTimeout,
        backoffMin,
        backoffMax,
        transport,
        ringBytes);
  }

  /**
   * How long a call waits for its reply before it fails; the connection is then closed, since the
   * reply may still come. Asynchronous commands fail their future instead and keep the connection.
   */
  public ClientOptions withResponseTimeout(Duration timeout) {
    return new ClientOptions(
        user,
        password,
        clientName,
        connectTimeout,
        positive(timeout, "response timeout"),
        reconnectTimeout,
        backoffMin,
        backoffMax,
        transport,
        ringBytes);
  }

  /**
   * How long a call that finds no connection keeps trying to open one before it fails, and the
   * waits between attempts: {@code min}, doubling up to {@code max}.
   */
  public ClientOptions withReconnect(Duration timeout, Duration min, Duration max) {
    if (max.compareTo(min) < 0) {
      throw new IllegalArgumentException(
          "the longest wait between attempts (" + max + ") is below the shortest (" + min + ")");
    }
    return new ClientOptions(
        user,
        password,
        clientName,
        connectTimeout,
        responseTimeout,
        notNegative(timeout, "reconnect timeout"),
        positive(min, "shortest wait between attempts"),
        max,
        transport,
        ringBytes);
  }

  /**
   * Which transport to use: {@link ClientTransport#AUTO} (the default) takes shared memory when the
   * server is on this host and offers it, TCP otherwise.
   */
  public ClientOptions withTransport(ClientTransport transport) {
    return new ClientOptions(
        user,
        password,
        clientName,
        connectTimeout,
        responseTimeout,
        reconnectTimeout,
        backoffMin,
        backoffMax,
        Objects.requireNonNull(transport, "transport"),
        ringBytes);
  }

  /**
   * The size of each of a shared-memory connection's two rings: a power of two from 4 KiB to 64 MiB
   * (the server may cap it; default 1 MiB). A request or reply larger than half of it is sent in
   * parts.
   */
  public ClientOptions withRingBytes(int bytes) {
    if (bytes < 4096 || bytes > 64 << 20 || Integer.bitCount(bytes) != 1) {
      throw new IllegalArgumentException(
          "a ring of " + bytes + " bytes: use a power of two from 4096 to 67108864");
    }
    return new ClientOptions(
        user,
        password,
        clientName,
        connectTimeout,
        responseTimeout,
        reconnectTimeout,
        backoffMin,
        backoffMax,
        transport,
        bytes);
  }

  public ClientTransport transport() {
    return transport;
  }

  public int ringBytes() {
    return ringBytes;
  }

  public String user() {
    return user;
  }

  public String password() {
    return password;
  }

  public String clientName() {
    return clientName;
  }

  public Duration connectTimeout() {
    return connectTimeout;
  }

  public Duration responseTimeout() {
    return responseTimeout;
  }

  public Duration reconnectTimeout() {
    return reconnectTimeout;
  }

  public Duration backoffMin() {
    return backoffMin;
  }

  public Duration backoffMax() {
    return backoffMax;
  }

  private static Duration positive(Duration d, String what) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("the " + what + " must be positive, not " + d);
    }
    return d;
  }

  private static Duration notNegative(Duration d, String what) {
    if (d.isNegative()) {
      throw new IllegalArgumentException("the " + what + " must not be negative, not " + d);
    }
    return d;
  }

  @Override
  public String toString() {
    return "ClientOptions[user="
        + user
        + ", password="
        + (password == null ? "none" : "<redacted>")
        + ", connectTimeout="
        + connectTimeout
        + ", responseTimeout="
        + responseTimeout
        + ", reconnectTimeout="
        + reconnectTimeout
        + "]";
  }
}
