#!/bin/bash
# The request path's floor (docs/benchmarks.md, "The request path's floor"): redis-benchmark's
# ping_mbulk beside the pushes, Cellar against Redis at pipeline 16, pinned as the collection
# benchmark pins them; each server's CPU a request (/proc/PID/stat) and the client's CPU share.
# Usage: scripts/bench-request-floor.sh [requests] [rounds]
N=${1:-2000000}; ROUNDS=${2:-2}
cd "$(dirname "$0")/.."
TESTS=${TESTS:-ping_mbulk lpush rpush}
T=${TMPDIR:-/tmp}/bench-floor; rm -rf "$T"; mkdir -p "$T"/cellar "$T"/redis
taskset -c 0 redis-server --port 7611 --bind 127.0.0.1 --dir "$T"/redis --save '' --appendonly no --daemonize no > "$T"/redis.log 2>&1 &
taskset -c 0 ./cellar server --port 7612 --dir "$T"/cellar --fsync no --http-port 0 --ipc no --threads 1 > "$T"/cellar.log 2>&1 &
for p in 7611 7612; do for i in $(seq 1 120); do redis-cli -p $p ping >/dev/null 2>&1 && break; sleep 0.5; done; done
RP=$(pgrep -f "redis-server.*7611"); CP=$(pgrep -f "java.*port 7612" | head -1)
TCK=$(getconf CLK_TCK)
for port in 7611 7612; do for t in $TESTS; do taskset -c 1 redis-benchmark -p $port -c 50 -P 16 -n 300000 -r 100000 -q -t $t >/dev/null 2>&1; done; done
for round in $(seq 1 "$ROUNDS"); do for t in $TESTS; do for port in 7611 7612; do
  pid=$([ $port = 7611 ] && echo $RP || echo $CP)
  s0=$(awk '{print $14+$15}' /proc/$pid/stat)
  /usr/bin/time -f "%U %S %e" -o "$T"/time taskset -c 1 redis-benchmark -p $port -c 50 -P 16 -n "$N" -r 100000 --csv -t $t > "$T"/out 2>/dev/null
  s1=$(awk '{print $14+$15}' /proc/$pid/stat)
  read -r cu cs ce < "$T"/time
  echo "$round $t $([ $port = 7611 ] && echo redis || echo cellar) ops/s=$(tail -1 "$T"/out | cut -d, -f2 | tr -d '"') server_cpu_ns=$(( (s1-s0)*1000000000/TCK/N )) client_cpu=$(echo "($cu+$cs)/$ce*100" | bc -l | cut -c1-5)%"
done; done; done
redis-cli -p 7611 shutdown nosave >/dev/null 2>&1; kill "$CP" 2>/dev/null; sleep 1
