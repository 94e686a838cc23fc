package dev.cellar.bench.crash;

import java.util.Map;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * When in a cycle the server is killed: at a random moment of the writing, or shortly after a
 * compaction ({@code BGREWRITEAOF}) or a checkpoint ({@code BGSAVE}) was started, to catch the
 * server while it rewrites segments or writes an index image.
 */
enum KillMoment {
  ANY("at a random moment", null),
  COMPACTION("after BGREWRITEAOF", "BGREWRITEAOF"),
  CHECKPOINT("after BGSAVE", "BGSAVE");

  private final String description;
  private final String command;

  KillMoment(String description, String command) {
    this.description = description;
    this.command = command;
  }

  String description() {
    return description;
  }

  /** The moments in turn, so that even a short run kills at each of them. */
  static KillMoment forCycle(int cycle) {
    return values()[(cycle - 1) % values().length];
  }

  /**
   * Starts the background work this moment is about; returns the server's reply (or its error, such
   * as one already running), or null when there is nothing to start.
   */
  String start(Jedis control) {
    if (command == null) {
      return null;
    }
    try {
      return this == COMPACTION ? control.bgrewriteaof() : control.bgsave();
    } catch (JedisDataException refused) {
      return refused.getMessage();
    }
  }

  /** Whether the work of this moment is running, by {@code INFO persistence}'s fields. */
  boolean running(Map<String, String> info) {
    return switch (this) {
      case ANY -> true;
      case COMPACTION -> "1".equals(info.get("aof_rewrite_in_progress"));
      case CHECKPOINT -> "1".equals(info.get("rdb_bgsave_in_progress"));
    };
  }

  /** Whether a kill after this moment needs a short random wait first. */
  boolean delayed() {
    return command != null;
  }
}
