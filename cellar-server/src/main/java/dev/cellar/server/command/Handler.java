package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;

/** Runs one command: reads its arguments from the request, writes exactly one reply. */
@FunctionalInterface
public interface Handler {
  void run(Session session, Request request, ReplyWriter out);
}
