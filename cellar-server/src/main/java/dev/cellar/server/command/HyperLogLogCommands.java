package dev.cellar.server.command;

import static dev.cellar.server.command.Values.stripe;
import static dev.cellar.server.config.KeyspaceEventFlags.STRING;

import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ThreadLocalRandom;

/**
 * PFADD, PFCOUNT, PFMERGE, PFDEBUG and PFSELFTEST: HyperLogLogs as Redis 7.2 keeps them, strings in
 * Redis's own layout ({@link HyperLogLog}), with its replies, errors and events. As in Redis, a
 * single-key PFCOUNT writes the count it computed into the string's header, so the next one reads
 * it; that write keeps the key's TTL and touches WATCH, as Redis's does.
 */
final class HyperLogLogCommands {
  private HyperLogLogCommands() {}

  static final CommandError NOT_HLL =
      new CommandError("WRONGTYPE Key is not a valid HyperLogLog string value.");
  static final CommandError CORRUPT = new CommandError("INVALIDOBJ Corrupted HLL object detected");

  static void register(CommandTable t) {
    t.add(
            "pfadd",
            -2,
            "write denyoom fast",
            1,
            1,
            1,
            "hyperloglog",
            "Adds elements to a HyperLogLog key. Creates the key if it doesn't exist.",
            HyperLogLogCommands::pfadd)
        .add(
            "pfcount",
            -2,
            "readonly may_replicate",
            1,
            -1,
            1,
            "hyperloglog",
            "Returns the approximated cardinality of the set(s) observed by the HyperLogLog"
                + " key(s).",
            HyperLogLogCommands::pfcount)
        .add(
            "pfmerge",
            -2,
            "write denyoom",
            1,
            -1,
            1,
            "hyperloglog",
            "Merges one or more HyperLogLog values into a single key.",
            HyperLogLogCommands::pfmerge)
        .add(
            "pfdebug",
            3,
            "write denyoom admin",
            2,
            2,
            1,
            "hyperloglog",
            "Internal commands for debugging HyperLogLog values.",
            HyperLogLogCommands::pfdebug)
        .add(
            "pfselftest",
            1,
            "admin",
            0,
            0,
            0,
            "hyperloglog",
            "An internal command for testing HyperLogLog values.",
            HyperLogLogCommands::pfselftest);
  }

