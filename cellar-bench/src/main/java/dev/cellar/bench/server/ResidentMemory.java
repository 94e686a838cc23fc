package dev.cellar.bench.server;

/**
 * A process's resident memory as {@code /proc/<pid>/status} reports it, in bytes: {@code VmRSS} is
 * the sum of anonymous memory (heaps), file pages mapped in (for Cellar, the log segments it maps)
 * and shared memory.
 */
public record ResidentMemory(long vmRss, long rssAnon, long rssFile, long rssShmem) {

  /**
   * Reads the {@code Vm*}/{@code Rss*} lines of a {@code status} file ({@code "VmRSS: 21892 kB"}).
   */
  public static ResidentMemory parse(String status) {
    return new ResidentMemory(
        kilobytes(status, "VmRSS"),
        kilobytes(status, "RssAnon"),
        kilobytes(status, "RssFile"),
        kilobytes(status, "RssShmem"));
  }

  private static long kilobytes(String status, String field) {
    for (String line : status.split("\n")) {
      if (line.startsWith(field + ":")) {
        String[] parts = line.substring(field.length() + 1).trim().split("\\s+");
        return Long.parseLong(parts[0]) * 1024;
      }
    }
    throw new IllegalArgumentException("no " + field + " line in /proc status");
  }
}
