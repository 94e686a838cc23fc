package dev.cellar.server.command;

import dev.cellar.server.files.SmallFiles;
import dev.cellar.server.resp.RequestParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The function libraries ({@code FUNCTION LOAD}): each library's code and the functions it
 * registered, kept in {@code functions.dat} in the data directory so that they survive restarts as
 * Redis's do in its RDB and AOF. Every change rewrites the file whole (a temporary file, fsynced,
 * renamed over the old, the directory fsynced), before the command replies.
 *
 * <p>The code is run once where it is loaded, to check it and learn its functions; each thread that
 * calls a function runs the libraries again in its own interpreter ({@link LuaRuntime} values are
 * not thread-safe), which {@link #generation} tells it to do after any change. Loading code has no
 * side effects ({@code redis.call} is not available to it), so running it again is safe.
 */
final class FunctionLibraries {
  /** A function a library registered. */
  record Function(String name, String library, String description, List<String> flags) {
    boolean noWrites() {
      return flags.contains("no-writes");
    }

    boolean allowOom() {
      return flags.contains("allow-oom");
    }
  }

  /** A library: its name, its code and its functions. */
  record Library(String name, byte[] code, List<Function> functions) {}

  static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]+");

  private final Path file;
  private final Map<String, Library> libraries = new LinkedHashMap<>();
  private final Map<String, Function> functions = new LinkedHashMap<>();
  private volatile long generation;

  /**
   * @param directory the data directory; null keeps the libraries in memory only
   */
  FunctionLibraries(Path directory) {
    this.file = directory == null ? null : directory.resolve(FunctionFileDescriptor.FILE_NAME);
  }

  /** Bumped by every change: runtimes compare it to know their copies are stale. */
  long generation() {
    return generation;
  }

  synchronized List<Library> all() {
    return List.copyOf(libraries.values());
  }

  synchronized Function function(String name) {
    return functions.get(key(name));
  }

  /** Function names are case-insensitive, as in Redis ({@code FCALL TEST} calls {@code test}). */
  private static String key(String name) {
    return name.toLowerCase(java.util.Locale.ROOT);
  }

  synchronized int functionCount() {
    return functions.size();
  }

  /**
   * Reads the libraries saved in the data directory, checking each with {@code checker}.
   *
   * @throws IllegalStateException naming the file and what is wrong with it
   */
  synchronized void restore(Checker checker) {
    if (file == null || !Files.exists(file)) {
      return;
    }
    List<byte[]> codes;
    try {
      codes = FunctionFileDescriptor.decode(Files.readAllBytes(file));
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalStateException(
          "the function libraries in "
              + file
              + " cannot be read ("
              + e.getMessage()
              + "); restore the file from a backup, or move it away to start without them",
          e);
    }
    for (byte[] code : codes) {
      try {
        add(checker.check(code));
      } catch (CommandError e) {
        throw new IllegalStateException(
            "a function library in " + file + " no longer loads: " + e.getMessage(), e);
      }
    }
    generation++;
  }

  /** Checks a library's code and returns it with its functions (run by the loading thread). */
  @FunctionalInterface
  interface Checker {
    Library check(byte[] code);
  }

  /** {@code FUNCTION LOAD}: adds (or with {@code replace}, replaces) a checked library. */
  synchronized void load(Library library, boolean replace) {
    Library old = libraries.get(library.name());
    if (old != null && !replace) {
      throw new CommandError("ERR Library '" + library.name() + "' already exists");
    }
    for (Function f : library.functions()) {
      Function existing = functions.get(key(f.name()));
      if (existing != null && !existing.library().equals(library.name())) {
        throw new CommandError("ERR Function " + f.name() + " already exists");
      }
    }
    Map<String, Library> before = new LinkedHashMap<>(libraries);
    Map<String, Function> functionsBefore = new LinkedHashMap<>(functions);
    if (old != null) {
      remove(old);
    }
    add(library);
    try {
      save();
    } catch (RuntimeException e) {
      putBack(before, functionsBefore);
      throw e;
    }
    generation++;
  }

  /**
   * {@code FUNCTION RESTORE}: adds checked libraries as one change. {@code policy} is {@code flush}
   * (they replace every library), {@code append} (a library already there is an error) or {@code
   * replace} (one already there is replaced); a function name another library holds is an error,
   * and an error changes nothing.
   */
  synchronized void restoreAll(List<Library> incoming, String policy) {
    Map<String, Library> before = new LinkedHashMap<>(libraries);
    Map<String, Function> functionsBefore = new LinkedHashMap<>(functions);
    try {
      if (policy.equals("flush")) {
        libraries.clear();
        functions.clear();
      }
      for (Library library : incoming) {
        Library old = libraries.get(library.name());
        if (old != null) {
          if (!policy.equals("replace")) {
            throw new CommandError("ERR Library " + library.name() + " already exists");
          }
          remove(old);
        }
      }
      for (Library library : incoming) {
        for (Function f : library.functions()) {
          if (functions.containsKey(key(f.name()))) {
            throw new CommandError("ERR Function " + f.name() + " already exists");
          }
        }
        add(library);
      }
      save();
    } catch (RuntimeException e) {
      putBack(before, functionsBefore);
      throw e;
    }
    generation++;
  }

  /** Undoes a change that could not be saved: the maps as they were before it. */
  private void putBack(Map<String, Library> before, Map<String, Function> functionsBefore) {
    libraries.clear();
    libraries.putAll(before);
    functions.clear();
    functions.putAll(functionsBefore);
  }

  /** {@code FUNCTION DELETE}. */
  synchronized void delete(String name) {
    Library library = libraries.get(name);
    if (library == null) {
      throw new CommandError("ERR Library not found");
    }
    remove(library);
    try {
      save();
    } catch (RuntimeException e) {
      add(library);
      throw e;
    }
    generation++;
  }

  /** {@code FUNCTION FLUSH}. */
  synchronized void flush() {
    Map<String, Library> before = new LinkedHashMap<>(libraries);
    libraries.clear();
    functions.clear();
    try {
      save();
    } catch (RuntimeException e) {
      for (Library l : before.values()) {
        add(l);
      }
      throw e;
    }
    generation++;
  }

  private void add(Library library) {
    libraries.put(library.name(), library);
    for (Function f : library.functions()) {
      functions.put(key(f.name()), f);
    }
  }

  private void remove(Library library) {
    libraries.remove(library.name());
    for (Function f : library.functions()) {
      functions.remove(key(f.name()));
    }
  }

  /** Writes every library to the file, durably, replacing it in one rename. */
  private void save() {
    if (file == null) {
      return;
    }
    List<byte[]> codes = new ArrayList<>();
    for (Library l : libraries.values()) {
      codes.add(l.code());
    }
    try {
      SmallFiles.replace(file, FunctionFileDescriptor.encode(codes));
    } catch (IOException e) {
      throw new CommandError(
          "ERR the function libraries could not be saved ("
              + e.getMessage()
              + "); nothing changed");
    }
  }

  /**
   * The library name in the first line of {@code code} ({@code #!lua name=<name>}), with Redis's
   * errors for anything else.
   */
  static String parseHeader(byte[] code) {
    int end = 0;
    while (end < code.length && code[end] != '\n') {
      end++;
    }
    if (end < 2 || code[0] != '#' || code[1] != '!') {
      throw new CommandError("ERR Missing library metadata");
    }
    // Split as Redis splits it (sdssplitargs, "#!" included): name="foo" is foo, and the engine
    // is the first word without its "#!" ("#! name=x" names the engine "").
    List<byte[]> words =
        end == code.length ? null : RequestParser.splitArgs(java.util.Arrays.copyOf(code, end));
    if (words == null || words.isEmpty()) {
      throw new CommandError("ERR Invalid library metadata");
    }
    String[] parts = new String[words.size()];
    for (int i = 0; i < parts.length; i++) {
      parts[i] = new String(words.get(i), StandardCharsets.UTF_8);
    }
    String engine = parts[0].length() >= 2 ? parts[0].substring(2) : "";
    if (!engine.equalsIgnoreCase("lua")) {
      throw new CommandError("ERR Engine '" + engine + "' not found");
    }
    String name = null;
    for (int i = 1; i < parts.length; i++) {
      if (parts[i].regionMatches(true, 0, "name=", 0, 5)) {
        if (name != null) {
          throw new CommandError(
              "ERR Invalid metadata value, name argument was given multiple times");
        }
        name = parts[i].substring(5);
      } else {
        throw new CommandError("ERR Invalid metadata value given: " + parts[i]);
      }
    }
    if (name == null) {
      throw new CommandError("ERR Library name was not given");
    }
    if (!NAME.matcher(name).matches()) {
      throw new CommandError(
          "ERR Library names can only contain letters, numbers, or underscores(_) and must be at"
              + " least one character long");
    }
    return name;
  }
}
