package dev.cellar.server.config;

/** A configuration value or file the server cannot use; the message names the setting and why. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }
}
