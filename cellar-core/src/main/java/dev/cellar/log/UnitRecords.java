package dev.cellar.log;

/**
 * The records of one atomic unit that {@link LogWriter#appendUnit} appends: puts and deletes, item
 * by item, copied straight from the caller's storage as {@link PutRecords} are.
 */
public interface UnitRecords extends PutRecords {
  /** {@link RecordDescriptor#PUT} or {@link RecordDescriptor#DELETE} (whose value is empty). */
  int type(int item);
}
