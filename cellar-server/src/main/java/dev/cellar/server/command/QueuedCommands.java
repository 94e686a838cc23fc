package dev.cellar.server.command;

import dev.cellar.server.resp.Request;
import java.util.ArrayList;
import java.util.List;

/**
 * The commands a client queued after {@code MULTI}, each a copy of its arguments (the request they
 * came in is overwritten by the next one), and whether queueing refused one, which makes {@code
 * EXEC} discard them all, as Redis does.
 *
 * <p>Their bytes count against the client's query buffer limit ({@code client-query-buffer-limit}):
 * past it a command is refused like any other error while queueing, so a client cannot grow the
 * heap without bound by never sending {@code EXEC}.
 */
final class QueuedCommands {
  private final List<byte[][]> commands = new ArrayList<>();
  private long bytes;
  private boolean dirty;

  /** Copies {@code request}'s arguments onto the end of the queue; false if over {@code limit}. */
  boolean add(Request request, long limit) {
    long size = 0;
    for (int i = 0; i < request.argc(); i++) {
      size += request.length(i) + 16;
    }
    if (bytes + size > limit) {
      return false;
    }
    byte[][] args = new byte[request.argc()][];
    for (int i = 0; i < args.length; i++) {
      args[i] = request.bytes(i);
    }
    commands.add(args);
    bytes += size;
    return true;
  }

  /** Marks the transaction as refused: EXEC will answer EXECABORT. */
  void flagError() {
    dirty = true;
  }

  boolean dirty() {
    return dirty;
  }

  List<byte[][]> commands() {
    return commands;
  }

  int size() {
    return commands.size();
  }

  long bytes() {
    return bytes;
  }
}
