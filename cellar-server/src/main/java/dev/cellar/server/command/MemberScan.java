package dev.cellar.server.command;

import dev.cellar.server.collection.CollectionDescriptor;
import dev.cellar.server.collection.Members;
import dev.cellar.server.config.Glob;
import dev.cellar.server.resp.ReplyWriter;
import dev.cellar.server.resp.Request;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code HSCAN} and {@code SSCAN}: a cursor over a hash's or set's slots, from the top down (see
 * {@link Members} for why that order misses no member present throughout). The cursor is the number
 * of slots still to visit below; 0 starts and ends. A collection of up to {@link #WHOLE} members is
 * returned whole in one call, as Redis returns its small encodings.
 */
final class MemberScan {
  /** Redis's default largest listpack: collections it answers in one call. */
  static final long WHOLE = 128;

  private MemberScan() {}

  static void scan(Session s, Request r, ReplyWriter out, int type) {
    long cursor;
    try {
      cursor = Long.parseUnsignedLong(r.string(2));
    } catch (NumberFormatException e) {
      throw new CommandError("ERR invalid cursor");
    }
    byte[] pattern = null;
    long count = 10;
    boolean values = type == CollectionDescriptor.HASH;
    for (int i = 3; i < r.argc(); i++) {
      if (r.is(i, "match") && i + 1 < r.argc()) {
        pattern = r.bytes(++i);
      } else if (r.is(i, "count") && i + 1 < r.argc()) {
        if (!r.isLong(i + 1)) {
          throw CommandError.NOT_INTEGER;
        }
        count = r.longValue(++i);
        if (count < 1) {
          throw CommandError.SYNTAX;
        }
      } else if (type == CollectionDescriptor.HASH && r.is(i, "novalues")) {
        values = false;
      } else {
        throw CommandError.SYNTAX;
      }
    }
    Members members = CollectionKeys.members(s.server().edits(), r.bytes(1), type);
    long n = members.count();
    long top = cursor == 0 || cursor > n ? n : cursor;
    long bottom = n <= WHOLE ? 0 : Math.max(0, top - count);
    if (n <= WHOLE) {
      top = n;
    }
    List<byte[]> found = new ArrayList<>();
    for (long k = top - 1; k >= bottom; k--) {
      // A whole small collection goes in slot order: what Redis's listpacks give, barring removals.
      long slot = n <= WHOLE ? n - 1 - k : k;
      byte[] member = members.memberAt(slot);
      if (pattern == null || Glob.matches(pattern, 0, pattern.length, member, 0, member.length)) {
        found.add(member);
        if (values) {
          found.add(members.payload(member));
        }
      }
    }
    out.array(2);
    out.bulk(Long.toUnsignedString(bottom));
    out.array(found.size());
    for (byte[] b : found) {
      out.bulk(b);
    }
  }
}