  static void pfadd(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      MemorySegment key = r.segment(1);
      Values.Current current = Values.current(server.store(), key);
      HyperLogLog hll;
      int updated =
          current == null ? 1 : 0; // Redis's count: the creation and each changed register
      if (current == null) {
        hll = HyperLogLog.empty();
      } else {
        hll = HyperLogLog.over(sketch(current.value()));
      }
      long sparseMax = server.config().hllSparseMaxBytes();
      for (int i = 2; i < r.argc(); i++) {
        int changed = hll.add(r.buffer(), r.offset(i), r.length(i), sparseMax);
        if (changed < 0) {
          throw CORRUPT;
        }
        updated += changed > 0 ? 1 : 0;
      }
      if (updated > 0) {
        hll.invalidateCache();
        Values.rewrite(server.store(), key, hll.bytes(), current);
        server.rawStrings().mark(server, r.bytes(1));
        KeyspaceEvents.written(server, r, 1, current == null, STRING, "pfadd");
      }
      out.integer(updated > 0 ? 1 : 0);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void pfcount(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    if (r.argc() > 2) {
      byte[] max = new byte[HyperLogLog.REGISTERS];
      for (int i = 1; i < r.argc(); i++) {
        byte[] v = Values.get(server.store(), r.segment(i));
        if (v == null) {
          KeyspaceEvents.miss(server, r, i);
          continue;
        }
        if (!HyperLogLog.over(sketch(v)).mergeInto(max)) {
          throw CORRUPT;
        }
      }
      out.integer(HyperLogLog.countUnion(max));
      return;
    }
    int stripe = stripe(r, 1);
    server.locks().lock(stripe);
    try {
      MemorySegment key = r.segment(1);
      Values.Current current = Values.current(server.store(), key);
      if (current == null) {
        KeyspaceEvents.miss(server, r, 1);
        out.integer(0);
        return;
      }
      HyperLogLog hll = HyperLogLog.over(sketch(current.value()));
      if (hll.cacheValid()) {
        out.integer(hll.cached());
        return;
      }
      long card = hll.count();
      if (card < 0) {
        throw CORRUPT;
      }
      hll.cache(card);
      Values.rewrite(server.store(), key, hll.bytes(), current);
      server.rawStrings().mark(server, r.bytes(1));
      server.watches().touch(r, 1); // the value changed, as Redis's signalModifiedKey says
      server.tracking().invalidate(r.bytes(1));
      out.integer(card);
    } finally {
      server.locks().unlock(stripe);
    }
  }

  static void pfmerge(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int[] stripes = new int[r.argc() - 1];
    for (int i = 1; i < r.argc(); i++) {
      stripes[i - 1] = stripe(r, i);
    }
    int locked = server.locks().lockAll(stripes, stripes.length);
    try {
      byte[] max = new byte[HyperLogLog.REGISTERS];
      boolean dense = false;
      for (int i = 1; i < r.argc(); i++) { // the destination is merged too
        byte[] v = Values.get(server.store(), r.segment(i));
        if (v == null) {
          KeyspaceEvents.miss(server, r, i);
          continue;
        }
        HyperLogLog source = HyperLogLog.over(sketch(v));
        dense |= source.encoding() == HyperLogLog.DENSE;
        if (!source.mergeInto(max)) {
          throw CORRUPT;
        }
      }
      MemorySegment key = r.segment(1);
      Values.Current current = Values.current(server.store(), key);
      HyperLogLog target =
          current == null ? HyperLogLog.empty() : HyperLogLog.over(current.value());
      if (dense && !target.toDense()) {
        throw CORRUPT;
      }
      long sparseMax = server.config().hllSparseMaxBytes();
      for (int j = 0; j < max.length; j++) {
        if (max[j] != 0) {
          target.set(j, max[j], sparseMax);
        }
      }
      target.invalidateCache();
      Values.rewrite(server.store(), key, target.bytes(), current);
      server.rawStrings().mark(server, r.bytes(1));
      KeyspaceEvents.written(server, r, 1, current == null, STRING, "pfadd");
      out.ok();
    } finally {
      server.locks().unlockAll(stripes, locked);
    }
  }

  static void pfdebug(Session s, Request r, ReplyWriter out) {
    ServerContext server = s.server();
    int stripe = stripe(r, 2);
    server.locks().lock(stripe);
    try {
      MemorySegment key = r.segment(2);
      Values.Current current = Values.current(server.store(), key);
      if (current == null) {
        throw new CommandError("ERR The specified key does not exist");
      }
      HyperLogLog hll = HyperLogLog.over(sketch(current.value()));
      boolean sparse = hll.encoding() == HyperLogLog.SPARSE;
      if (r.is(1, "getreg") || r.is(1, "todense")) {
        if (sparse) {
          if (!hll.toDense()) {
            throw CORRUPT;
          }
          Values.rewrite(server.store(), key, hll.bytes(), current);
        }
        if (r.is(1, "todense")) {
          out.integer(sparse ? 1 : 0);
          return;
        }
        out.array(HyperLogLog.REGISTERS);
        for (int i = 0; i < HyperLogLog.REGISTERS; i++) {
          out.integer(hll.register(i));
        }
      } else if (r.is(1, "decode")) {
        if (!sparse) {
          throw new CommandError("ERR HLL encoding is not sparse");
        }
        out.bulk(hll.decode());
      } else if (r.is(1, "encoding")) {
        out.simple(sparse ? "sparse" : "dense");
      } else {
        throw new CommandError("ERR Unknown PFDEBUG subcommand '" + r.string(1) + "'");
      }
    } finally {
      server.locks().unlock(stripe);
    }
  }

  /**
   * Redis's self-test: registers keep what is written to them without touching their neighbours,
   * and over ten million distinct elements the dense and sparse forms agree and stay within six
   * standard errors of the truth at each power of ten.
   */
  static void pfselftest(Session s, Request r, ReplyWriter out) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long sparseMax = s.server().config().hllSparseMaxBytes();
    HyperLogLog dense = HyperLogLog.empty();
    dense.toDense();
    int[] expected = new int[HyperLogLog.REGISTERS];
    for (int round = 0; round < 1000; round++) {
      for (int i = 0; i < HyperLogLog.REGISTERS; i++) {
        expected[i] = random.nextInt(64);
        dense.overwrite(i, expected[i]);
      }
      for (int i = 0; i < HyperLogLog.REGISTERS; i++) {
        if (dense.register(i) != expected[i]) {
          out.error(
              "TESTFAILED Register "
                  + i
                  + " should be "
                  + expected[i]
                  + " but is "
                  + dense.register(i));
          return;
        }
      }
    }
    dense = HyperLogLog.empty();
    dense.toDense();
    HyperLogLog sparse = HyperLogLog.empty();
    double relativeError = 1.04 / Math.sqrt(HyperLogLog.REGISTERS);
    long checkpoint = 1;
    long seed = random.nextLong();
    byte[] element = new byte[8];
    for (long j = 1; j <= 10_000_000; j++) {
      long e = j ^ seed;
      for (int b = 0; b < 8; b++) {
        element[b] = (byte) (e >>> (8 * b));
      }
      dense.add(element, 0, 8, sparseMax);
      sparse.add(element, 0, 8, sparseMax);
      if (j != checkpoint) {
        continue;
      }
      if (j < sparseMax / 2 && sparse.encoding() != HyperLogLog.SPARSE) {
        out.error("TESTFAILED sparse encoding not used");
        return;
      }
      long count = dense.count();
      if (count != sparse.count()) {
        out.error("TESTFAILED dense/sparse disagree");
        return;
      }
      long maxError = j == 10 ? 1 : (long) Math.ceil(relativeError * 6 * checkpoint);
      long error = Math.abs(checkpoint - count);
      if (error > maxError) {
        out.error("TESTFAILED Too big error. card:" + checkpoint + " abserr:" + error);
        return;
      }
      checkpoint *= 10;
    }
    out.ok();
  }

  /** {@code value}, if it is a HyperLogLog; else Redis's error. */
  private static byte[] sketch(byte[] value) {
    if (!HyperLogLog.valid(value)) {
      throw NOT_HLL;
    }
    return value;
  }
}
