package dev.cellar.server.command;

import java.util.Arrays;

/** A pub/sub channel or pattern: its bytes, compared by content, with the hash computed once. */
final class ChannelName {
  private final byte[] bytes;
  private final int hash;

  ChannelName(byte[] bytes) {
    this.bytes = bytes;
    this.hash = Arrays.hashCode(bytes);
  }

  byte[] bytes() {
    return bytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ChannelName other
        && hash == other.hash
        && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return hash;
  }
}
