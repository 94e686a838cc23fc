package dev.cellar.bench.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The order of sessions: rounds outermost, so a noisy stretch of the machine lands on one round of
 * every configuration rather than on all rounds of one; within a round, Redis goes first in odd
 * rounds and Cellar in even ones. A session that fails is recorded and the rest still run. The
 * sustained-overwrite sessions, pinned, close each round.
 */
final class RoundRunner {
  private final SessionRunner sessions;
  private final SustainedSessionRunner sustained;
  private final Settings settings;
  private final List<Placement> placements;
  private final Path runDir;
  private final boolean keepData;

  RoundRunner(
      SessionRunner sessions,
      SustainedSessionRunner sustained,
      Settings settings,
      List<Placement> placements,
      Path runDir,
      boolean keepData) {
    this.sessions = sessions;
    this.sustained = sustained;
    this.settings = settings;
    this.placements = placements;
    this.runDir = runDir;
    this.keepData = keepData;
  }

  void runAll(Results results) throws IOException, InterruptedException {
    for (int round = 1; round <= settings.rounds(); round++) {
      List<ServerKind> order =
          round % 2 == 1
              ? List.of(ServerKind.REDIS, ServerKind.CELLAR)
              : List.of(ServerKind.CELLAR, ServerKind.REDIS);
      for (Placement placement : settings.sustained().only() ? List.<Placement>of() : placements) {
        List<Durability> modes = placement.isPinned() ? settings.modes() : List.of(Durability.NO);
        for (Durability durability : modes) {
          boolean first = round == 1 && placement.isPinned() && durability == Durability.NO;
          SessionRunner.Extras extras =
              new SessionRunner.Extras(
                  settings.memory() && placement.isPinned() && durability == Durability.NO,
                  settings.strace() && first);
          for (ServerKind kind : order) {
            runOne(kind, durability, placement, round, extras, results);
          }
        }
      }
      if (settings.sustained().enabled()) {
        runSustained(round, order, results);
      }
    }
  }

  private void runSustained(int round, List<ServerKind> order, Results results)
      throws IOException, InterruptedException {
    Placement pinned = placements.stream().filter(Placement::isPinned).findFirst().orElseThrow();
    for (Durability durability : settings.sustained().modes()) {
      for (ServerKind kind : order) {
        runSession(
            kind,
            durability,
            "sustained",
            round,
            results,
            dir -> sustained.run(dir, kind, durability, pinned, round, results));
      }
    }
  }

  /** One session's body, given its directory. */
  private interface Session {
    void run(Path sessionDir) throws IOException, InterruptedException;
  }

  private void runOne(
      ServerKind kind,
      Durability durability,
      Placement placement,
      int round,
      SessionRunner.Extras extras,
      Results results)
      throws IOException, InterruptedException {
    runSession(
        kind,
        durability,
        placement.id(),
        round,
        results,
        dir -> sessions.run(dir, kind, durability, placement, round, extras, results));
  }

  private void runSession(
      ServerKind kind,
      Durability durability,
      String label,
      int round,
      Results results,
      Session session)
      throws IOException, InterruptedException {
    Path sessionDir =
        Files.createDirectories(
            runDir.resolve(
                String.format(
                    Locale.ROOT, "%d-%s-%s-%s", round, label, durability.id(), kind.id())));
    try {
      session.run(sessionDir);
    } catch (IOException | RuntimeException e) {
      String what =
          String.format(
              Locale.ROOT,
              "round %d, %s, %s, %s: %s",
              round,
              label,
              durability.id(),
              kind.id(),
              e.getMessage());
      System.err.println("FAILED " + what);
      results.fail(what);
    } finally {
      if (!keepData) {
        ScratchDirectory.delete(sessionDir);
      }
    }
  }
}
