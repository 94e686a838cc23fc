package dev.cellar.cluster;

import dev.cellar.Cellar;
import dev.cellar.WriteBatch;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * A shard replica's Raft state machine: a Cellar store that applies the group's committed entries
 * ({@link ShardLogEntry}, applied by {@link ShardCommands}) and answers reads.
 *
 * <h2>Why the store is its own snapshot</h2>
 *
 * Each entry that changes the store is written in one atomic unit with the entry's term and index
 * (the key {@link #APPLIED_KEY}), so the store on disk always holds the effects of a prefix of the
 * log and says which. On open, that term and index are the state machine's snapshot: Ratis replays
 * the entries after it from its own log, and each is applied exactly once, whatever the store's
 * fsync mode lost in a crash ({@code INCR} is not idempotent, so "at least once" would not do).
 * Entries that change nothing (a {@code SET NX} of an existing key) write nothing: applying them
 * again after a crash decides the same, on the same state. {@link #takeSnapshot} fsyncs the store
 * before it reports an index, since Ratis may then purge its log up to it.
 *
 * <p>Reads ({@link #query}) run after Ratis has established that this replica's applied state is
 * current (a read index under the group's linearizable read option), on the store directly.
 */
final class ShardStateMachine extends BaseStateMachine {
  /** Where the store keeps the term and index of the last entry it applied (16 bytes). */
  static final byte[] APPLIED_KEY = {ShardCommands.RESERVED_PREFIX, 'r', 'a', 'f', 't', '.', 'a'};

  private final Cellar store;
  private final ShardCommands commands;
  private final StoreSnapshotStorage snapshots = new StoreSnapshotStorage();

  ShardStateMachine(Cellar store) {
    this.store = store;
    this.commands = new ShardCommands(store);
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage storage)
      throws IOException {
    super.initialize(server, groupId, storage);
    reinitialize();
  }

  @Override
  public void reinitialize() {
    TermIndex applied = storedApplied();
    if (applied != null) {
      setLastAppliedTermIndex(applied);
    }
  }

  /** The term and index the store says it has applied, or null for a store that applied none. */
  TermIndex storedApplied() {
    byte[] stored = store.get(APPLIED_KEY);
    if (stored == null) {
      return null;
    }
    if (stored.length != 16) {
      throw new IllegalStateException(
          "the store's applied index has " + stored.length + " bytes, not 16");
    }
    ByteBuffer b = ByteBuffer.wrap(stored);
    return TermIndex.valueOf(b.getLong(), b.getLong());
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    TermIndex termIndex = TermIndex.valueOf(entry);
    byte[] reply;
    try {
      List<byte[]> args =
          ShardLogEntry.decode(entry.getStateMachineLogEntry().getLogData().toByteArray());
      ShardCommands.Outcome outcome = commands.apply(args);
      WriteBatch writes = outcome.writes();
      if (writes != null) {
        writes.put(APPLIED_KEY, encode(termIndex), Cellar.NO_EXPIRY);
        store.write(writes);
      }
      reply = outcome.reply();
    } catch (IllegalArgumentException malformed) {
      // A proposer sent bytes that are not a command: every replica refuses it alike.
      reply = ShardCommands.error("ERR malformed shard log entry: " + malformed.getMessage());
    }
    // A store that refuses writes (a full disk, a failed fsync) throws here, out of this method:
    // Ratis then stops applying on this replica (its updater's EXCEPTION state) rather than skip
    // the entry, as it would for a future completed exceptionally, which would let the replicas
    // diverge. Leaving the group cleanly in that case is not built yet (docs/cluster.md).
    updateLastAppliedTermIndex(termIndex);
    return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(reply)));
  }

  @Override
  public CompletableFuture<Message> query(Message request) {
    byte[] reply;
    try {
      reply = commands.read(ShardLogEntry.decode(request.getContent().toByteArray()));
    } catch (IllegalArgumentException malformed) {
      reply = ShardCommands.error("ERR malformed shard read: " + malformed.getMessage());
    }
    return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(reply)));
  }

  @Override
  public long takeSnapshot() {
    TermIndex applied = storedApplied();
    store.sync(); // what Ratis purges up to must be on disk here
    return applied == null ? -1 : applied.getIndex();
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return snapshots;
  }

  @Override
  public void close() {
    // The store belongs to the replica, which closes it after the Raft server.
  }

  private static byte[] encode(TermIndex termIndex) {
    return ByteBuffer.allocate(16)
        .putLong(termIndex.getTerm())
        .putLong(termIndex.getIndex())
        .array();
  }

  /** The store's applied term and index as Ratis's snapshot; no files of its own yet. */
  private final class StoreSnapshotStorage implements StateMachineStorage {
    @Override
    public void init(RaftStorage raftStorage) {}

    @Override
    public SnapshotInfo getLatestSnapshot() {
      TermIndex applied = storedApplied();
      return applied == null ? null : new StoreSnapshot(applied);
    }

    @Override
    public void format() {}

    @Override
    public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) {}

    @Override
    public File getSnapshotDir() {
      return null;
    }
  }

  private record StoreSnapshot(TermIndex termIndex) implements SnapshotInfo {
    @Override
    public TermIndex getTermIndex() {
      return termIndex;
    }

    @Override
    public List<org.apache.ratis.server.storage.FileInfo> getFiles() {
      return List.of();
    }
  }
}
