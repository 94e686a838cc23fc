package dev.cellar;

import java.util.List;

/**
 * Opening found damage that recovery may not silently skip (corruption inside a sealed segment, a
 * damaged checkpoint that cannot be rebuilt from). The message lists each damaged place with file,
 * offset and bytes; reopening with {@link CellarOptions#salvage(boolean) salvage} skips them.
 */
public final class CorruptStoreException extends CellarException {
  private final List<String> damage;

  public CorruptStoreException(String message, List<String> damage) {
    super(
        Category.CORRUPT,
        message + (damage.isEmpty() ? "" : ":\n  " + String.join("\n  ", damage)));
    this.damage = List.copyOf(damage);
  }

  /** One line per damaged region: file, offset, bytes skipped, why. */
  public List<String> damage() {
    return damage;
  }
}
