package dev.cellar.bench.atrest;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** The parent's handle on {@link SdkMain}: starts it, sends it commands, waits for each. */
final class SdkProcess implements AutoCloseable {
  private final Process process;
  private final PrintStream commands;
  private final BufferedReader answers;

  SdkProcess(URI endpoint, String bucket, String access, String secret, Path log)
      throws IOException {
    process =
        new ProcessBuilder(
                AtRestClasspath.java(),
                "-Xmx1g",
                "-cp",
                AtRestClasspath.get(),
                SdkMain.class.getName(),
                endpoint.toString(),
                bucket,
                access,
                secret)
            .redirectError(log.toFile())
            .start();
    commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
    answers =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    expect("ready");
  }

  long pid() {
    return process.pid();
  }

  void upload(List<Path> files, String prefix) throws IOException {
    StringBuilder line = new StringBuilder("upload\t").append(prefix);
    files.forEach(f -> line.append('\t').append(f));
    commands.println(line);
    expect("done");
  }

  void download(List<Path> files, String prefix, Path into) throws IOException {
    StringBuilder line = new StringBuilder("download\t").append(prefix).append('\t').append(into);
    files.forEach(f -> line.append('\t').append(f.getFileName()));
    commands.println(line);
    expect("done");
  }

  private void expect(String word) throws IOException {
    String answer = answers.readLine();
    if (!word.equals(answer)) {
      throw new IOException("the SDK's JVM answered " + answer + " where " + word + " was due");
    }
  }

  @Override
  public void close() {
    commands.close();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroy();
    }
  }
}
