package dev.cellar.bench.stores;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The stores the benchmarks know, by the name used on the command line and in results, with the JVM
 * flags each one's JVM needs. Cellar gets only native access (it calls {@code fallocate} through
 * the FFM linker); peers get what their own documentation asks for on JDK 17 and later.
 */
public enum StoreKind {
  CELLAR("cellar", CellarAdapter::new, List.of("--enable-native-access=ALL-UNNAMED")),
  HASHMAP("hashmap", HashMapAdapter::new, List.of()),
  CHRONICLE("chronicle", ChronicleMapAdapter::new, Flags.CHRONICLE),
  MAPDB("mapdb", MapDbAdapter::new, Flags.MAPDB),
  LMDB("lmdb", LmdbAdapter::new, Flags.LMDB),
  ROCKSDB("rocksdb", RocksDbAdapter::new, List.of("--enable-native-access=ALL-UNNAMED"));

  private final String id;
  private final Supplier<StoreAdapter> factory;
  private final List<String> jvmFlags;

  StoreKind(String id, Supplier<StoreAdapter> factory, List<String> jvmFlags) {
    this.id = id;
    this.factory = factory;
    this.jvmFlags = jvmFlags;
  }

  /** The name on the command line and in results. */
  public String id() {
    return id;
  }

  /** A new, unopened adapter. */
  public StoreAdapter newAdapter() {
    return factory.get();
  }

  /** Flags this store's JVM needs besides the common heap and GC settings. */
  public List<String> jvmFlags() {
    return jvmFlags;
  }

  public static StoreKind parse(String id) {
    for (StoreKind kind : values()) {
      if (kind.id.equals(id.trim().toLowerCase(Locale.ROOT))) {
        return kind;
      }
    }
    throw new IllegalArgumentException(
        "unknown store '" + id + "': expected one of " + Arrays.toString(ids()));
  }

  /** Parses a comma-separated list, keeping its order and dropping repeats. */
  public static List<StoreKind> parseList(String ids) {
    List<StoreKind> kinds = new ArrayList<>();
    for (String id : ids.split(",")) {
      if (!id.isBlank() && !kinds.contains(parse(id))) {
        kinds.add(parse(id));
      }
    }
    if (kinds.isEmpty()) {
      throw new IllegalArgumentException("no store named in '" + ids + "'");
    }
    return kinds;
  }

  public static String[] ids() {
    return Arrays.stream(values()).map(StoreKind::id).toArray(String[]::new);
  }

  /** Peer flag lists; keep in step with {@code peer.jvm.flags} in this module's pom. */
  private static final class Flags {
    /** MapDB reaches direct-buffer internals (to unmap files) and loads lz4's JNI library. */
    static final List<String> MAPDB =
        List.of(
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow",
            "--enable-native-access=ALL-UNNAMED");

    /** Chronicle's documented JDK 17+ list, then its switches for analytics and banners. */
    static final List<String> CHRONICLE =
        List.of(
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow",
            "--enable-native-access=ALL-UNNAMED",
            "-Dchronicle.analytics.disable=true",
            "-Dchronicle.announcer.disable=true");

    /** lmdbjava's Unsafe buffer proxy, plus native access for jnr-ffi. */
    static final List<String> LMDB =
        List.of(
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow",
            "--enable-native-access=ALL-UNNAMED");
  }
}
