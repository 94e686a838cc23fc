package dev.cellar.bench.server;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The table {@code strace -c} prints when it detaches (strace 6):
 *
 * <pre>
 * % time     seconds  usecs/call     calls    errors syscall
 * ------ ----------- ----------- --------- --------- ----------------
 *  68.58    0.297602          14     20001           write
 *   0.05    0.000229           4        53         2 accept4
 * ------ ----------- ----------- --------- --------- ----------------
 * 100.00    0.433949          10     41307         2 total
 * </pre>
 *
 * The errors column is blank when a syscall never failed, so a row has five or six fields; the name
 * is always the last and the call count always the fourth.
 *
 * @param calls calls per syscall, in strace's order (most time first)
 * @param totalCalls the {@code total} row's calls
 */
record StraceSummary(Map<String, Long> calls, long totalCalls) {

  static StraceSummary parse(String output) {
    Map<String, Long> calls = new LinkedHashMap<>();
    Long total = null;
    for (String line : output.split("\r?\n")) {
      String[] f = line.trim().split("\\s+");
      if ((f.length != 5 && f.length != 6) || !isNumber(f[0]) || !isNumber(f[3])) {
        continue; // header, rule, or strace's own messages
      }
      String name = f[f.length - 1];
      long count = Long.parseLong(f[3]);
      if (name.equals("total")) {
        total = count;
      } else {
        calls.merge(name, count, Long::sum);
      }
    }
    if (total == null) {
      throw new IllegalArgumentException("no 'total' row in strace -c output:\n" + output);
    }
    return new StraceSummary(Collections.unmodifiableMap(calls), total);
  }

  private static boolean isNumber(String s) {
    return !s.isEmpty() && s.chars().allMatch(c -> Character.isDigit(c) || c == '.');
  }
}
