package dev.cellar.server.metrics;

/**
 * Every command's latency since the server started, summed over commands into the buckets of {@code
 * cellar_command_duration_seconds}. Two of these taken a second apart give that second's
 * distribution by subtraction, which is how the dashboard draws percentiles.
 *
 * @param upperBounds each bucket's upper bound in seconds, ascending, the last being +Inf
 * @param counts observations in each bucket alone (not cumulative), parallel to {@code upperBounds}
 * @param count all observations: the sum of {@code counts}
 * @param sumSeconds the sum of all observations
 */
public record LatencyDistribution(
    double[] upperBounds, long[] counts, long count, double sumSeconds) {}
