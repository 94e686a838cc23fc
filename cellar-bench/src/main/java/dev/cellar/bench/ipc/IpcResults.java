package dev.cellar.bench.ipc;

import java.util.List;
import java.util.Optional;

/** Every cell of a run, looked up by what it measured. */
record IpcResults(List<CellResult> cellar, List<CellResult> redis) {
  IpcResults {
    cellar = List.copyOf(cellar);
    redis = List.copyOf(redis);
  }

  Optional<CellResult> cellar(String transport, int batch, Op op) {
    return find(cellar, transport, batch, op);
  }

  Optional<CellResult> redis(int batch, Op op) {
    return find(redis, "tcp", batch, op);
  }

  private static Optional<CellResult> find(
      List<CellResult> cells, String transport, int batch, Op op) {
    return cells.stream()
        .filter(c -> c.transport().equals(transport) && c.batch() == batch && c.op() == op)
        .findFirst();
  }
}
