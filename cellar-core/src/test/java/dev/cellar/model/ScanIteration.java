package dev.cellar.model;

import dev.cellar.ScanPage;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The resumable {@code scanPage} iteration in progress, and what the model knows of it: the keys
 * with its prefix that were live for certain when it began and have stayed so (each with the time
 * until which it is sure to stay live: the earliest expiry it has had since), and the keys returned
 * so far. The promise ({@code Cellar#scanPage}): every page returns only keys with the prefix that
 * may be live, none twice; a complete iteration has returned every key live throughout it.
 */
final class ScanIteration {
  final String prefix;
  long cursor = ScanPage.START;
  private final Map<String, Long> throughout = new HashMap<>();
  private final Set<String> returned = new HashSet<>();

  ScanIteration(String prefix, Map<String, KeyState> keys, long now) {
    this.prefix = prefix;
    keys.forEach(
        (key, state) -> {
          if (key.startsWith(prefix) && state.allVisible(v -> v.surelyLiveAt(now))) {
            throughout.put(key, Long.MAX_VALUE);
            changed(key, state);
          }
        });
  }

  /** The key's visible versions changed (a write, a reopen, a crash). */
  void changed(String key, KeyState state) {
    Long until = throughout.get(key);
    if (until == null) {
      return;
    }
    if (!state.allVisible(Version::present)) {
      throughout.remove(key);
      return;
    }
    for (Version v : state.visible) {
      if (v.expires()) {
        until = Math.min(until, v.expireFrom());
      }
    }
    throughout.put(key, until);
  }

  /**
   * Judges one page fetched during {@code [t0, t1]}; returns a problem or null. Moves the cursor
   * on.
   */
  String page(ScanPage page, Map<String, KeyState> keys, long t0, long t1) {
    for (byte[] bytes : page.keys()) {
      String key = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
      KeyState state = keys.get(key);
      if (!key.startsWith(prefix)) {
        return "page returned " + key + ", which lacks the prefix '" + prefix + "'";
      }
      if (state == null) {
        return "page returned " + key + ", which was never written";
      }
      if (!state.anyVisible(v -> v.mayBeLiveAt(t0))) {
        return "page returned " + key + ", which is not live: " + state.visible;
      }
      if (!returned.add(key)) {
        return "page returned " + key + " twice in one iteration (prefix '" + prefix + "')";
      }
    }
    cursor = page.nextCursor();
    if (!page.complete()) {
      return null;
    }
    for (Map.Entry<String, Long> e : throughout.entrySet()) {
      if (e.getValue() > t1 && !returned.contains(e.getKey())) {
        return "iteration over prefix '"
            + prefix
            + "' completed without "
            + e.getKey()
            + ", live throughout: "
            + keys.get(e.getKey()).visible;
      }
    }
    return null;
  }
}
