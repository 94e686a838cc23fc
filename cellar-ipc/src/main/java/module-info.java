/**
 * Shared-memory transport for same-host clients: frame rings in memory-mapped files, the futex
 * through which an idle side sleeps, and the discovery file a client finds a server by. Knows
 * nothing of commands or of the engine: a frame is bytes. Layouts: {@link
 * dev.cellar.ipc.IpcDescriptor} and docs/format/ipc.md.
 */
module dev.cellar.ipc {
  exports dev.cellar.ipc;
}
