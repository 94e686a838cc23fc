package dev.cellar.server.command;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

/**
 * Redis 7's read-only tables: the globals, their metatable and every library table ({@code redis},
 * {@code cjson}, {@code cmsgpack}, {@code bit}, {@code string}, {@code table}, {@code math}) refuse
 * every change, whatever path it takes (an assignment, {@code rawset}, {@code setmetatable}, {@code
 * table.insert}, {@code table.sort}), with "Attempt to modify a readonly table". Without this a
 * script could replace {@code redis.call} or the globals' metatable, and the change would stay in
 * its thread's interpreter for every script after it.
 *
 * <p>Redis patches its Lua for this; here the tables are subclasses of LuaJ's that check a flag in
 * each of {@link LuaTable}'s mutators (every write to a table goes through one of them). A table is
 * filled first and {@link Guard#seal sealed} after; the runtime's own writes afterwards ({@code
 * KEYS} and {@code ARGV} before each script, the loading library's {@code redis}) go through {@link
 * Globals#rawset} by {@link Sandbox#setInternal}.
 */
final class LuaReadOnly {
  static final String REFUSED = "Attempt to modify a readonly table";

  private LuaReadOnly() {}

  /** What a read-only table does before each change. */
  interface Guard {
    void seal();

    boolean sealed();

    default void check() {
      if (sealed()) {
        throw new LuaError(REFUSED);
      }
    }
  }

  /** The globals of one interpreter. */
  static final class Sandbox extends Globals implements Guard {
    private boolean sealed;
    private boolean internal;

    @Override
    public void seal() {
      sealed = true;
    }

    @Override
    public boolean sealed() {
      return sealed && !internal;
    }

    /** Sets a global the runtime owns ({@code KEYS}, {@code ARGV}, {@code redis}). */
    void setInternal(String name, LuaValue value) {
      internal = true;
      try {
        super.rawset(LuaValue.valueOf(name), value);
      } finally {
        internal = false;
      }
    }

    @Override
    public LuaValue setmetatable(LuaValue metatable) {
      check();
      return super.setmetatable(metatable);
    }

    @Override
    public void rawset(int key, LuaValue value) {
      check();
      super.rawset(key, value);
    }

    @Override
    public void rawset(LuaValue key, LuaValue value) {
      check();
      super.rawset(key, value);
    }

    @Override
    public void hashset(LuaValue key, LuaValue value) {
      check();
      super.hashset(key, value);
    }

    @Override
    public void sort(LuaValue comparator) {
      check();
      super.sort(comparator);
    }
  }

  /** A library table, or a metatable. */
  static final class Table extends LuaTable implements Guard {
    private boolean sealed;

    @Override
    public void seal() {
      sealed = true;
    }

    @Override
    public boolean sealed() {
      return sealed;
    }

    @Override
    public LuaValue setmetatable(LuaValue metatable) {
      check();
      return super.setmetatable(metatable);
    }

    @Override
    public void rawset(int key, LuaValue value) {
      check();
      super.rawset(key, value);
    }

    @Override
    public void rawset(LuaValue key, LuaValue value) {
      check();
      super.rawset(key, value);
    }

    @Override
    public void hashset(LuaValue key, LuaValue value) {
      check();
      super.hashset(key, value);
    }

    @Override
    public void sort(LuaValue comparator) {
      check();
      super.sort(comparator);
    }
  }

  private static boolean stringsSealed;

  /**
   * Makes the strings' metatable (LuaJ keeps one for every interpreter) a sealed table whose {@code
   * __index} is {@code string}, a sealed library: {@code getmetatable('').__index} cannot reach a
   * table a script may change either.
   */
  static synchronized void sealStrings(LuaTable string) {
    if (stringsSealed) {
      return;
    }
    Table meta = new Table();
    meta.rawset(LuaValue.INDEX, string);
    meta.seal();
    org.luaj.vm2.LuaString.s_metatable = meta;
    stringsSealed = true;
  }

  /** A sealed copy of {@code source}'s entries, with its metatable (sealed too) if it has one. */
  static Table copyOf(LuaTable source) {
    Table copy = new Table();
    LuaValue key = LuaValue.NIL;
    while (true) {
      Varargs next = source.next(key);
      key = next.arg1();
      if (key.isnil()) {
        break;
      }
      copy.rawset(key, next.arg(2));
    }
    LuaValue meta = source.getmetatable();
    if (meta != null && meta.istable()) {
      copy.setmetatable(copyOf((LuaTable) meta));
    }
    copy.seal();
    return copy;
  }
}
