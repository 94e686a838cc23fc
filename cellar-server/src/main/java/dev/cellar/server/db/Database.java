package dev.cellar.server.db;

import dev.cellar.Cellar;
import dev.cellar.server.collection.CollectionIds;

/**
 * One open database: its store, and the ids of its collections (drawn from that store, so they move
 * with it when {@code SWAPDB} gives the store another index).
 *
 * @param slot where its files are ({@link DatabaseMapDescriptor#directoryName})
 */
public record Database(int slot, Cellar store, CollectionIds collectionIds) {}
