package dev.cellar.server.command;

import dev.cellar.Cellar;
import dev.cellar.CellarStats;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What operators and their tools ask of a running server: SLOWLOG, LATENCY, MONITOR and MEMORY,
 * under Redis 7.2's names and reply shapes (redis-cli's {@code --memkeys} reads MEMORY USAGE,
 * monitoring agents read SLOWLOG GET and LATENCY LATEST).
 */
final class IntrospectionCommands {
  private IntrospectionCommands() {}

  static void register(CommandTable t) {
    t.add(
            "slowlog",
            -2,
            "admin loading stale",
            0,
            0,
            0,
            "server",
            "A container for slow log commands.",
            IntrospectionCommands::slowlog)
        .add(
            "latency",
            -2,
            "admin noscript loading stale",
            0,
            0,
            0,
            "server",
            "A container for latency diagnostics commands.",
            IntrospectionCommands::latency)
        .add(
            "monitor",
            1,
            "admin noscript loading stale",
            0,
            0,
            0,
            "server",
            "Listens for all requests received by the server in real-time.",
            IntrospectionCommands::monitor)
        .add(
            "memory",
            -2,
            "readonly",
            0,
            0,
            0,
            "server",
            "A container for memory diagnostics commands.",
            IntrospectionCommands::memory);
  }

  // ------------------------------------------------------------------ SLOWLOG

  static void slowlog(Session s, Request r, ReplyWriter out) {
    String sub = r.string(1).toLowerCase(Locale.ROOT);
    s.subcommand("slowlog", sub);
    SlowLog log = s.server().slowLog();
    switch (sub) {
      case "get" -> {
        if (r.argc() > 3) {
          throw CommandError.arity("slowlog|get");
        }
        long count = 10;
        if (r.argc() == 3) {
          count = r.isLong(2) ? r.longValue(2) : Long.MIN_VALUE; // Redis says the same of both
          if (count < -1) {
            throw new CommandError("ERR count should be greater than or equal to -1");
          }
        }
        List<SlowLog.Entry> entries = log.newest(count);
        out.array(entries.size());
        for (SlowLog.Entry e : entries) {
          out.array(6);
          out.integer(e.id());
          out.integer(e.unixSeconds());
          out.integer(e.micros());
          out.array(e.argv().length);
          for (byte[] arg : e.argv()) {
            out.bulk(arg);
          }
          out.bulk(e.address());
          out.bulk(e.clientName());
        }
      }
      case "len" -> {
        ServerCommands.requireArity(r, "slowlog", sub, 2);
        out.integer(log.size());
      }
      case "reset" -> {
        ServerCommands.requireArity(r, "slowlog", sub, 2);
        log.reset();
        out.ok();
      }
      case "help" ->
          help(
              out,
              "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
              "GET [<count>]",
              "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
              "    Entries are made of:",
              "    id, timestamp, time in microseconds, arguments array, client IP and port,",
              "    client name",
              "LEN",
              "    Return the length of the slowlog.",
              "RESET",
              "    Reset the slowlog.",
              "HELP",
              "    Print this help.");
      default -> throw unknownSubcommand(r, "SLOWLOG");
    }
  }

  // ------------------------------------------------------------------ LATENCY

