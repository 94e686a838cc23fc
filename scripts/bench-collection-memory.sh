#!/bin/bash
# Resident memory of big collections, Cellar against redis-server (docs/benchmarks.md,
# "Collections against Redis"): a 1M-field hash, a 1M-member sorted set, 1M lists of 10 elements,
# each loaded into a fresh pair of servers with redis-cli --pipe. Redis: used_memory_rss above its
# empty footprint; Cellar: VmRSS above its empty footprint (its log is mapped, so the pages it
# wrote count), after a checkpoint. Read twice: two seconds after the load (*_rss_mb), and at rest,
# ten seconds after it (*_rest_rss_mb), when a store that has stopped writing has compacted once.
# Usage: scripts/bench-collection-memory.sh [hash|zset|lists|hashes ...] (hashes: 1M small hashes
# of 10 fields, not one of the issue's rows; run only when named)
cd "$(dirname "$0")/.."
T=${TMPDIR:-/tmp}
DATASETS=${*:-hash zset lists}
gen() {
  case $1 in
    hash) python3 -c "import sys
w=sys.stdout.write
for i in range(1000000): w('HSET bighash field:%d value:%d\r\n' % (i, i))";;
    zset) python3 -c "import sys
w=sys.stdout.write
for i in range(1000000): w('ZADD bigzset %d member:%d\r\n' % ((i * 7919) % 1000003, i))";;
    lists) python3 -c "import sys
w=sys.stdout.write
for i in range(1000000): w('RPUSH list:%d a b c d e f g h i j\r\n' % i)";;
    hashes) python3 -c "import sys
w=sys.stdout.write
for i in range(1000000): w('HSET hash:%d a 1 b 2 c 3 d 4 e 5 f 6 g 7 h 8 i 9 j 10\r\n' % i)";;
  esac
}
rss_kb() { awk '/VmRSS/ {print $2}' /proc/$1/status; }
for d in $DATASETS; do
  rm -rf "$T"/mem-cellar "$T"/mem-redis; mkdir -p "$T"/mem-cellar "$T"/mem-redis
  redis-server --port 7631 --bind 127.0.0.1 --dir "$T"/mem-redis --save '' --appendonly no --daemonize no > "$T"/mem-redis.log 2>&1 &
  ./cellar server --port 7632 --dir "$T"/mem-cellar --fsync no --http-port 0 --ipc no > "$T"/mem-cellar.log 2>&1 &
  for p in 7631 7632; do for i in $(seq 1 60); do redis-cli -p $p ping >/dev/null 2>&1 && break; sleep 0.5; done; done
  CPID=$(pgrep -f "port 7632" | head -1)
  r0=$(redis-cli -p 7631 info memory | awk -F: '/^used_memory_rss:/ {print $2}' | tr -d '\r')
  c0=$(rss_kb $CPID)
  gen $d > "$T"/mem-$d.txt
  s=$(date +%s.%N); redis-cli -p 7631 --pipe < "$T"/mem-$d.txt > /dev/null; rt=$(echo "$(date +%s.%N) - $s" | bc)
  s=$(date +%s.%N); redis-cli -p 7632 --pipe < "$T"/mem-$d.txt > /dev/null; ct=$(echo "$(date +%s.%N) - $s" | bc)
  redis-cli -p 7632 save > /dev/null
  sleep 2
  r1=$(redis-cli -p 7631 info memory | awk -F: '/^used_memory_rss:/ {print $2}' | tr -d '\r')
  c1=$(rss_kb $CPID)
  sleep 8
  r2=$(redis-cli -p 7631 info memory | awk -F: '/^used_memory_rss:/ {print $2}' | tr -d '\r')
  c2=$(rss_kb $CPID)
  echo "$d redis_rss_mb=$(( (r1 - r0) / 1048576 )) cellar_rss_mb=$(( (c1 - c0) / 1024 )) redis_rest_rss_mb=$(( (r2 - r0) / 1048576 )) cellar_rest_rss_mb=$(( (c2 - c0) / 1024 )) redis_load_s=$rt cellar_load_s=$ct cellar_dir_mb=$(du -sm "$T"/mem-cellar | cut -f1) elements=$(redis-cli -p 7632 info stats | awk -F: '/cellar_collection_elements/ {print $2}' | tr -d '\r')"
  redis-cli -p 7631 shutdown nosave > /dev/null 2>&1; kill $CPID 2>/dev/null; sleep 3
done
