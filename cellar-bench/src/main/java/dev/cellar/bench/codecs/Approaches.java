package dev.cellar.bench.codecs;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/** The approaches the benchmark knows, by the key that names them on the command line. */
final class Approaches {
  /**
   * In the seed's column order, with Cellar's structs after the hand-written flyweight and Cellar's
   * Fory codec after the Fory rows.
   */
  private static final Map<String, Function<PriceUpdate[], EncodingApproach>> ALL = all();

  private Approaches() {}

  static Set<String> keys() {
    return ALL.keySet();
  }

  static boolean known(String key) {
    return ALL.containsKey(key);
  }

  static EncodingApproach create(String key, PriceUpdate[] samples) {
    Function<PriceUpdate[], EncodingApproach> make = ALL.get(key);
    if (make == null) {
      throw new IllegalArgumentException(
          "unknown approach '" + key + "'; known: " + String.join(", ", ALL.keySet()));
    }
    return make.apply(samples);
  }

  private static Map<String, Function<PriceUpdate[], EncodingApproach>> all() {
    Map<String, Function<PriceUpdate[], EncodingApproach>> all = new LinkedHashMap<>();
    all.put("flyweight", FlyweightApproach::new);
    all.put("struct-view", StructViewApproach::new);
    all.put("struct", StructCodecApproach::new);
    all.put("fory", samples -> new ForyApproach(samples, false));
    all.put("fory-refs", samples -> new ForyApproach(samples, true));
    all.put("fory-codec", ForyCodecApproach::new);
    all.put("jdk-unshared", samples -> new JdkSerializationApproach(samples, false));
    all.put("jdk", samples -> new JdkSerializationApproach(samples, true));
    return all;
  }
}
