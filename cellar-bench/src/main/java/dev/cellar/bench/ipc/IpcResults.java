package dev.cellar.bench.ipc;

import java.util.List;
import java.util.Optional;

/** Every cell of a run, looked up by what it measured. */
record IpcResults(List<CellResult> cellar, List<CellResult> redis) {
  IpcResults {
    cellar = List.copyOf(cellar);
    redis = List.copyOf(redis);
  }

  /** Cellar's cell in {@link Mode#COPY}, the mode every command has. */
  Optional<CellResult> cellar(String transport, int batch, Op op) {
    return cellar(transport, batch, op, Mode.COPY);
  }

  Optional<CellResult> cellar(String transport, int batch, Op op, Mode mode) {
    return find(cellar, transport, batch, op, mode);
  }

  Optional<CellResult> redis(int batch, Op op) {
    return find(redis, "tcp", batch, op, Mode.COPY);
  }

  private static Optional<CellResult> find(
      List<CellResult> cells, String transport, int batch, Op op, Mode mode) {
    return cells.stream()
        .filter(
            c ->
                c.transport().equals(transport)
                    && c.batch() == batch
                    && c.op() == op
                    && c.mode() == mode)
        .findFirst();
  }
}
