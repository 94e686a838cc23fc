package dev.cellar;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Layout rules, field accessors and the byte format of docs/format/struct.md. */
class StructTypeTest {

  /** The worked example of docs/format/struct.md. */
  static final class User extends Struct {
    static final StructType<User> TYPE =
        StructType.of(
            User::new,
            MemoryLayout.structLayout(
                JAVA_LONG.withName("id"),
                JAVA_INT.withName("age"),
                MemoryLayout.paddingLayout(4),
                MemoryLayout.sequenceLayout(32, JAVA_BYTE).withName("name")));
    static final StructField.OfLong ID = TYPE.longField("id");
    static final StructField.OfInt AGE = TYPE.intField("age");
    static final StructField.OfString NAME = TYPE.stringField("name");
  }

  private static final class Other extends Struct {}

  @Test
  void theDocumentsWorkedExampleHasTheseBytes() {
    User ada = User.TYPE.allocate();
    User.ID.set(ada, 36);
    User.AGE.set(ada, 36);
    User.NAME.set(ada, "Ada");
    assertEquals(48, User.TYPE.byteSize());
    assertEquals(
        "2400000000000000" + "24000000" + "00000000" + "416461" + "00".repeat(29),
        HexFormat.of().formatHex(ada.toBytes()));
  }

  @Test
  void fieldsAreLittleEndianAndUnalignedWhereverTheStructLies() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment memory = arena.allocate(3 + 48);
      User user = User.TYPE.allocate();
      user.wrap(memory, 3, 48);
      User.ID.set(user, 0x0102030405060708L);
      assertEquals(0x08, memory.get(JAVA_BYTE, 3));
      assertEquals(
          0x0102030405060708L,
          memory.get(JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN).withByteAlignment(1), 3));
      assertEquals(0x0102030405060708L, User.ID.get(User.TYPE.wrap(memory.asSlice(3))));
    }
  }

  @Test
  void aStringThatFillsItsFieldHasNoNulAndReadsBackWhole() {
    User user = User.TYPE.allocate();
    String full = "é".repeat(16); // 32 bytes of UTF-8
    User.NAME.set(user, full);
    assertEquals(full, User.NAME.get(user));
    User.NAME.set(user, "Bo");
    assertEquals("Bo", User.NAME.get(user), "a shorter string clears the rest");
  }

  @Test
  void aStringTooLongOrHoldingNulIsRefused() {
    User user = User.TYPE.allocate();
    IllegalArgumentException tooLong =
        assertThrows(IllegalArgumentException.class, () -> User.NAME.set(user, "x".repeat(33)));
    assertTrue(tooLong.getMessage().contains("holds 32 bytes of UTF-8"), tooLong.getMessage());
    assertTrue(tooLong.getMessage().contains("needs 33"), tooLong.getMessage());
    assertThrows(IllegalArgumentException.class, () -> User.NAME.set(user, "a\0b"));
  }

  @Test
  void bytesFieldsCopyAndPad() {
    StructField.OfBytes raw = User.TYPE.bytesField("name");
    User user = User.TYPE.allocate();
    raw.set(user, new byte[] {1, 2, 3});
    byte[] back = raw.get(user);
    assertEquals(32, back.length);
    assertEquals(3, back[2]);
    assertEquals(0, back[3]);
  }

  @Test
  void anUnknownFieldIsRefusedListingTheFields() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> User.TYPE.longField("email"));
    assertEquals("User has no field email; its fields are id, age, name", e.getMessage().strip());
  }

  @Test
  void aFieldOfAnotherTypeIsRefused() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> User.TYPE.intField("id"));
    assertTrue(e.getMessage().contains("User.id"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> User.TYPE.stringField("age"));
  }

  @Test
  void aBigEndianFieldIsRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                StructType.of(
                    Other::new,
                    MemoryLayout.structLayout(
                        JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).withName("id"))));
    assertTrue(e.getMessage().contains("field id is big-endian"), e.getMessage());
  }

  @Test
  void anAddressFieldIsRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                StructType.of(
                    Other::new, MemoryLayout.structLayout(ValueLayout.ADDRESS.withName("next"))));
    assertTrue(e.getMessage().contains("field next is an address"), e.getMessage());
  }

  @Test
  void aStructMadeWithNewSaysHowToMakeOne() {
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> new Other().toBytes());
    assertTrue(e.getMessage().contains("make structs with their StructType"), e.getMessage());
  }

  @Test
  void wrappingOutsideTheSegmentIsRefused() {
    User user = User.TYPE.allocate();
    MemorySegment small = MemorySegment.ofArray(new byte[60]);
    assertThrows(IndexOutOfBoundsException.class, () -> user.wrap(small, 13, 48));
    user.wrap(small, 12, 48);
  }

  @Test
  void copyFromCopiesEveryByte() {
    User a = User.TYPE.allocate();
    User.ID.set(a, 7);
    User.NAME.set(a, "Grace");
    User b = User.TYPE.allocate();
    b.copyFrom(a);
    assertEquals("Grace", User.NAME.get(b));
    assertEquals(7, User.ID.get(b));
  }
}
