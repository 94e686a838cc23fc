package dev.cellar.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * Against summaries strace 6.1 printed for both servers under redis-benchmark (20,000 SETs, 50
 * clients).
 */
class StraceSummaryTest {

  /** Cellar's JVM, 16 threads, pipeline 1: the errors column is filled for two syscalls only. */
  static final String CELLAR_P1 =
      """
        % time     seconds  usecs/call     calls    errors syscall
        ------ ----------- ----------- --------- --------- ------------------
         82.30    4.490214        4264      1053        87 futex
         11.08    0.604291      100715         6         4 restart_syscall
          4.43    0.241815          12     20001           sendto
          1.75    0.095621           4     20021           recvfrom
          0.23    0.012281          18       679           epoll_pwait2
          0.09    0.004880          40       122           epoll_ctl
          0.04    0.002389        1194         2           madvise
          0.01    0.000793           5       153           setsockopt
          0.01    0.000719           7       102           getsockname
          0.01    0.000632          12        51           accept4
          0.01    0.000602          28        21           close
          0.01    0.000520           8        63           mprotect
          0.01    0.000340         113         3           mmap
          0.01    0.000337           4        71           getsockopt
          0.00    0.000235           3        64           clock_gettime
          0.00    0.000201           3        64           sched_getaffinity
          0.00    0.000044          44         1           fallocate
          0.00    0.000022          22         1           openat
          0.00    0.000000           0         2           gettid
          0.00    0.000000           0         4           clock_nanosleep
        ------ ----------- ----------- --------- --------- ------------------
        100.00    5.455936         128     42484        91 total
        """;

  /** redis-server 7.0.15, pipeline 1, with strace's own attach messages in the same text. */
  static final String REDIS_P1 =
      """
        strace: Process 26775 attached with 5 threads
        % time     seconds  usecs/call     calls    errors syscall
        ------ ----------- ----------- --------- --------- ----------------
         68.58    0.297602          14     20001           write
         25.55    0.110868           5     20044           read
          3.23    0.013998          18       756           epoll_wait
          2.09    0.009054         905        10           futex
          0.15    0.000642          21        30           openat
          0.14    0.000625          14        42           close
          0.13    0.000566           2       255           setsockopt
          0.05    0.000231           3        63           epoll_ctl
          0.05    0.000229           4        53         2 accept4
          0.03    0.000110           2        51           getpeername
          0.01    0.000024          12         2           mmap
        ------ ----------- ----------- --------- --------- ----------------
        100.00    0.433949          10     41307         2 total
        strace: Process 26775 detached
        """;

  /** redis-server 7.0.15, pipeline 16. */
  static final String REDIS_P16 =
      """
        % time     seconds  usecs/call     calls    errors syscall
        ------ ----------- ----------- --------- --------- ----------------
         61.17    0.011539           9      1251           write
         27.25    0.005141           4      1273           read
          4.60    0.000868          12        67           epoll_wait
          2.23    0.000421           1       255           setsockopt
          2.04    0.000385          32        12           openat
          0.92    0.000173           3        53         2 accept4
          0.63    0.000118           5        22           close
          0.56    0.000106           1        61           epoll_ctl
          0.50    0.000095           1        51           getpeername
          0.10    0.000019          19         1           mmap
        ------ ----------- ----------- --------- --------- ----------------
        100.00    0.018865           6      3046         2 total
        """;

  @Test
  void readsTotalAndEverySyscallOfTheJvm() {
    StraceSummary summary = StraceSummary.parse(CELLAR_P1);
    assertEquals(42484, summary.totalCalls());
    assertEquals(20, summary.calls().size());
    assertEquals(20001, summary.calls().get("sendto"));
    assertEquals(20021, summary.calls().get("recvfrom"));
    assertEquals(1053, summary.calls().get("futex"), "a row with an errors column");
    assertEquals(2, summary.calls().get("gettid"), "a row of zero seconds");
    assertEquals("futex", summary.calls().keySet().iterator().next(), "strace's order is kept");
    assertEquals(
        summary.totalCalls(), summary.calls().values().stream().mapToLong(Long::longValue).sum());
  }

  @Test
  void skipsStraceMessagesAroundTheTable() {
    StraceSummary summary = StraceSummary.parse(REDIS_P1);
    assertEquals(41307, summary.totalCalls());
    assertEquals(20001, summary.calls().get("write"));
    assertEquals(20044, summary.calls().get("read"));
    assertEquals(53, summary.calls().get("accept4"));
    assertEquals(11, summary.calls().size());
  }

  @Test
  void pipeliningCutsRedisToAFractionOfASyscallPerRequest() {
    StraceSummary summary = StraceSummary.parse(REDIS_P16);
    assertEquals(3046, summary.totalCalls());
    assertEquals(1251, summary.calls().get("write"));
  }

  @Test
  void outputWithoutATotalRowIsRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                StraceSummary.parse(
                    "strace: attach: ptrace(PTRACE_SEIZE, 1): Operation not permitted\n"));
    assertEquals(true, e.getMessage().contains("Operation not permitted"), e.getMessage());
  }
}
