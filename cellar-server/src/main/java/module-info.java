/**
 * Cellar's server: RESP and HTTP over Netty, on the engine's public API only ({@code
 * dev.cellar.core} exports nothing else, so a reach past it does not compile).
 *
 * <p>Exported to the command line: the server itself, its configuration and its logging. Exported
 * to the cluster module ({@code cellar-cluster}, on the class path): {@code
 * dev.cellar.server.cluster}, the seam through which a cluster node routes keyed commands, which it
 * provides as a service.
 *
 * <p>LuaJ (scripting) is not a module and cannot be one (its jar has classes in the unnamed
 * package), so it stays on the class path, and the build lets this module read it there ({@code
 * --add-reads dev.cellar.server=ALL-UNNAMED}, compile time only: the server runs from the class
 * path).
 */
module dev.cellar.server {
  requires dev.cellar.core;
  requires dev.cellar.ipc;
  requires dev.cellar.backup;
  requires io.netty.common;
  requires io.netty.buffer;
  requires io.netty.transport;
  requires io.netty.handler;
  requires io.netty.codec;
  requires io.netty.codec.http;
  requires io.netty.transport.unix.common;
  requires io.netty.transport.classes.epoll;
  requires io.netty.transport.classes.io_uring;
  requires io.prometheus.metrics.config;
  requires io.prometheus.metrics.core;
  requires io.prometheus.metrics.model;
  requires io.prometheus.writer.text;
  requires java.logging;
  requires java.management;
  requires jdk.management;

  exports dev.cellar.server;
  exports dev.cellar.server.cluster;
  exports dev.cellar.server.config;
  exports dev.cellar.server.log;

  uses dev.cellar.server.cluster.ClusterRoutingProvider;
}
