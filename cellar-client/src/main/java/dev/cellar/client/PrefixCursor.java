package dev.cellar.client;

import dev.cellar.Cellar;
import dev.cellar.Cursor;
import dev.cellar.Entry;
import java.io.ByteArrayOutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The entries whose keys start with a prefix, as {@link Cellar#scan(byte[])} gives them, read from
 * a server: pages of {@code SCAN MATCH <prefix>*}, then for each page one pipeline of {@code MGET}
 * and {@code PEXPIRETIME}. Holds nothing on the server, so closing it only stops it.
 *
 * <p>The guarantee is {@code SCAN}'s: every key present for the whole iteration comes once, a key
 * written or deleted meanwhile may or may not. A key deleted between its page and its values is
 * skipped. Not a snapshot: each page's values are read when the page is.
 */
final class PrefixCursor implements Cursor {
  private static final int PAGE = 256;

  private final CellarClient client;
  private final byte[] pattern;
  private final ArrayDeque<Entry> ready = new ArrayDeque<>();
  private String cursor = "0";
  private boolean started;
  private boolean closed;

  PrefixCursor(CellarClient client, byte[] prefix) {
    this.client = client;
    this.pattern = globPrefix(prefix);
  }

  /** A glob matching exactly the keys that start with {@code prefix}: its bytes escaped, then *. */
  static byte[] globPrefix(byte[] prefix) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(prefix.length + 8);
    for (byte b : prefix) {
      if (b == '*' || b == '?' || b == '[' || b == ']' || b == '\\') {
        out.write('\\');
      }
      out.write(b);
    }
    out.write('*');
    return out.toByteArray();
  }

  @Override
  public boolean hasNext() {
    while (ready.isEmpty() && !closed && (!started || !cursor.equals("0"))) {
      started = true;
      Commands.ScanPage page = client.scanPage(cursor, pattern, PAGE);
      cursor = page.cursor();
      load(page.keys());
    }
    return !ready.isEmpty();
  }

  private void load(List<byte[]> keys) {
    if (keys.isEmpty()) {
      return;
    }
    try (Pipeline p = client.pipeline()) {
      Pipeline.Result<List<byte[]>> values = p.mget(keys.toArray(new byte[0][]));
      List<Pipeline.Result<Reply>> expiries = new ArrayList<>(keys.size());
      for (byte[] key : keys) {
        expiries.add(p.command("PEXPIRETIME", key));
      }
      p.sync();
      Iterator<byte[]> v = values.get().iterator();
      for (int i = 0; i < keys.size(); i++) {
        byte[] value = v.next();
        long expiry = expiries.get(i).get().asLong(); // -1: none, -2: gone meanwhile
        if (value != null && expiry != -2) {
          ready.add(new Entry(keys.get(i), value, expiry == -1 ? Cellar.NO_EXPIRY : expiry));
        }
      }
    }
  }

  @Override
  public Entry next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return ready.poll();
  }

  @Override
  public void close() {
    closed = true;
    ready.clear();
  }
}
