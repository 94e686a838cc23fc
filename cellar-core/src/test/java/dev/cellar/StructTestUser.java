package dev.cellar;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;

/**
 * The struct the tests store: every kind of field, a nested struct, explicit padding. 64 bytes.
 *
 * <pre>
 *   0  id       long
 *   8  age      int
 *  12  (padding, 2 bytes)
 *  14  flags    short
 *  16  name     32 bytes, UTF-8, NUL-padded
 *  48  position struct { x double, y double }   (ends at 64)
 * </pre>
 */
final class StructTestUser extends Struct {
  static final StructType<StructTestUser> TYPE =
      StructType.of(
          StructTestUser::new,
          MemoryLayout.structLayout(
              JAVA_LONG.withName("id"),
              JAVA_INT.withName("age"),
              MemoryLayout.paddingLayout(2),
              JAVA_SHORT.withName("flags"),
              MemoryLayout.sequenceLayout(32, JAVA_BYTE).withName("name"),
              MemoryLayout.structLayout(JAVA_DOUBLE.withName("x"), JAVA_DOUBLE.withName("y"))
                  .withName("position")));

  private static final StructField.OfLong ID = TYPE.longField("id");
  private static final StructField.OfInt AGE = TYPE.intField("age");
  private static final StructField.OfShort FLAGS = TYPE.shortField("flags");
  private static final StructField.OfString NAME = TYPE.stringField("name");
  private static final StructField.OfDouble X = TYPE.doubleField("position", "x");
  private static final StructField.OfDouble Y = TYPE.doubleField("position", "y");

  long id() {
    return ID.get(this);
  }

  StructTestUser id(long id) {
    ID.set(this, id);
    return this;
  }

  int age() {
    return AGE.get(this);
  }

  StructTestUser age(int age) {
    AGE.set(this, age);
    return this;
  }

  short flags() {
    return FLAGS.get(this);
  }

  StructTestUser flags(short flags) {
    FLAGS.set(this, flags);
    return this;
  }

  String name() {
    return NAME.get(this);
  }

  StructTestUser name(String name) {
    NAME.set(this, name);
    return this;
  }

  double x() {
    return X.get(this);
  }

  double y() {
    return Y.get(this);
  }

  StructTestUser position(double x, double y) {
    X.set(this, x);
    Y.set(this, y);
    return this;
  }

  /** The on-heap form the tests compare against. */
  record Plain(long id, int age, short flags, String name, double x, double y) {
    StructTestUser writeTo(StructTestUser user) {
      return user.id(id).age(age).flags(flags).name(name).position(x, y);
    }
  }

  Plain toPlain() {
    return new Plain(id(), age(), flags(), name(), x(), y());
  }
}
