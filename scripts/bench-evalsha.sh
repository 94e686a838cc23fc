#!/bin/bash
# EVALSHA throughput, Cellar against redis-server at equal durability (docs/benchmarks.md,
# "Scripts against Redis"): both servers pinned to core 0, redis-benchmark to core 1.
# Usage: scripts/bench-evalsha.sh no|everysec|always [calls per round]
MODE=${1:-no}; N=${2:-300000}
cd "$(dirname "$0")/.."
rm -rf "${TMPDIR:-/tmp}"/evalsha-cellar "${TMPDIR:-/tmp}"/evalsha-redis; mkdir -p "${TMPDIR:-/tmp}"/evalsha-cellar "${TMPDIR:-/tmp}"/evalsha-redis
case $MODE in no) RA="--appendonly no";; everysec) RA="--appendonly yes --appendfsync everysec";; always) RA="--appendonly yes --appendfsync always";; esac
taskset -c 0 redis-server --port 7601 --bind 127.0.0.1 --dir "${TMPDIR:-/tmp}"/evalsha-redis --save '' --daemonize no $RA > "${TMPDIR:-/tmp}"/evalsha-redis.log 2>&1 &
taskset -c 0 ./cellar server --port 7602 --dir "${TMPDIR:-/tmp}"/evalsha-cellar --fsync $MODE --http-port 0 --ipc no --threads 1 > "${TMPDIR:-/tmp}"/evalsha-cellar.log 2>&1 &
for p in 7601 7602; do for i in $(seq 1 60); do redis-cli -p $p ping >/dev/null 2>&1 && break; sleep 0.5; done; done
L1="return redis.call('incr', KEYS[1])"; L2="redis.call('set', KEYS[1], ARGV[1]); return redis.call('get', KEYS[1])"
S1=$(redis-cli -p 7601 script load "$L1"); redis-cli -p 7602 script load "$L1" >/dev/null
S2=$(redis-cli -p 7601 script load "$L2"); redis-cli -p 7602 script load "$L2" >/dev/null
run() { taskset -c 1 redis-benchmark -p $1 -c 50 -P 16 -n $2 -r 100000 "${@:3}" 2>/dev/null | tr '\r' '\n' | grep "throughput summary" | tail -1 | awk '{print $3}'; }
for p in 7601 7602; do for w in 1 2 3; do run $p 200000 EVALSHA $S1 1 n:__rand_int__ >/dev/null; run $p 200000 EVALSHA $S2 1 s:__rand_int__ v16-bytes-value! >/dev/null; done; done
for round in 1 2 3; do
  for t in incr setget; do
    for p in 7601 7602; do
      if [ $t = incr ]; then r=$(run $p $N EVALSHA $S1 1 n:__rand_int__); else r=$(run $p $N EVALSHA $S2 1 s:__rand_int__ v16-bytes-value!); fi
      echo "$MODE $round $t $p $r"
    done
  done
done
redis-cli -p 7601 shutdown nosave >/dev/null 2>&1; kill $(pgrep -f "port 7602") 2>/dev/null; sleep 2
