package dev.cellar.cli.tool;

/**
 * One thing a check found, self-contained so that each printed line can be grepped on its own:
 * {@code ERROR seg-0000000000000003.log offset 81920, 4096 bytes: checksum mismatch}.
 *
 * @param offset byte offset in the file, or -1 when the finding is about the whole file
 * @param length bytes concerned, or -1 when not a region
 */
public record Finding(Severity severity, String file, long offset, long length, String reason) {

  /** How bad a finding is; only errors fail a check. */
  public enum Severity {
    /**
     * Damage no crash explains (sealed data and checkpoints are fsynced before they count), or a
     * file that could not be checked. A strict open would fail, or data is already lost.
     */
    ERROR,
    /** What a crash leaves behind and the next open cleans up: torn tails, unfinished files. */
    WARNING,
    /** Worth knowing, harmless. */
    NOTE
  }

  public static Finding ofFile(Severity severity, String file, String reason) {
    return new Finding(severity, file, -1, -1, reason);
  }

  public static Finding ofRegion(
      Severity severity, String file, long offset, long length, String reason) {
    return new Finding(severity, file, offset, length, reason);
  }

  @Override
  public String toString() {
    StringBuilder line = new StringBuilder().append(severity).append(' ').append(file);
    if (offset >= 0) {
      line.append(" offset ").append(offset);
      if (length >= 0) {
        line.append(", ").append(length).append(length == 1 ? " byte" : " bytes");
      }
    }
    return line.append(": ").append(reason).toString();
  }
}
