package dev.cellar.server.net;

import dev.cellar.server.config.ConfigException;
import dev.cellar.server.config.ServerConfig;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Tries each configured port before the store is opened, so that a port already in use (another
 * server still running, most often) is reported with its address at once, and the data directory is
 * neither created nor locked nor recovered for a server that could not have listened.
 *
 * <p>The ports are bound and released at once: another process could take one between this check
 * and the real bind, and then the listener reports it as before. The check binds as the listener
 * does ({@code SO_REUSEADDR}), so connections of a previous run in TIME_WAIT do not count as use.
 */
public final class PortCheck {
  private PortCheck() {}

  public static void requireFree(ServerConfig config) {
    // -1: off. Plaintext RESP on port 0 takes any free port, which still tells whether the
    // address is one of this machine's.
    Map<String, Integer> ports = new LinkedHashMap<>();
    ports.put("port", config.port() == 0 && config.tlsPort() != 0 ? -1 : config.port());
    ports.put("tls-port", config.tlsPort() == 0 ? -1 : config.tlsPort());
    ports.put("http-port", config.httpPort() == 0 ? -1 : config.httpPort());
    ports.put("https-port", config.httpsPort() == 0 ? -1 : config.httpsPort());
    InetSocketAddress host = new InetSocketAddress(config.bind(), 0);
    if (host.isUnresolved()) {
      throw new ConfigException(
          "cannot resolve the bind address '" + config.bind() + "'; check --bind");
    }
    ports.forEach(
        (setting, port) -> {
          if (port >= 0) {
            tryBind(config.bind(), new InetSocketAddress(host.getAddress(), port), setting);
          }
        });
  }

  private static void tryBind(String host, InetSocketAddress address, String setting) {
    int port = address.getPort();
    try (ServerSocketChannel probe = ServerSocketChannel.open()) {
      probe.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      probe.bind(address);
    } catch (BindException e) {
      String why =
          e.getMessage() != null && e.getMessage().contains("in use")
              ? "address already in use (is another server running there? stop it, or choose another --"
                  + setting
                  + ")"
              : e.getMessage() + " (is " + host + " an address of this machine? check --bind)";
      throw new ConfigException(
          "cannot listen on " + host + ":" + port + " (" + setting + "): " + why);
    } catch (IOException | RuntimeException e) {
      throw new ConfigException(
          "cannot listen on " + host + ":" + port + " (" + setting + "): " + e.getMessage());
    }
  }
}
