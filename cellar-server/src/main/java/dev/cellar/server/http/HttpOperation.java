package dev.cellar.server.http;

import dev.cellar.server.command.CommandSpec;
import dev.cellar.server.command.Handler;
import java.util.List;

/**
 * The data operations of the HTTP interface, counted like commands: each has a {@link CommandSpec}
 * so its calls, failures and time go into {@code CommandStats} (and so {@code INFO commandstats}
 * and {@code cellar_commands_total}) and its latency into the command histogram, under its own name
 * ({@code http.get}, ...) so that HTTP traffic stays distinguishable from RESP traffic. The specs
 * are not in the command table: RESP cannot call them.
 */
enum HttpOperation {
  GET("http.get", "readonly", "GET /v1/kv/{key}: the value of a key."),
  PUT(
      "http.put",
      "write denyoom",
      "PUT /v1/kv/{key}: sets the value of a key, with an optional ttl."),
  DELETE("http.delete", "write", "DELETE /v1/kv/{key}: deletes a key."),
  SCAN("http.scan", "readonly", "GET /v1/scan: one page of the keys with a prefix.");

  final CommandSpec spec;

  HttpOperation(String name, String flags, String summary) {
    this.spec =
        new CommandSpec(
            name, 0, List.of(flags.split(" ")), 0, 0, 0, "http", summary, notDispatched());
  }

  private static Handler notDispatched() {
    return (session, request, out) -> {
      throw new IllegalStateException(
          "HTTP operations are run by the HTTP router, not the RESP dispatcher");
    };
  }
}
