package dev.cellar.server.command;

import dev.cellar.CorruptStoreException;
import dev.cellar.server.log.RateLimitedLog;

/**
 * Damage met while serving (a record that fails its checksum), logged with the file and offset the
 * engine names, whether RESP or HTTP met it. A client that reads a damaged key in a loop would
 * otherwise write a line per read: at most one line a second is written, and the next says how many
 * were left out.
 */
public final class DamageLog {
  private static final RateLimitedLog LOG =
      new RateLimitedLog(System.getLogger("dev.cellar.server"), System.Logger.Level.WARNING);

  private DamageLog() {}

  public static void report(CorruptStoreException e) {
    LOG.log(
        "read hit damage, error returned to the client: "
            + String.join("; ", e.damage())
            + " (run cellar tool verify on the data directory once stopped)");
  }
}
