package dev.cellar.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterSettingsTest {
  private static final List<ClusterSettings.Node> THREE =
      ClusterSettings.parseNodes("a@10.0.0.1:6379 b@10.0.0.2:6379:7000,c@host-c:6380");

  @Test
  void nodesParseWithTheirRaftPorts() {
    assertEquals(new ClusterSettings.Node("a", "10.0.0.1", 6379, 16379), THREE.get(0));
    assertEquals(new ClusterSettings.Node("b", "10.0.0.2", 6379, 7000), THREE.get(1));
    assertEquals(new ClusterSettings.Node("c", "host-c", 6380, 16380), THREE.get(2));
    for (String bad : List.of("a", "@h:1", "a@h", "a@h:0", "a@h:1:70000", "a@:1", "a@h:x")) {
      assertThrows(IllegalArgumentException.class, () -> ClusterSettings.Node.parse(bad), bad);
    }
  }

  @Test
  void settingsAreChecked() {
    Path dir = Path.of("data");
    assertEquals("b", new ClusterSettings("b", THREE, 3, 12, dir, 3000).self().id());
    assertThrows(
        IllegalArgumentException.class, () -> new ClusterSettings("z", THREE, 3, 12, dir, 3000));
    assertThrows(
        IllegalArgumentException.class, () -> new ClusterSettings("a", THREE, 4, 12, dir, 3000));
    assertThrows(
        IllegalArgumentException.class, () -> new ClusterSettings("a", THREE, 3, 0, dir, 3000));
    assertThrows(
        IllegalArgumentException.class,
        () -> new ClusterSettings("a", ClusterSettings.parseNodes("a@h:1 a@h:2"), 1, 1, dir, 3000));
  }

  /** Every slot is in exactly one shard, the one whose range holds it, for any shard count. */
  @Test
  void shardOfIsTheInverseOfTheRanges() {
    for (int shards : new int[] {1, 2, 3, 6, 7, 12, 100, 1000, 16383, 16384}) {
      ClusterSettings settings = new ClusterSettings("a", THREE, 1, shards, Path.of("d"), 3000);
      assertEquals(0, settings.firstSlot(0));
      for (int slot = 0; slot < KeySlot.SLOTS; slot++) {
        int shard = settings.shardOf(slot);
        assertTrue(settings.firstSlot(shard) <= slot, shards + " shards, slot " + slot);
        assertTrue(
            shard + 1 == shards || settings.firstSlot(shard + 1) > slot,
            shards + " shards, slot " + slot);
      }
    }
  }
}
