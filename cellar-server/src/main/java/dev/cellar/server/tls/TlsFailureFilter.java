package dev.cellar.server.tls;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import javax.net.ssl.SSLException;

/**
 * Sits behind the {@code SslHandler} and ends a connection whose TLS failed (plaintext on a TLS
 * port, a client certificate the CA did not sign, no common protocol) quietly: a debug line and a
 * close. Without it the failure reaches the connection handler, which logs unexpected errors as
 * warnings with a stack trace, so anyone able to connect could fill the log.
 */
@ChannelHandler.Sharable
final class TlsFailureFilter extends ChannelInboundHandlerAdapter {
  private static final System.Logger LOG = System.getLogger("dev.cellar.server.tls");

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    Throwable tls =
        cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
    if (tls instanceof SSLException || tls instanceof NotSslRecordException) {
      LOG.log(
          System.Logger.Level.DEBUG,
          () ->
              "TLS connection " + ctx.channel().remoteAddress() + " refused: " + tls.getMessage());
      ctx.close();
      return;
    }
    ctx.fireExceptionCaught(cause);
  }
}
