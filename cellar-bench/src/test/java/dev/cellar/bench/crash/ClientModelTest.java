package dev.cellar.bench.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The check after a restart: what it accepts (acknowledged, or the in-flight write landed) and what
 * it reports.
 */
class ClientModelTest {
  private static final String K0 = "crash:c0:k0";
  private static final String K1 = "crash:c0:k1";
  private static final String N0 = "crash:c0:n0";

  private final ClientModel model = new ClientModel(0, 2, 512, 1);

  private void acked(Operation op, String reply) {
    model.begin(op);
    model.acknowledge(op, reply);
  }

  private List<Violation.Kind> verify(Map<String, KeyState.Observed> found) {
    Map<String, KeyState.Observed> all = new HashMap<>();
    for (String key : model.keys()) {
      all.put(key, new KeyState.Observed(null, -2));
    }
    all.putAll(found);
    return model.verify(all).stream().map(Violation::kind).toList();
  }

  @Test
  void acknowledgedStateOrTheInFlightWriteLandedPass() {
    acked(new Operation.Set(K0, "a"), "OK");
    acked(new Operation.Incr(N0), "1");
    model.begin(new Operation.Set(K0, "b"));
    assertEquals(
        List.of(),
        verify(Map.of(K0, new KeyState.Observed("a", -1), N0, new KeyState.Observed("1", -1))));

    model.begin(new Operation.Set(K0, "b"));
    assertEquals(
        List.of(),
        verify(Map.of(K0, new KeyState.Observed("b", -1), N0, new KeyState.Observed("1", -1))));

    model.begin(new Operation.Incr(N0));
    assertEquals(
        List.of(),
        verify(Map.of(K0, new KeyState.Observed("b", -1), N0, new KeyState.Observed("2", -1))));
  }

  @Test
  void aMissingOrOlderAcknowledgedValueIsReported() {
    acked(new Operation.Set(K0, "a"), "OK");
    acked(new Operation.Set(K0, "b"), "OK");
    acked(new Operation.Append(K1, "x"), "1");
    assertEquals(List.of(Violation.Kind.LOST), verify(Map.of(K1, new KeyState.Observed("x", -1))));

    acked(new Operation.Set(K0, "c"), "OK");
    assertEquals(
        List.of(Violation.Kind.WRONG),
        verify(Map.of(K0, new KeyState.Observed("b", -1), K1, new KeyState.Observed("x", -1))));
  }

  @Test
  void aDeletedKeyThatCameBackOrALostExpiryIsReported() {
    acked(new Operation.SetEx(K0, "a", 3600), "OK");
    acked(new Operation.Mset(K1, "m", K0, "n"), "OK");
    acked(new Operation.Del(K1), "1");
    assertEquals(
        List.of(Violation.Kind.WRONG),
        verify(Map.of(K1, new KeyState.Observed("m", -1), K0, new KeyState.Observed("n", -1))));

    acked(new Operation.SetEx(K0, "e", 3600), "OK");
    assertEquals(
        List.of(Violation.Kind.WRONG),
        verify(Map.of(K0, new KeyState.Observed("e", -1), K1, new KeyState.Observed("m", -1))));
  }

  @Test
  void aReplyThatContradictsTheAcknowledgedWritesIsReported() {
    acked(new Operation.Incr(N0), "1");
    acked(new Operation.Incr(N0), "3");
    assertEquals(
        List.of(Violation.Kind.REPLY),
        model.drainReplyViolations().stream().map(Violation::kind).toList());
  }
}
