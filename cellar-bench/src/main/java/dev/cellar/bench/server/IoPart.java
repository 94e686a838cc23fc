package dev.cellar.bench.server;

import java.io.PrintStream;
import java.nio.file.Path;

/**
 * What a part of {@code cellar bench io} that runs servers of its own works with, as the main run
 * set it up: the benchmark (for its server start and memory group), tools and child processes, the
 * run's directory, placement and memory group, the data set's name and directory, and the log.
 */
abstract class IoPart {
  final IoBenchmark bench;
  final Tools tools;
  final ChildProcesses children;
  final Path runDir;
  final Placement placement;
  final MemoryCgroup.Support cgroup;
  final String name;
  final Path data;
  final PrintStream log;

  IoPart(
      IoBenchmark bench,
      Tools tools,
      ChildProcesses children,
      Path runDir,
      Placement placement,
      MemoryCgroup.Support cgroup,
      String name,
      Path data,
      PrintStream log) {
    this.bench = bench;
    this.tools = tools;
    this.children = children;
    this.runDir = runDir;
    this.placement = placement;
    this.cgroup = cgroup;
    this.name = name;
    this.data = data;
    this.log = log;
  }
}
