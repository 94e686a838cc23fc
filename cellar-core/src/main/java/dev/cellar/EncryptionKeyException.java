package dev.cellar;

/**
 * An encrypted store was opened without its key, or with a key file that lacks a key its files
 * name, or with a wrong key of the right id. Nothing was read or changed; open again with the right
 * {@link CellarOptions#encryptionKeys(EncryptionKeys) keys}.
 */
public final class EncryptionKeyException extends CellarException {
  public EncryptionKeyException(String message) {
    super(Category.ENCRYPTION_KEY, message);
  }
}
