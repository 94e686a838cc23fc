package dev.cellar.server.testsupport;

import dev.cellar.io.FileIO;
import dev.cellar.io.StoreFile;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The platform's file I/O, except that fsync fails on demand, as a disk that returns EIO would:
 * {@link #failFromNow()} makes every later fsync of a file fail, and {@link #failHeld()} also holds
 * the first failing fsync until {@link #release()}, so a test can queue writes behind it.
 */
public final class FsyncFaults {
  private final FileIO real = FileIO.platform();
  private volatile boolean failing;
  private volatile CountDownLatch entered = new CountDownLatch(0);
  private volatile CountDownLatch released = new CountDownLatch(0);

  /** The seam to give the store ({@code CellarOptions.fileIO}). */
  public FileIO io() {
    return (FileIO)
        Proxy.newProxyInstance(
            FileIO.class.getClassLoader(),
            new Class<?>[] {FileIO.class},
            (proxy, method, args) -> {
              Object result = forward(real, method, args);
              return result instanceof StoreFile file ? faulty(file) : result;
            });
  }

  /** Every fsync from now on fails. */
  public void failFromNow() {
    failing = true;
  }

  /** As {@link #failFromNow()}, and the first failing fsync waits for {@link #release()}. */
  public void failHeld() {
    entered = new CountDownLatch(1);
    released = new CountDownLatch(1);
    failing = true;
  }

  /** Waits until the held fsync has started. */
  public void awaitHeld() throws InterruptedException {
    if (!entered.await(30, TimeUnit.SECONDS)) {
      throw new AssertionError("no fsync started within 30 s");
    }
  }

  /** Lets the held fsync fail. */
  public void release() {
    released.countDown();
  }

  /** Fsync works again (a store must not believe it: the failure may have cost pages). */
  public void heal() {
    failing = false;
  }

  private StoreFile faulty(StoreFile file) {
    return (StoreFile)
        Proxy.newProxyInstance(
            StoreFile.class.getClassLoader(),
            new Class<?>[] {StoreFile.class},
            (proxy, method, args) -> {
              if (method.getName().equals("force") && failing) {
                if (entered.getCount() > 0) {
                  entered.countDown();
                  released.await();
                }
                throw new IOException("Input/output error (injected fsync failure)");
              }
              return forward(file, method, args);
            });
  }

  private static Object forward(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
