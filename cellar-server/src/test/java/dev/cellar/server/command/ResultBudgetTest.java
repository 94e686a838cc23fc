package dev.cellar.server.command;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The heap a command may gather: counted per element, refused with Redis-shaped advice past it. */
class ResultBudgetTest {
  @Test
  void elementsAreCountedWithTheirOverheadAndRefusedPastTheLimit() {
    ResultBudget b = new ResultBudget("SUNION");
    long perElement = 1000 + ResultBudget.OVERHEAD_BYTES;
    long fit = ResultBudget.LIMIT_BYTES / perElement;
    for (long i = 0; i < fit; i++) {
      b.add(1000);
    }
    CommandError e = assertThrows(CommandError.class, () -> b.add(1000));
    assertTrue(
        e.getMessage().startsWith("ERR SUNION would gather more than 256 MiB"), e.getMessage());
  }

  @Test
  void aReservationPastTheLimitFailsBeforeAnythingIsGathered() {
    assertThrows(CommandError.class, () -> new ResultBudget("SORT").reserve(10_000_000, 100));
    assertDoesNotThrow(() -> new ResultBudget("SORT").reserve(1_000_000, 100));
    // Overflow-proof: a count near Long.MAX_VALUE is refused, not wrapped around.
    assertThrows(
        CommandError.class, () -> new ResultBudget("SORT").reserve(Long.MAX_VALUE / 2, 100));
  }
}
