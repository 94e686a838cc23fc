#!/bin/bash
# Two builds of Cellar side by side with Redis, on redis-benchmark's collection tests at pipeline
# 16 (docs/benchmarks.md, "Garbage a collection command leaves"): ops/s and each server's CPU a
# request (from /proc/PID/stat). All three servers on core 0 (one event loop each, no fsync, no
# start-up cache, so the warm-up compiles both alike), redis-benchmark on core 1; the rounds
# alternate which build goes first.
# Usage: scripts/bench-builds.sh OTHER_TREE [requests] [rounds]   (OTHER_TREE: a built clone)
# Environment: TESTS (redis-benchmark tests), WARM (warm-up requests a test and server before the
# rounds, default 200000), AOT=yes (each build with its own start-up cache, trained first).
OTHER=$(cd "${1:?a built clone of another commit}" && pwd); N=${2:-500000}; ROUNDS=${3:-3}
cd "$(dirname "$0")/.."
TESTS=${TESTS:-lpush rpush lpop rpop sadd hset spop}
T=${TMPDIR:-/tmp}/bench-builds; rm -rf "$T"; mkdir -p "$T"/other "$T"/this "$T"/redis
taskset -c 0 redis-server --port 7611 --bind 127.0.0.1 --dir "$T"/redis --save '' --appendonly no --daemonize no > "$T"/redis.log 2>&1 &
AOT=${AOT:-no}; WARM=${WARM:-200000}
(cd "$OTHER" && CELLAR_AOT=$AOT taskset -c 0 ./cellar server --port 7614 --dir "$T"/other --fsync no --http-port 0 --ipc no --threads 1 > "$T"/other.log 2>&1 &)
CELLAR_AOT=$AOT taskset -c 0 ./cellar server --port 7612 --dir "$T"/this --fsync no --http-port 0 --ipc no --threads 1 > "$T"/this.log 2>&1 &
for p in 7611 7612 7614; do for i in $(seq 1 120); do redis-cli -p $p ping >/dev/null 2>&1 && break; sleep 0.5; done; done
pid() { case $1 in 7611) pgrep -f "redis-server.*7611";; *) pgrep -f "java.*port $1" | head -1;; esac; }
name() { case $1 in 7611) echo redis;; 7612) echo this;; 7614) echo other;; esac; }
TCK=$(getconf CLK_TCK)
run() { taskset -c 1 redis-benchmark -p $1 -c 50 -P 16 -n $3 -r 100000 --csv -t $2 2>/dev/null | tail -1 | cut -d, -f2 | tr -d '"'; }
for port in 7611 7612 7614; do for t in $TESTS; do run $port $t "$WARM" >/dev/null; done; done
for round in $(seq 1 "$ROUNDS"); do
  for p in 7611 7612 7614; do redis-cli -p $p flushall >/dev/null; done
  for t in $TESTS; do
    ORDER="7612 7614 7611"; [ $((round % 2)) = 0 ] && ORDER="7614 7612 7611"
    for port in $ORDER; do
      P=$(pid $port); c0=$(awk '{print $14+$15}' /proc/$P/stat)
      r=$(run $port $t "$N"); c1=$(awk '{print $14+$15}' /proc/$P/stat)
      echo "$round $t $(name $port) $r cpu_ns=$(( (c1-c0)*1000000000/TCK/N ))"
    done
  done
done
redis-cli -p 7611 shutdown nosave >/dev/null 2>&1; kill "$(pid 7612)" "$(pid 7614)" 2>/dev/null; sleep 1
