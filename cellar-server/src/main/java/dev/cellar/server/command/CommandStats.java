package dev.cellar.server.command;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Per-command call counts, failures and time, for {@code INFO commandstats} and {@code /metrics}.
 * LongAdders: every event loop records into its own cell, so counting does not make the loops share
 * a written cache line.
 */
public final class CommandStats {
  /** Counters of one command. */
  public static final class Counters {
    public final LongAdder calls = new LongAdder();
    public final LongAdder failed = new LongAdder();

    /** Refused before running (arity, memory, a running script...), as Redis's rejected_calls. */
    public final LongAdder rejected = new LongAdder();

    public final LongAdder nanos = new LongAdder();

    /** Each call's time, while {@code latency-tracking} is on. */
    final LatencyHistogram latency = new LatencyHistogram();
  }

  private final ConcurrentHashMap<String, Counters> byCommand = new ConcurrentHashMap<>();
  public final LongAdder connectionsReceived = new LongAdder();
  public final LongAdder connectionsRejected = new LongAdder();
  public final LongAdder keyspaceHits = new LongAdder();
  public final LongAdder keyspaceMisses = new LongAdder();
  public final LongAdder evictedKeys = new LongAdder();

  /** Replies replaced by an error because the fsync covering them failed (appendfsync always). */
  public final LongAdder unacknowledgedReplies = new LongAdder();

  public final LongAdder protocolErrors = new LongAdder();

  /** Error replies by code: {@code INFO errorstats}. */
  public final ErrorStats errors = new ErrorStats();

  public final LongAdder outputLimitDisconnects = new LongAdder();

  public Counters of(String command) {
    return byCommand.computeIfAbsent(command, c -> new Counters());
  }

  /** Commands called at least once since the last reset, by name. */
  public java.util.Map<String, Counters> all() {
    java.util.Map<String, Counters> out = new java.util.TreeMap<>();
    byCommand.forEach(
        (name, c) -> {
          if (c.calls.sum() > 0 || c.rejected.sum() > 0) {
            out.put(name, c);
          }
        });
    return out;
  }

  /**
   * Each command's latency counts ({@link LatencyHistogram#counts}) by full name ("client|id"),
   * those with any since the last reset, in name order.
   */
  java.util.SortedMap<String, long[]> latencies() {
    java.util.SortedMap<String, long[]> out = new java.util.TreeMap<>();
    byCommand.forEach(
        (name, c) -> {
          long[] counts = c.latency.counts();
          if (LatencyHistogram.total(counts) > 0) {
            out.put(name, counts);
          }
        });
    return out;
  }

  public long totalCommands() {
    long total = 0;
    for (Counters c : byCommand.values()) {
      total += c.calls.sum();
    }
    return total;
  }

  /** {@code CONFIG RESETSTAT}. */
  public void reset() {
    for (Counters c : byCommand.values()) {
      c.calls.reset();
      c.failed.reset();
      c.rejected.reset();
      c.nanos.reset();
      c.latency.reset();
    }
    errors.reset();
    keyspaceHits.reset();
    keyspaceMisses.reset();
    evictedKeys.reset();
    protocolErrors.reset();
    outputLimitDisconnects.reset();
    connectionsRejected.reset();
    connectionsReceived.reset();
  }
}
