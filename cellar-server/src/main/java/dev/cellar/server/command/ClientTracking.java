package dev.cellar.server.command;

import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code CLIENT TRACKING}, {@code CLIENT CACHING}, {@code CLIENT GETREDIR} and {@code CLIENT
 * TRACKINGINFO}: a client's side of {@link Tracking}, with Redis 7.2's options, checks and error
 * texts.
 */
final class ClientTracking {
  private ClientTracking() {}

  /**
   * {@code CLIENT TRACKING (on|off) [REDIRECT id] [BCAST] [PREFIX p]... [OPTIN] [OPTOUT] [NOLOOP]}.
   */
  static void tracking(Session s, Request r, ReplyWriter out) {
    long redirect = 0;
    boolean bcast = false;
    boolean optin = false;
    boolean optout = false;
    boolean noloop = false;
    List<byte[]> prefixes = new ArrayList<>();
    for (int j = 3; j < r.argc(); j++) {
      boolean more = j + 1 < r.argc();
      if (r.is(j, "redirect") && more) {
        j++;
        if (redirect != 0) {
          throw new CommandError("ERR A client can only redirect to a single other client");
        }
        if (!r.isLong(j)) {
          throw CommandError.NOT_INTEGER;
        }
        redirect = r.longValue(j);
        if (s.server().clients().find(redirect) == null) {
          throw new CommandError("ERR The client ID you want redirect to does not exist");
        }
      } else if (r.is(j, "bcast")) {
        bcast = true;
      } else if (r.is(j, "optin")) {
        optin = true;
      } else if (r.is(j, "optout")) {
        optout = true;
      } else if (r.is(j, "noloop")) {
        noloop = true;
      } else if (r.is(j, "prefix") && more) {
        prefixes.add(r.bytes(++j));
      } else {
        throw CommandError.SYNTAX;
      }
    }
    Tracking tracking = s.server().tracking();
    if (r.is(2, "off")) {
      tracking.disable(s);
      out.ok();
      return;
    }
    if (!r.is(2, "on")) {
      throw CommandError.SYNTAX;
    }
    Tracking.Mode now = s.tracking();
    if (!bcast && !prefixes.isEmpty()) {
      throw new CommandError("ERR PREFIX option requires BCAST mode to be enabled");
    }
    if (now != null && now.bcast != bcast) {
      throw new CommandError(
          "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and"
              + " then re-enabling it with a different mode.");
    }
    if (bcast && (optin || optout)) {
      throw new CommandError("ERR OPTIN and OPTOUT are not compatible with BCAST");
    }
    if (optin && optout) {
      throw new CommandError("ERR You can't specify both OPTIN mode and OPTOUT mode");
    }
    if (now != null && ((optin && now.optout) || (optout && now.optin))) {
      throw new CommandError(
          "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and"
              + " then re-enabling it with a different mode.");
    }
    if (bcast) {
      checkPrefixes(now == null ? List.of() : now.prefixes, prefixes);
    }
    tracking.enable(s, new Tracking.Mode(bcast, optin, optout, noloop, redirect, prefixes));
    out.ok();
  }

  /** Redis's {@code checkPrefixCollisionsOrReply}: no prefix of a client may be another's start. */
  private static void checkPrefixes(List<byte[]> existing, List<byte[]> added) {
    for (int i = 0; i < added.size(); i++) {
      byte[] p = added.get(i);
      for (byte[] q : existing) {
        if (overlap(p, q)) {
          throw new CommandError(
              "ERR Prefix '"
                  + text(p)
                  + "' overlaps with an existing prefix '"
                  + text(q)
                  + "'. Prefixes for a single client must not overlap.");
        }
      }
      for (int j = i + 1; j < added.size(); j++) {
        if (overlap(p, added.get(j))) {
          throw new CommandError(
              "ERR Prefix '"
                  + text(p)
                  + "' overlaps with another provided prefix '"
                  + text(added.get(j))
                  + "'. Prefixes for a single client must not overlap.");
        }
      }
    }
  }

  private static boolean overlap(byte[] a, byte[] b) {
    int n = Math.min(a.length, b.length);
    return java.util.Arrays.equals(a, 0, n, b, 0, n);
  }

  private static String text(byte[] b) {
    return new String(b, java.nio.charset.StandardCharsets.UTF_8);
  }

  /** {@code CLIENT CACHING yes|no}: whether the next command's keys are remembered. */
  static void caching(Session s, Request r, ReplyWriter out) {
    Tracking.Mode mode = s.tracking();
    if (mode == null) {
      throw new CommandError(
          "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN"
              + " or OPTOUT mode enabled");
    }
    if (r.is(2, "yes")) {
      if (!mode.optin) {
        throw new CommandError(
            "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
      }
    } else if (r.is(2, "no")) {
      if (!mode.optout) {
        throw new CommandError(
            "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
      }
    } else {
      throw CommandError.SYNTAX;
    }
    s.cachingGiven(true);
    out.ok();
  }

  /** {@code CLIENT GETREDIR}: the redirect's id, 0 for none, -1 while not tracking. */
  static void getRedir(Session s, ReplyWriter out) {
    Tracking.Mode mode = s.tracking();
    out.integer(mode == null ? -1 : mode.redirect);
  }

  /** {@code CLIENT TRACKINGINFO}: flags, redirect and prefixes, as Redis lists them. */
  static void trackingInfo(Session s, ReplyWriter out) {
    Tracking.Mode mode = s.tracking();
    List<String> flags = new ArrayList<>();
    flags.add(mode == null ? "off" : "on");
    if (mode != null) {
      if (mode.bcast) {
        flags.add("bcast");
      }
      if (mode.optin) {
        flags.add("optin");
        if (s.cachingGiven()) {
          flags.add("caching-yes");
        }
      }
      if (mode.optout) {
        flags.add("optout");
        if (s.cachingGiven()) {
          flags.add("caching-no");
        }
      }
      if (mode.noloop) {
        flags.add("noloop");
      }
      if (mode.redirectBroken) {
        flags.add("broken_redirect");
      }
    }
    out.map(3);
    out.bulk("flags");
    out.set(flags.size());
    for (String f : flags) {
      out.bulk(f);
    }
    out.bulk("redirect");
    out.integer(mode == null ? -1 : mode.redirect);
    out.bulk("prefixes");
    List<byte[]> prefixes = mode == null ? List.of() : mode.prefixes;
    out.array(prefixes.size());
    for (byte[] p : prefixes) {
      out.bulk(p);
    }
  }
}
