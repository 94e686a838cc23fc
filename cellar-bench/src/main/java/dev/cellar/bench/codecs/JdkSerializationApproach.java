package dev.cellar.bench.codecs;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;

/**
 * JDK serialization, each message a stream of its own as a message on the wire must be: {@code
 * writeObject}/{@code readObject} (the seed's "JDK Ser"), or {@code writeUnshared}/{@code
 * readUnshared} (its "JDK Ser (no shared)"), which is how the JDK spells "no shared references" for
 * the top object.
 *
 * <p>Encoding reuses one byte array stream; the object streams cannot be reused across messages,
 * since each message must carry its own stream header and class descriptors to be read alone.
 */
final class JdkSerializationApproach extends EncodingApproach {
  private final boolean shared;
  private final ReusableBytes out = new ReusableBytes();
  private final byte[][] encoded;

  JdkSerializationApproach(PriceUpdate[] messages, boolean shared) {
    super(messages);
    this.shared = shared;
    encoded = new byte[messages.length][];
    for (int i = 0; i < messages.length; i++) {
      encoded[i] = encode(messages[i]).toByteArray();
    }
  }

  @Override
  String label() {
    return shared ? "JDK serialization" : "JDK serialization (unshared)";
  }

  @Override
  int encodedLength(PriceUpdate message) {
    return encode(message).size();
  }

  @Override
  PriceUpdate roundTripToObject(PriceUpdate message) {
    ReusableBytes bytes = encode(message);
    return decode(bytes.array(), bytes.size());
  }

  @Override
  long encodeBatch(int first, int count) {
    long written = 0;
    for (int i = first; i < first + count; i++) {
      written += encode(messages[index(i)]).size();
    }
    return written;
  }

  @Override
  long decodeBatch(int first, int count) {
    long sum = 0;
    for (int i = first; i < first + count; i++) {
      byte[] bytes = encoded[index(i)];
      sum += decode(bytes, bytes.length).checksum();
    }
    return sum;
  }

  @Override
  long roundTripBatch(int first, int count) {
    long sum = 0;
    for (int i = first; i < first + count; i++) {
      ReusableBytes bytes = encode(messages[index(i)]);
      sum += decode(bytes.array(), bytes.size()).checksum();
    }
    return sum;
  }

  private ReusableBytes encode(PriceUpdate message) {
    out.reset();
    try (ObjectOutputStream objects = new ObjectOutputStream(out)) {
      if (shared) {
        objects.writeObject(message);
      } else {
        objects.writeUnshared(message);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private PriceUpdate decode(byte[] bytes, int length) {
    try (ObjectInputStream objects =
        new ObjectInputStream(new ByteArrayInputStream(bytes, 0, length))) {
      return (PriceUpdate) (shared ? objects.readObject() : objects.readUnshared());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A byte array stream whose array can be read without the copy {@code toByteArray} makes. */
  private static final class ReusableBytes extends ByteArrayOutputStream {
    ReusableBytes() {
      super(256);
    }

    byte[] array() {
      return buf;
    }
  }
}
