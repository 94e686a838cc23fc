package dev.cellar.bench.atrest;

/**
 * The engine part's rows: what one operation is, which CPU clock measures it, and the AES-GCM work
 * the encrypted store does for it, which the codec part prices per record.
 */
enum EngineRow {
  LOAD("load", "putAll of 100 documents", "doc", false, 1, 0),
  GET("get", "get, uniform random keys", "GET", false, 0, 1),
  GET_ALL("getAll", "getAll of 16 uniform random keys", "key", false, 0, 1),
  COMPACTION(
      "compaction",
      "compact() until a pass reclaims nothing, after every even key is overwritten",
      "record copied",
      false,
      1,
      1),
  RECOVERY("recovery", "open with no checkpoint: the whole log replayed", "record", true, 0, 1);

  /** The name in the JSON and the table. */
  final String id;

  final String description;

  /** What one operation is. */
  final String unit;

  /**
   * Whether the row is measured in the process's CPU time: replay may apply records on a second
   * thread. The other rows run on the measuring thread alone, whose CPU time leaves out other
   * processes, the JIT and the collector.
   */
  final boolean processCpu;

  /** AES-GCM encryptions of one record per operation in the encrypted store. */
  final int encryptions;

  /** AES-GCM decryptions of one record per operation in the encrypted store. */
  final int decryptions;

  EngineRow(
      String id,
      String description,
      String unit,
      boolean processCpu,
      int encryptions,
      int decryptions) {
    this.id = id;
    this.description = description;
    this.unit = unit;
    this.processCpu = processCpu;
    this.encryptions = encryptions;
    this.decryptions = decryptions;
  }

  /** The AES-GCM work of one operation, in words: {@code encrypt}, {@code decrypt + encrypt}. */
  String gcmWork() {
    if (encryptions > 0 && decryptions > 0) {
      return "decrypt + encrypt";
    }
    return encryptions > 0 ? "encrypt" : "decrypt";
  }
}
