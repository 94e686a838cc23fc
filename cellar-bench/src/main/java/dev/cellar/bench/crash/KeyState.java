package dev.cellar.bench.crash;

/**
 * What one key holds, as a client's model has it: a value ({@code null}: absent) and whether it
 * expires. Values are ASCII, so their length in bytes is their length in chars.
 */
record KeyState(String value, boolean expires) {
  static final KeyState ABSENT = new KeyState(null, false);

  boolean present() {
    return value != null;
  }

  /** Whether what the server answered ({@code GET}, {@code PTTL}) is this state. */
  boolean matches(Observed observed) {
    if (value == null) {
      return observed.value() == null;
    }
    return value.equals(observed.value())
        && (expires ? observed.pttl() > 0 : observed.pttl() == -1);
  }

  @Override
  public String toString() {
    if (value == null) {
      return "(absent)";
    }
    String shown =
        value.length() > 40 ? value.substring(0, 40) + "...(" + value.length() + " chars)" : value;
    return "\"" + shown + "\"" + (expires ? " with a TTL" : "");
  }

  /** A key as read back after a restart: {@code GET} and {@code PTTL} (-2 absent, -1 no expiry). */
  record Observed(String value, long pttl) {
    KeyState asState() {
      return value == null ? ABSENT : new KeyState(value, pttl > 0);
    }

    @Override
    public String toString() {
      return asState() + (pttl > 0 ? " (pttl " + pttl + ")" : "");
    }
  }
}
