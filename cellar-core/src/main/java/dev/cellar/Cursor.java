package dev.cellar;

import java.util.Iterator;

/** An iteration over entries that holds resources until closed. */
public interface Cursor extends Iterator<Entry>, AutoCloseable {
  @Override
  void close();
}
