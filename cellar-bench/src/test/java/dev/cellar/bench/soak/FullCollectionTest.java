package dev.cellar.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class FullCollectionTest {
  @Test
  void readsTheTotalOfAClassHistogramLessFillers() {
    String histogram =
        """
        14044:
         num     #instances         #bytes  class name (module)
        -------------------------------------------------------
           1:         23910        3515344  [B (java.base@25.0.3)
           2:            71        1119224  [Ljdk.internal.vm.FillerElement; (java.base@25.0.3)
           3:         23232         557568  java.lang.String (java.base@25.0.3)
        Total        131245        7312456
        """;
    assertEquals(7_312_456 - 1_119_224, FullCollection.histogramTotal(histogram));
    assertEquals(-1, FullCollection.histogramTotal("14044:\nCould not attach\n"));
  }

  /**
   * Against a real JVM, as the soak uses it: a child whose live heap holds at least a 32 MiB array.
   * (Not this JVM: a process cannot be asked over the attach mechanism to dump to a pipe it reads
   * itself without risking that the dump waits on the reader.)
   */
  @Test
  void measuresTheLiveHeapOfAnotherJvm() throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process child =
        new ProcessBuilder(
                java.toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                Holder.class.getName())
            .redirectErrorStream(true)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("ready", out.readLine());
      long live = FullCollection.ofThisJdk().liveHeapBytes(child.pid());
      assertTrue(live >= Holder.BYTES, "live heap " + live + " < the array the child holds");
      assertTrue(
          live < 4L * Holder.BYTES, "live heap " + live + " counts far more than the child holds");
    } finally {
      child.destroyForcibly().waitFor();
    }
  }

  /** Holds {@link #BYTES} of live heap until killed. */
  public static final class Holder {
    static final int BYTES = 32 << 20;
    static byte[] held;

    public static void main(String[] args) throws InterruptedException {
      held = new byte[BYTES];
      System.out.println("ready");
      System.out.flush();
      Thread.sleep(120_000);
    }
  }
}
