package dev.cellar.bench.atrest;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The AWS SDK's side of the backup benchmark, in a JVM of its own (so the SDK's libraries stay off
 * every other benchmark's class path, and its CPU is its own): {@code SdkMain endpoint bucket
 * access secret}, then one command a line on standard input, tab-separated, each answered with
 * {@code done} (or {@code failed <message>}) on standard output: {@code upload PREFIX FILE...} and
 * {@code download PREFIX DIR FILE...}. The JVM stays up between commands, so the SDK is as warm in
 * later rounds as Cellar's client is.
 */
public final class SdkMain {
  private SdkMain() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    try (SdkTransfer sdk = new SdkTransfer(URI.create(args[0]), args[1], args[2], args[3]);
        BufferedReader in =
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      out.println("ready");
      for (String line; (line = in.readLine()) != null; ) {
        List<String> words = Arrays.asList(line.split("\t"));
        try {
          switch (words.get(0)) {
            case "upload" -> sdk.upload(paths(words.subList(2, words.size())), words.get(1));
            case "download" ->
                sdk.download(
                    paths(words.subList(3, words.size())), words.get(1), Path.of(words.get(2)));
            default -> throw new IllegalArgumentException("unknown command " + words.get(0));
          }
          out.println("done");
        } catch (Exception e) {
          out.println("failed " + e.toString().replace('\n', ' '));
        }
      }
    }
  }

  private static List<Path> paths(List<String> names) {
    List<Path> paths = new ArrayList<>();
    for (String n : names) {
      paths.add(Path.of(n));
    }
    return paths;
  }
}