  static void latency(Session s, Request r, ReplyWriter out) {
    String sub = r.string(1).toLowerCase(Locale.ROOT);
    s.subcommand("latency", sub);
    LatencyMonitor monitor = s.server().latencyMonitor();
    switch (sub) {
      case "latest" -> {
        ServerCommands.requireArity(r, "latency", sub, 2);
        List<LatencyMonitor.Latest> latest = monitor.latest();
        out.array(latest.size());
        for (LatencyMonitor.Latest l : latest) {
          out.array(4);
          out.bulk(l.event());
          out.integer(l.unixSeconds());
          out.integer(l.millis());
          out.integer(l.maxMillis());
        }
      }
      case "history" -> {
        ServerCommands.requireArity(r, "latency", sub, 3);
        List<LatencyMonitor.Sample> samples = monitor.history(r.string(2));
        out.array(samples.size());
        for (LatencyMonitor.Sample sample : samples) {
          out.array(2);
          out.integer(sample.unixSeconds());
          out.integer(sample.millis());
        }
      }
      case "reset" -> {
        List<String> events = new ArrayList<>();
        for (int i = 2; i < r.argc(); i++) {
          events.add(r.string(i));
        }
        out.integer(monitor.reset(events));
      }
      case "doctor" -> {
        ServerCommands.requireArity(r, "latency", sub, 2);
        out.verbatim(doctor(s.server(), monitor));
      }
      case "histogram" -> histogram(s.server(), r, out);
      case "help" ->
          help(
              out,
              "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
              "DOCTOR",
              "    Return a human readable latency analysis report.",
              "HISTORY <event>",
              "    Return time-latency samples for the <event> class.",
              "LATEST",
              "    Return the latest latency samples for all events.",
              "RESET [<event> ...]",
              "    Reset latency data of one or more <event> classes.",
              "    (default: reset all data for all event classes)",
              "HISTOGRAM [COMMAND ...]",
              "    Return a cumulative distribution of latencies in the format of a histogram for"
                  + " the specified command names.",
              "    If no commands are specified then all histograms are replied.",
              "HELP",
              "    Print this help.");
      default -> throw unknownSubcommand(r, "LATENCY");
    }
  }

  /**
   * {@code LATENCY HISTOGRAM [command ...]}: each command's calls and cumulative distribution, as
   * Redis gives them; a container names itself and its subcommands ("client|id"), and an unknown
   * name is skipped.
   */
  private static void histogram(ServerContext server, Request r, ReplyWriter out) {
    java.util.SortedMap<String, long[]> all = server.stats().latencies();
    java.util.Map<String, long[]> chosen = new java.util.LinkedHashMap<>();
    if (r.argc() == 2) {
      chosen.putAll(all);
    }
    for (int i = 2; i < r.argc(); i++) {
      String name = r.string(i).toLowerCase(Locale.ROOT);
      int bar = name.indexOf('|');
      String command = bar < 0 ? name : name.substring(0, bar);
      if (server.commands().get(command) == null
          || (bar >= 0 && Subcommands.arity(command, name.substring(bar + 1)) == 0)) {
        continue;
      }
      if (all.containsKey(name)) {
        chosen.put(name, all.get(name));
      }
      if (bar < 0) {
        all.subMap(name + "|", name + "|\uffff").forEach(chosen::put);
      }
    }
    out.map(chosen.size());
    for (java.util.Map.Entry<String, long[]> e : chosen.entrySet()) {
      out.bulk(e.getKey());
      out.map(2);
      out.bulk("calls");
      out.integer(LatencyHistogram.total(e.getValue()));
      out.bulk("histogram_usec");
      long[] pairs = LatencyHistogram.cumulative(e.getValue());
      out.map(pairs.length / 2);
      for (long v : pairs) {
        out.integer(v);
      }
    }
  }

  private static String doctor(ServerContext server, LatencyMonitor monitor) {
    long threshold = server.config().latencyMonitorThreshold();
    if (threshold == 0) {
      return "I'm sorry, I can't help: latency monitoring is off. Turn it on with"
          + " CONFIG SET latency-monitor-threshold <milliseconds>, then ask again.\n";
    }
    List<LatencyMonitor.Latest> latest = monitor.latest();
    if (latest.isEmpty()) {
      return "No latency spike of "
          + threshold
          + " ms or more was observed since the monitor was turned on or reset.\n";
    }
    StringBuilder b =
        new StringBuilder("Latency spikes of at least ")
            .append(threshold)
            .append(" ms were observed:\n\n");
    int n = 1;
    for (LatencyMonitor.Latest l : latest) {
      List<LatencyMonitor.Sample> history = monitor.history(l.event());
      long sum = 0;
      for (LatencyMonitor.Sample sample : history) {
        sum += sample.millis();
      }
      b.append(n++)
          .append(". ")
          .append(l.event())
          .append(": ")
          .append(history.size())
          .append(" latency spikes (average ")
          .append(history.isEmpty() ? 0 : sum / history.size())
          .append("ms, worst ")
          .append(l.maxMillis())
          .append("ms).\n");
    }
    b.append(
        "\nSee SLOWLOG GET for the slow commands themselves, and INFO commandstats for each command's mean time.\n");
    return b.toString();
  }

