package dev.cellar.bench.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ValueFactoryTest {

  @ParameterizedTest
  @ValueSource(ints = {1, 7, 8, 9, 60, 1000})
  void valuesAreDeterministicAndCheckable(int size) {
    ValueFactory values = new ValueFactory(size);
    byte[] value = values.value(12345, 0);
    assertEquals(size, value.length);
    assertArrayEquals(value, values.value(12345, 0));
    assertTrue(values.matches(value, 12345, 0));
    assertTrue(values.matchesAny(value, 12345, 2));
    assertFalse(values.matches(value, 12346, 0));
    assertFalse(values.matches(null, 12345, 0));
    assertFalse(values.matches(new byte[size + 1], 12345, 0));
  }

  @ParameterizedTest
  @ValueSource(ints = {8, 60})
  void versionsDiffer(int size) {
    ValueFactory values = new ValueFactory(size);
    byte[] overwritten = values.value(7, 1);
    assertFalse(values.matches(overwritten, 7, 0));
    assertTrue(values.matches(overwritten, 7, 1));
    overwritten[size - 1] ^= 1;
    assertFalse(values.matchesAny(overwritten, 7, 2));
  }
}
