package dev.cellar.model;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What the model knows of one key: the versions a read may show now ({@code visible}), and those a
 * store opened after a power loss may show ({@code survivors}). Usually each holds one version; a
 * write that was not acknowledged (its fsync failed) adds its version to both, as does under {@code
 * fsync no} every write since the last sync to {@code survivors}. Reads narrow {@code visible} to
 * what they saw, so a key the store has settled is judged exactly from then on. Invariant: {@code
 * visible} is a non-empty subset of {@code survivors}.
 */
final class KeyState {
  final Set<Version> visible = new LinkedHashSet<>();
  final Set<Version> survivors = new LinkedHashSet<>();

  KeyState() {
    visible.add(Version.ABSENT);
    survivors.add(Version.ABSENT);
  }

  /** An acknowledged write; {@code durable} when acknowledging it means it is on disk. */
  void acknowledged(Version version, boolean durable) {
    visible.clear();
    visible.add(version);
    if (durable) {
      survivors.clear();
    }
    survivors.add(version);
  }

  /** A write that failed after it may have reached the log and the index. */
  void unacknowledged(Version version) {
    visible.add(version);
    survivors.add(version);
  }

  /** Everything visible is now on disk. */
  void synced() {
    survivors.clear();
    survivors.addAll(visible);
  }

  /**
   * Judges what a read saw: returns null and narrows {@code visible} to the versions that agree, or
   * describes the disagreement.
   */
  String observe(Predicate<Version> agrees, String what) {
    return narrow(visible, agrees, what);
  }

  /**
   * After a power loss the store shows one of the survivors: judges what a read saw, and from then
   * on the versions that agree are all the key may be, now and after another crash.
   */
  String observeAfterCrash(Predicate<Version> agrees, String what) {
    String problem = narrow(survivors, agrees, what);
    if (problem == null) {
      visible.clear();
      visible.addAll(survivors);
    }
    return problem;
  }

  private static String narrow(Set<Version> versions, Predicate<Version> agrees, String what) {
    Set<Version> agreeing = new LinkedHashSet<>();
    for (Version v : versions) {
      if (agrees.test(v)) {
        agreeing.add(v);
      }
    }
    if (agreeing.isEmpty()) {
      return what + ", but the model allows only " + versions;
    }
    versions.retainAll(agreeing);
    return null;
  }

  boolean anyVisible(Predicate<Version> p) {
    return visible.stream().anyMatch(p);
  }

  boolean allVisible(Predicate<Version> p) {
    return visible.stream().allMatch(p);
  }
}
