package dev.cellar.bench.codecs;

/** What the benchmark times for each approach: the seed's encoding, its decoding, and both. */
enum Operation {
  ENCODE("encode", "encode"),
  DECODE("decode", "decode"),
  ROUND_TRIP("round trip", "roundTrip");

  final String label;
  final String jsonKey;

  Operation(String label, String jsonKey) {
    this.label = label;
    this.jsonKey = jsonKey;
  }
}
