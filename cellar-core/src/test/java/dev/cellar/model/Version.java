package dev.cellar.model;

import dev.cellar.Cellar;

/**
 * One state a key may be in: absent ({@code value} null), or a value with an expiry known to lie in
 * {@code [expireFrom, expireTo]} (both {@link Cellar#NO_EXPIRY} for none). The expiry is a range
 * because a put given a {@code Duration} reads the clock inside the store; and every judgement
 * takes the wall-clock window {@code [t0, t1]} around the call it judges, since the store reads its
 * clock somewhere inside it. The store shows a value while its clock is before the expiry.
 */
record Version(String value, long expireFrom, long expireTo) {
  static final Version ABSENT = new Version(null, Cellar.NO_EXPIRY, Cellar.NO_EXPIRY);

  static Version of(String value) {
    return new Version(value, Cellar.NO_EXPIRY, Cellar.NO_EXPIRY);
  }

  boolean present() {
    return value != null;
  }

  boolean expires() {
    return expireTo != Cellar.NO_EXPIRY;
  }

  /** Whether a read during {@code [t0, t1]} may return {@code got} (null for absent). */
  boolean mayRead(String got, long t0, long t1) {
    if (value == null) {
      return got == null;
    }
    if (got == null) {
      return expires() && t1 >= expireFrom;
    }
    return got.equals(value) && mayBeLiveAt(t0);
  }

  /** Whether {@code expiryOf} during {@code [t0, t1]} may return {@code got}. */
  boolean mayHaveExpiry(long got, long t0, long t1) {
    if (got == Cellar.ABSENT) {
      return mayRead(null, t0, t1);
    }
    if (!mayBeLiveAt(t0)) {
      return false;
    }
    return got == Cellar.NO_EXPIRY
        ? !expires()
        : expires() && got >= expireFrom && got <= expireTo && got > t0;
  }

  /** Whether the key is live at {@code t} for certain. */
  boolean surelyLiveAt(long t) {
    return value != null && (!expires() || t < expireFrom);
  }

  /** Whether the key may be live at {@code t}. */
  boolean mayBeLiveAt(long t) {
    return value != null && (!expires() || t < expireTo);
  }

  @Override
  public String toString() {
    if (value == null) {
      return "absent";
    }
    String shown =
        value.length() > 40 ? value.substring(0, 40) + "...(" + value.length() + ")" : value;
    return expires() ? shown + " expiring in [" + expireFrom + ", " + expireTo + "]" : shown;
  }
}
