#!/bin/bash
# Recovery of big collections after kill -9 (docs/benchmarks.md, "Collections against Redis"):
# time from starting the server to the first answered command that reads the data, Cellar against
# redis-server loading an AOF of the same data (appendfsync everysec, both).
# Usage: scripts/bench-collection-recovery.sh [hash|lists ...]
cd "$(dirname "$0")/.."
T=${TMPDIR:-/tmp}
DATASETS=${*:-hash lists}
gen() {
  case $1 in
    hash) python3 -c "import sys
w=sys.stdout.write
for i in range(1000000): w('HSET bighash field:%d value:%d\r\n' % (i, i))";;
    lists) python3 -c "import sys
w=sys.stdout.write
for i in range(1000000): w('RPUSH list:%d a b c d e f g h i j\r\n' % i)";;
  esac
}
probe() { case $1 in hash) echo "HGET bighash field:999999";; lists) echo "LINDEX list:999999 9";; esac; }
first_answer() { # port, command: seconds until the command answers with data
  local s=$(date +%s.%N)
  while true; do
    out=$(redis-cli -p $1 $2 2>/dev/null)
    if [ -n "$out" ] && ! echo "$out" | grep -q LOADING; then break; fi
    sleep 0.01
  done
  echo "$(date +%s.%N) - $s" | bc
}
for d in $DATASETS; do
  rm -rf "$T"/rec-cellar "$T"/rec-redis; mkdir -p "$T"/rec-cellar "$T"/rec-redis
  gen $d > "$T"/rec-$d.txt
  redis-server --port 7641 --bind 127.0.0.1 --dir "$T"/rec-redis --save '' --appendonly yes --appendfsync everysec --daemonize no > "$T"/rec-redis.log 2>&1 &
  RPID=$!
  ./cellar server --port 7642 --dir "$T"/rec-cellar --fsync everysec --http-port 0 --ipc no > "$T"/rec-cellar.log 2>&1 &
  for p in 7641 7642; do for i in $(seq 1 60); do redis-cli -p $p ping >/dev/null 2>&1 && break; sleep 0.5; done; done
  redis-cli -p 7641 --pipe < "$T"/rec-$d.txt > /dev/null
  redis-cli -p 7642 --pipe < "$T"/rec-$d.txt > /dev/null
  sleep 2
  # Redis renames its process, so it is killed by the pid it started with.
  kill -9 $RPID $(pgrep -f "port 7642"); sleep 1
  redis-server --port 7641 --bind 127.0.0.1 --dir "$T"/rec-redis --save '' --appendonly yes --appendfsync everysec --daemonize no > "$T"/rec-redis.log 2>&1 &
  rt=$(first_answer 7641 "$(probe $d)")
  ./cellar server --port 7642 --dir "$T"/rec-cellar --fsync everysec --http-port 0 --ipc no > "$T"/rec-cellar.log 2>&1 &
  ct=$(first_answer 7642 "$(probe $d)")
  echo "$d redis_first_answer_s=$rt cellar_first_answer_s=$ct redis_answer=$(redis-cli -p 7641 $(probe $d)) cellar_answer=$(redis-cli -p 7642 $(probe $d))"
  redis-cli -p 7641 shutdown nosave > /dev/null 2>&1; kill $(pgrep -f "port 7642") 2>/dev/null; sleep 3
  echo "  (redis $(grep -c 'DB loaded\|Done loading' "$T"/rec-redis.log) load lines; cellar log: $(grep -o 'recovered[^;]*' "$T"/rec-cellar.log | head -1))"
done
