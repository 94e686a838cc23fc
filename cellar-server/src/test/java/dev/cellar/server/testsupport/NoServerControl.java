package dev.cellar.server.testsupport;

import dev.cellar.server.command.ServerControl;

/** A server's controls for commands run without a server around them: nothing runs, ports are 0. */
public final class NoServerControl implements ServerControl {
  @Override
  public void shutdownAsync() {}

  @Override
  public boolean checkpointAsync() {
    return false;
  }

  @Override
  public boolean compactAsync() {
    return false;
  }

  @Override
  public boolean checkpointRunning() {
    return false;
  }

  @Override
  public boolean compactionRunning() {
    return false;
  }

  @Override
  public String transport() {
    return "none";
  }

  @Override
  public int port() {
    return 0;
  }

  @Override
  public int httpPort() {
    return 0;
  }

  @Override
  public int tlsPort() {
    return 0;
  }

  @Override
  public int httpsPort() {
    return 0;
  }
}
