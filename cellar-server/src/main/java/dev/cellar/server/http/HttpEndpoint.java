package dev.cellar.server.http;

import dev.cellar.server.command.ServerContext;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;

/** The HTTP interface (not yet built: binding it fails). */
public final class HttpEndpoint {
  private HttpEndpoint() {}

  public static Channel bind(ServerContext server, EventLoopGroup loops, Class<? extends ServerChannel> channelClass, String host, int port) {
    throw new UnsupportedOperationException("the HTTP interface is not built yet; start with --http-port 0");
  }
}
