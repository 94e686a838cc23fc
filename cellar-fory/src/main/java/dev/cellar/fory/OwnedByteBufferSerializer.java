package dev.cellar.fory;

import java.nio.ByteBuffer;
import org.apache.fory.context.CopyContext;
import org.apache.fory.context.ReadContext;
import org.apache.fory.context.WriteContext;
import org.apache.fory.resolver.TypeResolver;
import org.apache.fory.serializer.BufferSerializers;
import org.apache.fory.serializer.Serializer;
import org.apache.fory.serializer.SerializerFactory;
import org.apache.fory.serializer.Shareable;

/**
 * Fory's {@link ByteBuffer} serializer, except that a decoded buffer owns its bytes.
 *
 * <p>Fory decodes a buffer as a view of its input. {@link ForyCodec} may hand Fory the caller's own
 * array (see {@link SegmentInput}), and the {@link dev.cellar.Codec} contract lets the caller reuse
 * it after the call: a decoded buffer that pointed into it would change under its owner. The bytes
 * on the wire are Fory's own, so values stay readable by a plain Fory and the other way round.
 */
final class OwnedByteBufferSerializer extends Serializer<ByteBuffer> implements Shareable {
  /**
   * Serves every {@link ByteBuffer} class (heap, direct, read-only...) and leaves others to Fory.
   */
  static final SerializerFactory FACTORY =
      (TypeResolver resolver, Class<?> cls) ->
          ByteBuffer.class.isAssignableFrom(cls)
              ? new OwnedByteBufferSerializer(resolver, cls.asSubclass(ByteBuffer.class))
              : null;

  private final BufferSerializers.ByteBufferSerializer wire;

  @SuppressWarnings("unchecked")
  private OwnedByteBufferSerializer(TypeResolver resolver, Class<? extends ByteBuffer> cls) {
    super(resolver.getConfig(), (Class<ByteBuffer>) cls);
    this.wire = new BufferSerializers.ByteBufferSerializer(resolver, (Class<ByteBuffer>) cls);
  }

  @Override
  public void write(WriteContext writeContext, ByteBuffer value) {
    wire.write(writeContext, value);
  }

  @Override
  public ByteBuffer read(ReadContext readContext) {
    ByteBuffer view = wire.read(readContext);
    ByteBuffer owned = ByteBuffer.allocate(view.remaining()).order(view.order());
    owned.put(view.duplicate()).flip();
    return owned;
  }

  @Override
  public ByteBuffer copy(CopyContext copyContext, ByteBuffer value) {
    return wire.copy(copyContext, value);
  }
}
