/**
 * Cellar's Java client: RESP3 to a Cellar server, today over TCP.
 *
 * <p>Exported: {@code dev.cellar.client}, the API ({@link dev.cellar.client.CellarClient}, its
 * pipelines, asynchronous commands, options, replies and exceptions). The transport seam, the RESP3
 * encoder and decoder and the connection handling are the client's own. The engine's module is read
 * transitively, since typed maps and codecs ({@code dev.cellar.TypedMap}, {@code dev.cellar.Codec})
 * are part of this API.
 */
module dev.cellar.client {
  requires transitive dev.cellar.core;
  requires dev.cellar.ipc;

  exports dev.cellar.client;
}
