package dev.cellar.server.net;

import dev.cellar.ipc.Discovery;
import dev.cellar.ipc.IpcDescriptor;
import dev.cellar.ipc.IpcException;
import dev.cellar.ipc.ProcessIdentity;
import dev.cellar.ipc.RingFile;
import dev.cellar.server.command.Dispatcher;
import dev.cellar.server.command.ServerContext;
import dev.cellar.server.config.ServerConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The shared-memory endpoint: same-host clients talk to the server through rings in mapped files
 * instead of sockets ({@code cellar-ipc}, docs/format/ipc.md).
 *
 * <h2>Files</h2>
 *
 * The discovery file, {@code cellar.ipc} in the data directory, says where the rings are, which
 * process serves them and how to ask for a connection. The rings live in a directory of their own,
 * on {@code /dev/shm} when the host has it (memory the kernel never writes back to a disk) and in
 * the data directory's {@code ipc} otherwise; the directory is named after the data directory, so
 * one server owns it (the data directory's lock), is the server's user's only ({@code 0700}), and
 * is emptied at start of the rings a crashed server left. Both are removed at a clean stop.
 *
 * <h2>Threads</h2>
 *
 * {@code ipc-agents} agents ({@link ShmAgent}) serve the connections, each client on one; the first
 * also takes connection requests and hands each new client to the agent with the fewest. {@code
 * requirepass} applies as on TCP: a client's first requests must authenticate.
 */
final class ShmEndpoint implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("dev.cellar.server");

  private final ServerContext server;
  private final Dispatcher dispatcher;
  private final DurableReplies barrier;
  private final Path ringDirectory;
  private final Discovery discovery;
  private final ShmAgent[] agents;
  private final int maxCapacity;

  private ShmEndpoint(
      ServerContext server,
      Dispatcher dispatcher,
      DurableReplies barrier,
      Path ringDirectory,
      Discovery discovery,
      int agentCount,
      int maxCapacity) {
    this.server = server;
    this.dispatcher = dispatcher;
    this.barrier = barrier;
    this.ringDirectory = ringDirectory;
    this.discovery = discovery;
    this.maxCapacity = maxCapacity;
    this.agents = new ShmAgent[agentCount];
    long timeout = server.config().ipcClientTimeoutMillis();
    for (int i = 0; i < agentCount; i++) {
      agents[i] = new ShmAgent(i, discovery.doorbell(i), this, timeout);
    }
  }

  /**
   * Starts the endpoint, or returns null when {@code ipc} is off or the host cannot have it (the
   * reason logged once: the server serves TCP regardless).
   */
  static ShmEndpoint start(ServerContext server, Dispatcher dispatcher, DurableReplies barrier) {
    ServerConfig config = server.config();
    if (!config.ipc()) {
      return null;
    }
    Path dataDirectory = config.dir().toAbsolutePath();
    try {
      Path ringDirectory = ringDirectory(dataDirectory);
      if (config.encryptionKeyFile() != null && ringDirectory.startsWith(dataDirectory)) {
        // Ring files on a disk would be written back with the requests and replies in them: the
        // plaintext that encryption at rest keeps off the disk.
        throw new IOException(
            "the store is encrypted and this host has no writable /dev/shm for the rings (ring"
                + " files in the data directory would put plaintext on the disk)");
      }
      sweepAbandoned(ringDirectory);
      prepare(ringDirectory);
      writeOwner(ringDirectory);
      int flags = config.requirePass() == null ? 0 : IpcDescriptor.FLAG_REQUIREPASS;
      Discovery discovery =
          Discovery.create(
              dataDirectory,
              ringDirectory,
              config.ipcAgents(),
              config.ipcMaxRing(),
              flags,
              ProcessIdentity.current());
      ShmEndpoint endpoint =
          new ShmEndpoint(
              server,
              dispatcher,
              barrier,
              ringDirectory,
              discovery,
              config.ipcAgents(),
              config.ipcMaxRing());
      for (ShmAgent agent : endpoint.agents) {
        agent.start();
      }
      discovery.state(IpcDescriptor.SERVER_SERVING);
      return endpoint;
    } catch (IOException | RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "shared-memory clients are off: "
              + e.getMessage()
              + " (TCP is served as usual; --ipc no silences this)");
      return null;
    }
  }

  /**
   * {@code /dev/shm/cellar-<hash of the data directory>} when {@code /dev/shm} is a writable
   * directory, else the data directory's {@code ipc}.
   */
  private static Path ringDirectory(Path dataDirectory) {
    Path shm = Path.of("/dev/shm");
    if (Files.isDirectory(shm) && Files.isWritable(shm)) {
      try {
        byte[] digest =
            MessageDigest.getInstance("SHA-256")
                .digest(dataDirectory.toString().getBytes(StandardCharsets.UTF_8));
        return shm.resolve("cellar-" + HexFormat.of().formatHex(digest, 0, 8));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
    return dataDirectory.resolve("ipc");
  }

  /**
   * Makes the ring directory this user's alone and empty. One that exists must be a directory (not
   * a link) owned by this user: another user could otherwise have made it to read the rings.
   */
  private static void prepare(Path directory) throws IOException {
    if (Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
      if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
        throw new IpcException(directory + " exists and is not a directory");
      }
      String owner = Files.getOwner(directory, LinkOption.NOFOLLOW_LINKS).getName();
      String self = System.getProperty("user.name");
      if (!owner.equals(self)) {
        throw new IpcException(directory + " belongs to " + owner + ", not to " + self);
      }
      int stale = 0;
      try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
        for (Path f : files) {
          if (!f.getFileName().toString().equals(OWNER_FILE)) {
            stale++;
          }
          Files.deleteIfExists(f);
        }
      }
      if (stale > 0) {
        LOG.log(
            System.Logger.Level.INFO,
            "removed " + stale + " ring file(s) a previous server left in " + directory);
      }
    } else {
      Files.createDirectories(directory);
    }
    Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwx------"));
  }

  /** In a ring directory: the serving process's pid and start time, one line. */
  static final String OWNER_FILE = "owner";

  private static final String RING_DIRECTORY_PREFIX = "cellar-";

  private static void writeOwner(Path ringDirectory) throws IOException {
    ProcessIdentity self = ProcessIdentity.current();
    Files.writeString(
        ringDirectory.resolve(OWNER_FILE),
        self.pid() + " " + self.startMillis() + "\n",
        StandardCharsets.US_ASCII);
  }

  /**
   * Removes the ring directories beside {@code ours} that this user's servers left when they were
   * killed and never started again on their data directory (which would have emptied them): each
   * names its process in {@link #OWNER_FILE}, and one whose process is gone holds nothing anyone
   * can use, only memory (ring files on {@code /dev/shm} are RAM). Directories of other users, of
   * running servers, or without an owner file that can be read are left alone.
   */
  static void sweepAbandoned(Path ours) {
    Path parent = ours.getParent();
    if (parent == null || !ours.getFileName().toString().startsWith(RING_DIRECTORY_PREFIX)) {
      return;
    }
    String self = System.getProperty("user.name");
    try (DirectoryStream<Path> dirs =
        Files.newDirectoryStream(parent, RING_DIRECTORY_PREFIX + "*")) {
      for (Path dir : dirs) {
        if (dir.equals(ours)
            || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
            || !Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName().equals(self)) {
          continue;
        }
        ProcessIdentity owner = owner(dir);
        if (owner == null || owner.alive()) {
          continue;
        }
        int files = 0;
        try (DirectoryStream<Path> inside = Files.newDirectoryStream(dir)) {
          for (Path f : inside) {
            Files.deleteIfExists(f);
            files++;
          }
        }
        Files.deleteIfExists(dir);
        LOG.log(
            System.Logger.Level.INFO,
            "removed "
                + dir
                + " and its "
                + (files - 1)
                + " ring file(s): left by server process "
                + owner.pid()
                + ", which is gone");
      }
    } catch (IOException | RuntimeException e) {
      LOG.log(
          System.Logger.Level.DEBUG,
          "could not sweep abandoned ring directories: " + e.getMessage());
    }
  }

  private static ProcessIdentity owner(Path dir) {
    try {
      String[] words =
          Files.readString(dir.resolve(OWNER_FILE), StandardCharsets.US_ASCII).trim().split(" ");
      return new ProcessIdentity(Long.parseLong(words[0]), Long.parseLong(words[1]));
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** The discovery file, for {@code CELLAR.IPC}. */
  Path discoveryPath() {
    return discovery.path();
  }

  void heartbeat(long millis) {
    discovery.heartbeat(millis);
  }

  /** The connect sequence the first agent last acted on (that agent's thread only). */
  private int connectSequenceSeen;

  /** Whether a client asked for a connection since the last look (one word, not every slot). */
  boolean requestsWaiting() {
    return discovery.connectSequence() != connectSequenceSeen;
  }

  /**
   * On the first agent: takes every waiting connection request; returns whether there was one.
   * Looks at the slots only when the connect sequence moved, or when {@code everySlot} (once a
   * second, in case a client died between marking its slot and bumping the sequence).
   */
  boolean acceptRequests(boolean everySlot) {
    int sequence = discovery.connectSequence();
    if (sequence == connectSequenceSeen && !everySlot) {
      return false;
    }
    connectSequenceSeen = sequence;
    boolean any = false;
    for (int slot = 0; slot < IpcDescriptor.CONNECT_SLOTS; slot++) {
      String name = discovery.takeRequest(slot);
      if (name != null) {
        any = true;
        attach(name);
      }
    }
    return any;
  }

  private void attach(String name) {
    Path path = ringDirectory.resolve(name);
    RingFile file;
    try {
      file = RingFile.open(path, maxCapacity);
    } catch (IOException | IpcException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "refused a shared-memory connection (" + name + "): " + e.getMessage());
      deleteQuietly(path);
      return;
    }
    if (!file.client().alive()) {
      refuse(file, "the client's process is not running");
      return;
    }
    if (server.clients().count() >= server.config().maxClients()) {
      server.stats().connectionsRejected.increment();
      refuse(file, "ERR max number of clients reached");
      return;
    }
    server.stats().connectionsReceived.increment();
    ShmAgent agent = agents[0];
    for (ShmAgent a : agents) {
      if (a.connections() < agent.connections()) {
        agent = a;
      }
    }
    ShmAgent chosen = agent;
    file.agent(chosen.index());
    long id = server.clients().nextId();
    chosen.execute(
        () -> {
          ShmConnection connection;
          try {
            connection = new ShmConnection(server, chosen, file, dispatcher, barrier, id);
          } catch (IpcException e) {
            LOG.log(
                System.Logger.Level.WARNING,
                "refused a shared-memory connection (" + name + "): " + e.getMessage());
            refuse(file, e.getMessage());
            return;
          }
          chosen.adopt(connection);
          file.state(IpcDescriptor.RING_ATTACHED);
        });
  }

  private static void refuse(RingFile file, String reason) {
    file.reason(reason);
    file.state(IpcDescriptor.RING_REFUSED);
    try {
      file.delete();
    } catch (IOException e) {
      // goes at the next start
    }
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      // goes at the next start
    }
  }

  /** Stops taking connections, closes every client (each told why) and removes the files. */
  @Override
  public void close() {
    discovery.state(IpcDescriptor.SERVER_STOPPED);
    for (ShmAgent agent : agents) {
      agent.stop();
    }
    try {
      discovery.retire();
      try (DirectoryStream<Path> files = Files.newDirectoryStream(ringDirectory)) {
        for (Path f : files) {
          Files.deleteIfExists(f);
        }
      }
      Files.deleteIfExists(ringDirectory);
    } catch (IOException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "could not remove the shared-memory files: " + e.getMessage());
    }
  }
}
