package dev.cellar.bench.atrest;

import dev.cellar.bench.atrest.CompressionDesignRun.Gcm;
import dev.cellar.bench.atrest.CompressionDesignRun.Result;
import dev.cellar.bench.atrest.CompressionDesignRun.Row;
import dev.cellar.bench.atrest.CompressionDesignRun.Timing;
import java.util.ArrayList;
import java.util.List;

/**
 * The compression targets judged against a model built from the measured rows; a model, not a
 * measurement of an engine that compresses (there is none yet).
 *
 * <p>A GET that finds its data in memory costs {@link #BASE_GET_NS} of CPU in the plain,
 * uncompressed engine (the engine part's {@code get} row, 1,618 ns at 09:23 on 2026-11-26). The
 * model adds what a compressed store must do on top: decompress the record, or on a block-cache
 * miss the whole block; and, in an encrypted store, one AES-GCM decryption of the compressed record
 * or block, priced by the line fitted through this run's GCM rows (per operation + per byte). The
 * uncompressed encrypted store it is compared with decrypts each 1 KB record at the same price. A
 * cache hit is taken to cost nothing beyond the base (the copy out of a cached block is not
 * counted). Throughput is the inverse of CPU per GET, as on a CPU-bound host.
 *
 * <p>The encryption target (GCM at most 10% of zstd compression's CPU) is judged per candidate as
 * encrypting what that candidate compresses: GCM over the compressed record, or over the compressed
 * block shared among its documents, against that candidate's compression per document.
 *
 * <p>Not modelled: GETs when the data is twice the memory (disk reads decide those, and an engine
 * run with a memory limit must measure them); the report says what the ratios imply for it.
 */
final class CompressionDesignModel {
  static final double BASE_GET_NS = 1_600;
  static final double DISK_TARGET = 0.40;
  static final double GET_TARGET = 0.50;
  static final double ENCRYPTION_TARGET = 0.10;
  static final double[] HIT_RATES = {0.0, 0.5, 0.9};

  /** What each encrypted frame adds on disk: its 12-byte nonce and 16-byte tag. */
  static final int GCM_FRAME_BYTES = GcmSteps.NONCE_BYTES + GcmSteps.TAG_BITS / 8;

  /** CPU of one GCM operation over {@code bytes}: {@code perOperation + perByte * bytes}. */
  record Line(double perOperation, double perByte) {
    double at(double bytes) {
      return perOperation + perByte * bytes;
    }

    /** Through one operation per record and one per block, each at its mean size. */
    static Line through(Timing record, Timing block, double recordBytes, double blockBytes) {
      double r = record.cpuNanosPerOperation();
      double b = block.cpuNanosPerOperation();
      double perByte = (b - r) / (blockBytes - recordBytes);
      return new Line(r - perByte * recordBytes, perByte);
    }
  }

  /** The model's line for a candidate, at a cache hit rate for blocks (NaN for records). */
  record Modelled(
      Row row,
      double hitRate,
      double disk,
      double encryptedDisk,
      double getNs,
      double encryptedGetNs,
      double encryptedBaseNs,
      double encryptionOverCompression) {
    double getRatio() {
      return BASE_GET_NS / getNs;
    }

    double encryptedGetRatio() {
      return encryptedBaseNs / encryptedGetNs;
    }
  }

  private CompressionDesignModel() {}

  static Line encrypt(Gcm g) {
    return Line.through(g.encryptRecord(), g.encryptBlock(), g.recordBytes(), g.blockBytes());
  }

  static Line decrypt(Gcm g) {
    return Line.through(g.decryptRecord(), g.decryptBlock(), g.recordBytes(), g.blockBytes());
  }

  /** Each record candidate once, each block candidate at each of {@link #HIT_RATES}. */
  static List<Modelled> lines(Result r) {
    Line encrypt = encrypt(r.gcm());
    Line decrypt = decrypt(r.gcm());
    double encryptedBase = BASE_GET_NS + decrypt.at(r.gcm().recordBytes());
    List<Modelled> out = new ArrayList<>();
    for (Row row : r.rows()) {
      CompressionCandidate c = row.candidate();
      double disk = (double) c.storedBytes() / c.rawBytes();
      double encryptedDisk =
          (c.storedBytes() + (double) c.frames() * GCM_FRAME_BYTES) / c.rawBytes();
      double frame = c.meanStoredFrame();
      double decompress = row.decompress().cpuNanosPerOperation();
      double encOverCompress =
          encrypt.at(frame) / c.documentsPerFrame() / row.compress().cpuNanosPerOperation();
      boolean block = c.design().equals(CompressionCandidate.BLOCK);
      for (double hit : block ? HIT_RATES : new double[] {Double.NaN}) {
        double miss = block ? 1 - hit : 1;
        out.add(
            new Modelled(
                row,
                hit,
                disk,
                encryptedDisk,
                BASE_GET_NS + miss * decompress,
                BASE_GET_NS + miss * (decompress + decrypt.at(frame)),
                encryptedBase,
                encOverCompress));
      }
    }
    return out;
  }
}
