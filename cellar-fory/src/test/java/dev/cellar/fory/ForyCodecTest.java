package dev.cellar.fory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellar.CellarException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.fory.memory.MemoryBuffer;
import org.junit.jupiter.api.Test;

class ForyCodecTest {
  private static final ForyCodec<User> USERS = ForyCodec.of(User.class);

  record Address(String city, String street) {}

  record Customer(User user, Address address) {}

  record Blob(String name, ByteBuffer data) {}

  /** Two roles pointing at one user, to tell shared references from copies. */
  record Pair(User left, User right) {}

  /** A mutable node, so that a value can contain a cycle. */
  static final class Node {
    String name;
    Node next;
  }

  /** The same stored class before and after it gained a field. */
  record ProfileV1(String name, String email) {}

  record ProfileV2(String name, String email, int age) {}

  @Test
  void roundTripsThroughAHeapArray() {
    byte[] bytes = USERS.encode(User.ada());
    assertEquals(User.ada(), USERS.decode(MemorySegment.ofArray(bytes)));
  }

  @Test
  void decodesNativeMemoryAtAnOffsetAndReadOnly() {
    byte[] bytes = USERS.encode(User.ada());
    try (Arena arena = Arena.ofConfined()) {
      // A slice at an odd offset, read-only: what Cellar hands a codec from its log.
      MemorySegment log = arena.allocate(bytes.length + 64);
      MemorySegment value = log.asSlice(13, bytes.length);
      value.copyFrom(MemorySegment.ofArray(bytes));
      assertEquals(User.ada(), USERS.decode(value.asReadOnly()));
    }
  }

  @Test
  void decodesReadOnlyAndSlicedHeapSegments() {
    byte[] bytes = USERS.encode(User.ada());
    byte[] padded = new byte[bytes.length + 10];
    System.arraycopy(bytes, 0, padded, 7, bytes.length);
    MemorySegment slice = MemorySegment.ofArray(padded).asSlice(7, bytes.length);
    assertEquals(User.ada(), USERS.decode(slice));
    assertEquals(User.ada(), USERS.decode(slice.asReadOnly()));
  }

  @Test
  void decodesSegmentsOverArraysOtherThanBytes() {
    byte[] bytes = USERS.encode(User.ada());
    long[] words = new long[(bytes.length + 7) / 8];
    MemorySegment.ofArray(words).copyFrom(MemorySegment.ofArray(bytes));
    MemorySegment value = MemorySegment.ofArray(words).asSlice(0, bytes.length);
    assertEquals(User.ada(), USERS.decode(value));
  }

