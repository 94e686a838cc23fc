package dev.cellar.ipc;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ring and discovery files: what the server checks before it maps what a client offers. */
class FilesTest {
  @TempDir Path dir;

  private void poke(Path file, long offset, int value) throws Exception {
    try (FileChannel c = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        Arena arena = Arena.ofConfined()) {
      MemorySegment m = c.map(FileChannel.MapMode.READ_WRITE, 0, c.size(), arena);
      m.set(ValueLayout.JAVA_INT_UNALIGNED, offset, value);
    }
  }

  @Test
  void aRingFileIsOwnerOnlyAndOpensAsWritten() throws Exception {
    Path p = dir.resolve("a.ring");
    try (RingFile f = RingFile.create(p, 8192, ProcessIdentity.current())) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
      assertEquals(IpcDescriptor.ringFileLength(8192), Files.size(p));
      try (RingFile server = RingFile.open(p, 1 << 20)) {
        assertEquals(8192, server.capacity());
        assertEquals(ProcessIdentity.current().pid(), server.client().pid());
        assertTrue(server.client().alive());
        server.reason("a reason");
        server.state(IpcDescriptor.RING_REFUSED);
      }
      assertEquals(IpcDescriptor.RING_REFUSED, f.state());
      assertEquals("a reason", f.reason());
    }
  }

  @Test
  void theServerRefusesWhatIsNotARingFileOfItsVersionAndSize() throws Exception {
    Path p = dir.resolve("b.ring");
    RingFile.create(p, 8192, ProcessIdentity.current()).close();
    assertThrows(IpcException.class, () -> RingFile.open(p, 4096), "capacity over the maximum");
    poke(p, IpcDescriptor.MAJOR_OFFSET, 2);
    IpcException version = assertThrows(IpcException.class, () -> RingFile.open(p, 1 << 20));
    assertTrue(version.getMessage().contains("version 2"), version.getMessage());
    poke(p, IpcDescriptor.MAJOR_OFFSET, 1);
    poke(p, IpcDescriptor.CAPACITY_OFFSET, 12_288);
    assertThrows(IpcException.class, () -> RingFile.open(p, 1 << 20), "not a power of two");
    poke(p, IpcDescriptor.CAPACITY_OFFSET, 16_384);
    IpcException size = assertThrows(IpcException.class, () -> RingFile.open(p, 1 << 20));
    assertTrue(size.getMessage().contains("bytes"), size.getMessage());
    poke(p, 0, 0);
    assertThrows(IpcException.class, () -> RingFile.open(p, 1 << 20), "bad magic");
    Path link = dir.resolve("link.ring");
    Path target = dir.resolve("target.ring");
    RingFile.create(target, 4096, ProcessIdentity.current()).close();
    Files.createSymbolicLink(link, target);
    assertThrows(IpcException.class, () -> RingFile.open(link, 1 << 20), "a link");
    Files.createDirectory(dir.resolve("dir.ring"));
    assertThrows(IpcException.class, () -> RingFile.open(dir.resolve("dir.ring"), 1 << 20));
  }

  @Test
  void connectSlotsAreTakenOnceAndOnlyRingNamesPass() throws Exception {
    try (Discovery server =
            Discovery.create(dir, dir.resolve("rings"), 2, 1 << 20, 0, ProcessIdentity.current());
        Discovery client = Discovery.open(dir)) {
      assertEquals(
          "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(server.path())));
      assertFalse(client.serving(), "starting, not yet serving");
      server.state(IpcDescriptor.SERVER_SERVING);
      assertTrue(client.serving());
      assertEquals(dir.resolve("rings").toAbsolutePath(), client.ringDirectory());
      int before = server.connectSequence();
      for (int i = 0; i < IpcDescriptor.CONNECT_SLOTS; i++) {
        assertTrue(client.requestConnection("c" + i + ".ring"));
      }
      assertFalse(client.requestConnection("one-too-many.ring"), "every slot is taken");
      assertEquals(before + IpcDescriptor.CONNECT_SLOTS, server.connectSequence());
      assertTrue(server.connectionRequested());
      for (int i = 0; i < IpcDescriptor.CONNECT_SLOTS; i++) {
        assertEquals("c" + i + ".ring", server.takeRequest(i));
        assertNull(server.takeRequest(i), "taken once");
      }
      assertFalse(server.connectionRequested());
      for (String bad : new String[] {"../x.ring", "a/b.ring", ".ring", "x.txt", "x..ring"}) {
        assertFalse(Discovery.validName(bad), bad);
        assertThrows(IllegalArgumentException.class, () -> client.requestConnection(bad));
      }
      // A name written straight into a slot, past the client's checks, is refused by the server.
      long at = IpcDescriptor.slotOffset(0);
      poke(server.path(), at + IpcDescriptor.SLOT_NAME_LENGTH_OFFSET, 9);
      byte[] evil = "../x.ring".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      try (FileChannel c =
          FileChannel.open(server.path(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        c.write(java.nio.ByteBuffer.wrap(evil), at + IpcDescriptor.SLOT_NAME_OFFSET);
      }
      poke(server.path(), at + IpcDescriptor.SLOT_STATE_OFFSET, IpcDescriptor.SLOT_REQUESTED);
      assertNull(server.takeRequest(0));
      assertFalse(server.connectionRequested(), "and the slot is freed");
      server.retire();
      assertFalse(Files.exists(dir.resolve(IpcDescriptor.DISCOVERY_FILE)));
      assertFalse(client.serving());
    }
  }
}
