/**
 * Backups of a store directory to an object store, and restores from one: the manifest format
 * ({@link dev.cellar.backup.BackupManifest}, docs/format/backup.md) and a lean S3 client ({@code
 * dev.cellar.backup.s3}: HTTP/1.1 on blocking sockets and Signature Version 4). Reads the store's
 * files through the engine's exported inspection API only.
 */
module dev.cellar.backup {
  requires dev.cellar.core;
  requires java.xml;

  exports dev.cellar.backup;
  exports dev.cellar.backup.s3;
}
