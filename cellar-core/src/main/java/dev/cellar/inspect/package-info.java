/**
 * Read-only access to a store directory's files for offline tools ({@code cellar tool verify},
 * {@code dump}): the identity file, segment files record by record with their damage, checkpoints
 * with their segment tables, and the directory listing.
 *
 * <p>Why a package of its own: the engine's parsers (the descriptors and readers in {@code log},
 * {@code checkpoint} and {@code store}) are internal and change with the engine, yet a checking
 * tool must judge the files exactly as an open would. This package is that parser seen from
 * outside: every class here delegates to the engine's own descriptor and reader for its format, so
 * there is one parser per format and a tool cannot drift from recovery. Nothing here opens a store,
 * takes its lock or writes; files are opened read-only, so the tools work on a live store's
 * directory and on a read-only copy. The index hash seed in {@code cellar.meta} is never exposed.
 */
package dev.cellar.inspect;
