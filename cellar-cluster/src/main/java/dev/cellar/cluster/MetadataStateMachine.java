package dev.cellar.cluster;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * The metadata group's state machine: the cluster-wide facts every node must agree on, held in
 * memory and rebuilt from the group's log on start (it has no snapshot: its log grows by one small
 * entry a liveness change). So far that is the set of live nodes ({@link MetadataEntry#LIVE}), from
 * which every node computes the same {@link LeadershipPlan}.
 */
final class MetadataStateMachine extends BaseStateMachine {
  /** The last applied live set, or null before any. */
  private volatile Set<String> live;

  /** The live nodes as of the last applied entry, or null if none has been applied. */
  Set<String> live() {
    return live;
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    String reply = "OK";
    try {
      live = MetadataEntry.decodeLive(entry.getStateMachineLogEntry().getLogData().toByteArray());
    } catch (IllegalArgumentException malformed) {
      // Every member refuses it alike; the live set stays as it was.
      reply = "ERR malformed metadata entry: " + malformed.getMessage();
    }
    updateLastAppliedTermIndex(TermIndex.valueOf(entry));
    return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFromUtf8(reply)));
  }
}
