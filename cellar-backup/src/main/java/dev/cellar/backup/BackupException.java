package dev.cellar.backup;

/** A backup or restore that cannot be done as asked; the message says why and what to do. */
public final class BackupException extends RuntimeException {
  public BackupException(String message) {
    super(message);
  }
}
