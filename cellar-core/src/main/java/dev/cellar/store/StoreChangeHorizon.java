package dev.cellar.store;

import dev.cellar.log.LogWriter;
import dev.cellar.stream.ChangeHorizon;

/**
 * What a change stream of this store may deliver: what the fsync policy acknowledges. Under {@code
 * always} that is the durable changes, so a follower never holds a change a crash could take back
 * (and whose sequence number the store would then give to another change); a stream waiting for
 * appended changes asks group commit for their fsync itself, sharing it with the writers, so it
 * never waits on an fsync nobody requested. Under {@code everysec} and {@code no}, where a write is
 * acknowledged once appended, it is every appended change, as soon as it is appended.
 */
final class StoreChangeHorizon implements ChangeHorizon {
  private final boolean durableOnly;
  private final LogWriter log;
  private final Durability durability;
  private final StoreHealth health;

  StoreChangeHorizon(
      boolean durableOnly, LogWriter log, Durability durability, StoreHealth health) {
    this.durableOnly = durableOnly;
    this.log = log;
    this.durability = durability;
    this.health = health;
  }

  @Override
  public long visibleSeq() {
    return durableOnly ? durability.durableSeq() : log.appendedSeq();
  }

  @Override
  public long appendedSeq() {
    return log.appendedSeq();
  }

  @Override
  public void awaitVisible(long seq, long timeoutNanos) {
    try {
      if (!log.appendSignal().await(() -> log.appendedSeq() >= seq, timeoutNanos)) {
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (durableOnly && durability.durableSeq() < seq) {
      health.checkOpen(); // no fsync of files a closing store has let go
      durability.syncAll();
    }
  }

  @Override
  public void checkOpen() {
    health.checkOpen();
  }
}
