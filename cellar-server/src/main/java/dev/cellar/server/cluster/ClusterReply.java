package dev.cellar.server.cluster;

import java.util.List;

/**
 * A reply to a {@code CLUSTER} subcommand as a tree, which the server writes in the connection's
 * protocol (a map in RESP3 is a flat array in RESP2, a verbatim string a bulk one).
 */
public sealed interface ClusterReply {
  record Simple(String text) implements ClusterReply {}

  record Bulk(byte[] bytes) implements ClusterReply {}

  /** Text that RESP3 sends as a verbatim string ({@code txt}), as Redis does for NODES and INFO. */
  record Text(String text) implements ClusterReply {}

  record Int(long value) implements ClusterReply {}

  record Array(List<ClusterReply> items) implements ClusterReply {}

  /** Key and value pairs: a RESP3 map, a RESP2 array of both in turn. */
  record Map(List<ClusterReply> keysAndValues) implements ClusterReply {}

  record Error(String message) implements ClusterReply {}

  record Null() implements ClusterReply {}

  static ClusterReply bulk(String text) {
    return new Bulk(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }
}