  @Test
  void readsWritableHeapSegmentsInPlaceAndCopiesTheRest() {
    byte[] bytes = USERS.encode(User.ada());
    assertSame(bytes, SegmentInput.of(MemorySegment.ofArray(bytes)).getHeapMemory());
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment value = arena.allocate(bytes.length).copyFrom(MemorySegment.ofArray(bytes));
      MemoryBuffer copied = SegmentInput.of(value.asReadOnly());
      assertFalse(copied.isOffHeap());
      assertArrayEquals(bytes, copied.getHeapMemory());
    }
  }

  @Test
  void nestedClassesNeedRegistrationAndWorkOnceRegistered() {
    Customer customer = new Customer(User.ada(), new Address("London", "St James's Square"));
    CellarException refused =
        assertThrows(CellarException.class, () -> ForyCodec.of(Customer.class).encode(customer));
    assertEquals(CellarException.Category.INVALID_ARGUMENT, refused.category());
    assertTrue(refused.getMessage().contains("registered"), refused.getMessage());

    ForyCodec<Customer> codec = ForyCodec.of(Customer.class, User.class, Address.class);
    assertEquals(customer, codec.decode(MemorySegment.ofArray(codec.encode(customer))));
  }

  @Test
  void registrationByNameDoesNotDependOnOrder() {
    Customer customer = new Customer(User.ada(), new Address("London", "St James's Square"));
    ForyCodec<Customer> writer = ForyCodec.of(Customer.class, User.class, Address.class);
    ForyCodec<Customer> reader = ForyCodec.of(Customer.class, Address.class, User.class);
    assertEquals(customer, reader.decode(MemorySegment.ofArray(writer.encode(customer))));
  }

  @Test
  void explicitIdsAndSchemaConsistentModeRoundTripInFewerBytes() {
    ForyCodec<User> compact =
        ForyCodec.builder(User.class).register(User.class, 300).schemaConsistent().build();
    byte[] small = compact.encode(User.ada());
    assertEquals(User.ada(), compact.decode(MemorySegment.ofArray(small)));
    assertTrue(
        small.length < USERS.encode(User.ada()).length,
        small.length + " bytes vs " + USERS.encode(User.ada()).length);
  }

  @Test
  void compatibleModeReadsValuesWrittenBeforeAFieldWasAdded() {
    ForyCodec<ProfileV1> before =
        ForyCodec.builder(ProfileV1.class).register(ProfileV1.class, "profile").build();
    ForyCodec<ProfileV2> after =
        ForyCodec.builder(ProfileV2.class).register(ProfileV2.class, "profile").build();
    byte[] old = before.encode(new ProfileV1("Ada", "ada@example.com"));
    assertEquals(
        new ProfileV2("Ada", "ada@example.com", 0), after.decode(MemorySegment.ofArray(old)));
  }

  @Test
  void refusesNull() {
    CellarException e = assertThrows(CellarException.class, () -> USERS.encode(null));
    assertTrue(e.getMessage().contains("null"), e.getMessage());
  }

  @Test
  void refusesAValueOfAnotherClass() {
    byte[] address = ForyCodec.of(Address.class).encode(new Address("London", "Pall Mall"));
    CellarException e =
        assertThrows(CellarException.class, () -> USERS.decode(MemorySegment.ofArray(address)));
    assertEquals(CellarException.Category.INVALID_ARGUMENT, e.category());
    assertTrue(e.getMessage().contains(User.class.getName()), e.getMessage());
  }

  @Test
  void refusesBytesThatAreNotFory() {
    byte[] utf8 = "plainly not a Fory value".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThrows(CellarException.class, () -> USERS.decode(MemorySegment.ofArray(utf8)));
    byte[] truncated = USERS.encode(User.ada());
    MemorySegment half = MemorySegment.ofArray(truncated).asSlice(0, truncated.length / 2);
    assertThrows(CellarException.class, () -> USERS.decode(half));
  }

  @Test
  void decodedByteBuffersOwnTheirBytesAfterTheSegmentCloses() {
    ForyCodec<Blob> codec = ForyCodec.of(Blob.class);
    byte[] bytes = codec.encode(new Blob("b", ByteBuffer.wrap(new byte[] {1, 2, 3})));
    Blob decoded;
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment value = arena.allocate(bytes.length);
      value.copyFrom(MemorySegment.ofArray(bytes));
      decoded = codec.decode(value);
      value.fill((byte) 0x55);
    }
    byte[] data = new byte[decoded.data().remaining()];
    decoded.data().duplicate().get(data);
    assertArrayEquals(new byte[] {1, 2, 3}, data);
  }

  @Test
  void sharedReferencesSurviveOnlyWhenTracked() {
    User ada = User.ada();
    ForyCodec<Pair> tracking =
        ForyCodec.builder(Pair.class).register(User.class).trackReferences(true).build();
    Pair tracked = tracking.decode(MemorySegment.ofArray(tracking.encode(new Pair(ada, ada))));
    assertSame(tracked.left(), tracked.right());

    ForyCodec<Pair> plain = ForyCodec.of(Pair.class, User.class);
    Pair copied = plain.decode(MemorySegment.ofArray(plain.encode(new Pair(ada, ada))));
    assertEquals(copied.left(), copied.right());
    assertTrue(copied.left() != copied.right());
  }

  @Test
  void cyclesNeedReferenceTracking() {
    Node loop = new Node();
    loop.name = "loop";
    loop.next = loop;
    assertThrows(CellarException.class, () -> ForyCodec.of(Node.class).encode(loop));

    ForyCodec<Node> tracking = ForyCodec.builder(Node.class).trackReferences(true).build();
    Node back = tracking.decode(MemorySegment.ofArray(tracking.encode(loop)));
    assertEquals("loop", back.name);
    assertSame(back, back.next);
  }

  @Test
  void oneCodecServesMoreThreadsThanItsPoolHolds() throws Exception {
    ForyCodec<User> codec = ForyCodec.builder(User.class).poolSize(2).build();
    ExecutorService threads = Executors.newFixedThreadPool(6);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < 6; t++) {
        int thread = t;
        running.add(
            threads.submit(
                () -> {
                  for (int i = 0; i < 2_000; i++) {
                    User user = new User("u" + thread + "-" + i, "e", i, List.of((long) i));
                    assertEquals(user, codec.decode(MemorySegment.ofArray(codec.encode(user))));
                  }
                }));
      }
      for (Future<?> each : running) {
        each.get();
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void userValuesStaySmall() {
    // The seed this module answers put a serialized user at about 60 bytes; ours carries its
    // field names too (compatible mode), so allow more, but notice if it balloons.
    int size = USERS.encode(User.ada()).length;
    assertTrue(size < 160, size + " bytes");
  }
}
