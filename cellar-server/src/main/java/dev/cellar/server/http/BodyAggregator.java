package dev.cellar.server.http;

import dev.cellar.server.command.ClientMemory;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpMessage;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.ReferenceCountUtil;

/**
 * Collects a request's body up to {@code proto-max-bulk-len}, answering 413 with the JSON error
 * document rather than Netty's empty one.
 *
 * <p>An oversized request is not answered here but passed on as a request whose decoder result
 * failed with {@link BodyTooLarge}, so that {@link HttpConnection} answers it after the requests
 * before it: answers keep their order. The rest of its body is discarded as it arrives. As Netty
 * does, the connection is closed afterwards when the body was already partly read or the client did
 * not ask to keep it; a client that sent {@code Expect: 100-continue} is told at once, before it
 * sends the body.
 */
final class BodyAggregator extends HttpObjectAggregator {
  /** The failure an oversized request carries down the pipeline. */
  static final class BodyTooLarge extends RuntimeException {
    BodyTooLarge(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * A body that would take the clients' buffers over maxmemory-clients: the connection is closed.
   */
  static final class OverClientMemory extends RuntimeException {
    OverClientMemory(String message) {
      super(message, null, false, false);
    }
  }

  private final ClientMemory clientMemory;
  private final ClientMemory.Account memory;

  BodyAggregator(int maxBody, ClientMemory clientMemory, ClientMemory.Account memory) {
    super(maxBody);
    this.clientMemory = clientMemory;
    this.memory = memory;
  }

  /**
   * Each piece of a body is counted as it arrives; the answer's end gives it back ({@link
   * HttpConnection}).
   */
  @Override
  protected void aggregate(FullHttpMessage aggregated, HttpContent content) throws Exception {
    super.aggregate(aggregated, content);
    int bytes = aggregated.content().readableBytes();
    if (!clientMemory.set(memory, bytes)) {
      String why = "its request body has reached " + bytes + " bytes";
      clientMemory.evictedSelf(memory, why);
      throw new OverClientMemory("client buffers over maxmemory-clients: " + why);
    }
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
    if (!(oversized instanceof HttpRequest request)) {
      ctx.close();
      return;
    }
    DefaultFullHttpRequest failed =
        new DefaultFullHttpRequest(request.protocolVersion(), request.method(), request.uri());
    failed.headers().set(request.headers());
    boolean close =
        oversized instanceof FullHttpMessage
            || (!HttpUtil.is100ContinueExpected(oversized) && !HttpUtil.isKeepAlive(oversized));
    if (close) {
      failed.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    failed.setDecoderResult(DecoderResult.failure(new BodyTooLarge(tooLarge(oversized))));
    ctx.fireChannelRead(failed);
  }

  @Override
  protected Object newContinueResponse(
      HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
    Object answer = super.newContinueResponse(start, maxContentLength, pipeline);
    if (answer instanceof HttpResponse response
        && response.status().code() == HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE.code()) {
      ReferenceCountUtil.release(answer);
      return HttpConnection.response(HttpReply.error(413, "too_large", tooLarge(start)), true);
    }
    return answer;
  }

  private String tooLarge(HttpMessage message) {
    long declared = HttpUtil.getContentLength(message, -1L);
    String size =
        declared >= 0 && !(message instanceof FullHttpMessage)
            ? declared + " bytes"
            : "more than " + maxContentLength() + " bytes";
    return "body of "
        + size
        + " is over the limit of "
        + maxContentLength()
        + " bytes (proto-max-bulk-len)";
  }
}