  // ------------------------------------------------------------------ MONITOR

  /**
   * Replies OK and joins the feed at once; no fed line can overtake the OK: a line fed from another
   * loop is written by a task on this connection's loop, which runs after this batch's replies are
   * written, and no other connection of this loop runs a command before they are. As in Redis, a
   * client already monitoring gets no second reply.
   */
  static void monitor(Session s, Request r, ReplyWriter out) {
    if (s.monitoring()) {
      return;
    }
    if (!s.channel().canPush()) {
      throw new CommandError("ERR MONITOR needs a RESP connection");
    }
    s.monitoring(true);
    out.ok();
    s.server().monitors().add(s);
  }

  // ------------------------------------------------------------------ MEMORY

  static void memory(Session s, Request r, ReplyWriter out) {
    String sub = r.string(1).toLowerCase(Locale.ROOT);
    s.subcommand("memory", sub);
    switch (sub) {
      case "usage" -> usage(s, r, out);
      case "stats" -> {
        ServerCommands.requireArity(r, "memory", sub, 2);
        MemoryReport.stats(s.server(), out);
      }
      case "doctor" -> {
        ServerCommands.requireArity(r, "memory", sub, 2);
        out.verbatim(MemoryReport.doctor(s.server()));
      }
      case "purge" -> {
        ServerCommands.requireArity(r, "memory", sub, 2);
        out.ok(); // the data is in mapped files and an off-heap index: there is no allocator cache
        // to purge
      }
      case "malloc-stats" -> {
        ServerCommands.requireArity(r, "memory", sub, 2);
        out.verbatim("Stats not supported for the current allocator\n");
      }
      case "help" ->
          help(
              out,
              "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
              "DOCTOR",
              "    Return memory problems reports.",
              "MALLOC-STATS",
              "    Return internal statistics report from the memory allocator.",
              "PURGE",
              "    Attempt to purge dirty pages for reclamation by the allocator.",
              "STATS",
              "    Return information about the memory usage of the server.",
              "USAGE <key> [SAMPLES <count>]",
              "    Return memory in bytes used by <key> and its value. Nested values are",
              "    sampled up to <count> times (default: 5, 0 means sample all).",
              "HELP",
              "    Print this help.");
      default -> throw unknownSubcommand(r, "MEMORY");
    }
  }

  /**
   * {@code MEMORY USAGE key [SAMPLES n]}: the bytes the key costs, which in Cellar is its log
   * record plus its share of the off-heap index, as the engine works it out ({@link
   * CellarStats#keyFootprint}). Values are flat strings, so SAMPLES is checked and has nothing to
   * sample.
   */
  private static void usage(Session s, Request r, ReplyWriter out) {
    if (r.argc() != 3 && !(r.argc() == 5 && r.is(3, "samples"))) {
      throw CommandError.SYNTAX;
    }
    if (r.argc() == 5 && !r.isLong(4)) {
      throw CommandError.NOT_INTEGER;
    }
    Cellar store = s.server().store();
    Long valueLength = store.read(r.segment(2), v -> v.byteSize());
    if (valueLength == null) {
      out.nullBulk();
      return;
    }
    boolean expires = store.expiryOf(r.segment(2)) > 0;
    out.integer(store.stats().keyFootprint(r.length(2), valueLength, expires));
  }

  // ------------------------------------------------------------------ shared

  static void help(ReplyWriter out, String... lines) {
    out.simpleLines(lines);
  }

  static CommandError unknownSubcommand(Request r, String container) {
    return new CommandError(
        "ERR unknown subcommand '" + r.string(1) + "'. Try " + container + " HELP.");
  }
}
