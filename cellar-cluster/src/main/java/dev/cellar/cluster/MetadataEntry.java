package dev.cellar.cluster;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The layout of one entry of the metadata group's Raft log: the RESP array layout of {@link
 * ShardLogEntry}, whose first element names the change. One change exists so far, {@code LIVE
 * id...}: the nodes the metadata leader hears from, in id order. docs/format/cluster-log.md
 * describes it.
 */
final class MetadataEntry {
  static final String LIVE = "LIVE";

  private MetadataEntry() {}

  /** A {@code LIVE} entry naming {@code nodes}. */
  static byte[] live(Set<String> nodes) {
    List<String> args = new ArrayList<>();
    args.add(LIVE);
    args.addAll(new TreeSet<>(nodes));
    return ShardLogEntry.encode(args.toArray(String[]::new));
  }

  /**
   * The nodes a {@code LIVE} entry names.
   *
   * @throws IllegalArgumentException if the bytes are not a {@code LIVE} entry
   */
  static Set<String> decodeLive(byte[] bytes) {
    List<byte[]> args = ShardLogEntry.decode(bytes);
    if (args.isEmpty() || !LIVE.equals(new String(args.get(0), StandardCharsets.UTF_8))) {
      throw new IllegalArgumentException("not a LIVE entry");
    }
    Set<String> nodes = new TreeSet<>();
    for (byte[] id : args.subList(1, args.size())) {
      nodes.add(new String(id, StandardCharsets.UTF_8));
    }
    return Collections.unmodifiableSet(nodes);
  }
}
