package dev.cellar.server.command;

/** Receives each command's latency (the metrics endpoint turns them into histograms). */
public interface LatencyRecorder {
  LatencyRecorder NONE = (command, nanos) -> {};

  void record(CommandSpec command, long nanos);
}
