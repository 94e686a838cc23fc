#!/bin/bash
# redis-benchmark's collection tests, Cellar against redis-server at equal durability, side by
# side in one run (docs/benchmarks.md, "Collections against Redis"): both servers pinned to core
# 0, redis-benchmark to core 1, rounds alternating between the two servers.
# Usage: scripts/bench-collections.sh no|everysec|always [requests per test] [rounds] [pipelines]
MODE=${1:-no}; N=${2:-500000}; ROUNDS=${3:-3}; PIPELINES=${4:-16 50}
TESTS="lpush rpush lpop rpop sadd hset spop zadd zpopmin lrange_100 xadd"
cd "$(dirname "$0")/.."
T=${TMPDIR:-/tmp}
rm -rf "$T"/coll-cellar "$T"/coll-redis; mkdir -p "$T"/coll-cellar "$T"/coll-redis
case $MODE in no) RA="--appendonly no";; everysec) RA="--appendonly yes --appendfsync everysec";; always) RA="--appendonly yes --appendfsync always";; esac
taskset -c 0 redis-server --port 7611 --bind 127.0.0.1 --dir "$T"/coll-redis --save '' --daemonize no $RA > "$T"/coll-redis.log 2>&1 &
taskset -c 0 ./cellar server --port 7612 --dir "$T"/coll-cellar --fsync $MODE --http-port 0 --ipc no --threads 1 > "$T"/coll-cellar.log 2>&1 &
for p in 7611 7612; do for i in $(seq 1 60); do redis-cli -p $p ping >/dev/null 2>&1 && break; sleep 0.5; done; done
# One test's ops/s: xadd is a custom command (redis-benchmark has no stream test).
run() {
  local port=$1 test=$2 p=$3 n=$4
  if [ "$test" = xadd ]; then
    taskset -c 1 redis-benchmark -p $port -c 50 -P $p -n $n -r 100000 --csv XADD mystream '*' field __rand_int__ 2>/dev/null | tail -1
  else
    taskset -c 1 redis-benchmark -p $port -c 50 -P $p -n $n -r 100000 --csv -t $test 2>/dev/null | tail -1
  fi | cut -d, -f2 | tr -d '"'
}
for port in 7611 7612; do for t in $TESTS; do run $port $t 16 100000 >/dev/null; done; done
# Each pipeline depth starts from empty servers and runs the tests in redis-benchmark's order, so
# the pops and LRANGE find what the pushes left, as in redis-benchmark's own default run.
for round in $(seq 1 $ROUNDS); do
  for p in $PIPELINES; do
    redis-cli -p 7611 flushall >/dev/null; redis-cli -p 7612 flushall >/dev/null
    for t in $TESTS; do
      for port in 7611 7612; do
        echo "$MODE $round $t P$p $([ $port = 7611 ] && echo redis || echo cellar) $(run $port $t $p $N)"
      done
    done
  done
done
redis-cli -p 7611 shutdown nosave >/dev/null 2>&1; kill $(pgrep -f "port 7612") 2>/dev/null; sleep 2
