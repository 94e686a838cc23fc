#!/usr/bin/env bash
# Runs units of the Redis project's own test suite (tests/unit/*.tcl of a Redis source tree, 7.2.x)
# against Cellar, one fresh server per unit, in Redis's external-server mode, and prints per unit
# how many tests passed and failed. Needs tclsh and redis-cli; not part of CI (it needs a Redis
# source tree: `git clone --branch 7.2.6 https://github.com/redis/redis`).
#
#   scripts/redis-test-suite.sh REDIS_SOURCE_DIR [unit ...]
#
# Tests tagged needs:debug (DEBUG), needs:repl (replication), needs:save (RDB) and
# needs:other-server are left out, as Redis's own CI leaves them out against servers without them.
# Each test may take 60 s; a test that hangs is reported as a timeout and the unit stops there.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 REDIS_SOURCE_DIR [unit ...]" >&2
  exit 2
fi
redis_src=$(cd "$1" && pwd)
shift
units=("$@")
if [ ${#units[@]} -eq 0 ]; then
  units=(unit/type/hash unit/type/list unit/type/set unit/type/zset unit/type/string unit/type/incr
    unit/expire unit/keyspace unit/multi unit/type/stream unit/type/stream-cgroups unit/scripting
    unit/functions unit/pubsub unit/dump unit/sort unit/bitops unit/scan unit/bitfield
    unit/type/list-2 unit/type/list-3 unit/info-command unit/protocol unit/auth
    unit/introspection-2 unit/latency-monitor unit/slowlog unit/other unit/quit unit/info)
fi

root=$(cd "$(dirname "$0")/.." && pwd)
port=${CELLAR_TEST_PORT:-7790}
work=$(mktemp -d)
server_pid=
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
  fi
}
trap 'stop_server; rm -rf "$work"' EXIT

total_ok=0
total_err=0
printf '%-28s %6s %6s %8s\n' unit passed failed timeouts
for unit in "${units[@]}"; do
  rm -rf "$work/data"
  "$root/cellar" server --dir "$work/data" --port "$port" --http-port 0 --fsync no \
    > "$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 120); do
    redis-cli -p "$port" ping > /dev/null 2>&1 && break
    sleep 1
  done
  log="$work/$(echo "$unit" | tr / _).log"
  (cd "$redis_src" && timeout 900 ./runtest --host 127.0.0.1 --port "$port" --single "$unit" \
    --clients 1 --timeout 60 --durable --tags -needs:debug --tags -needs:repl --tags -needs:save \
    --tags -needs:other-server > "$log" 2>&1 < /dev/null) || true
  sed -i 's/\x1b\[[0-9;]*m//g' "$log"
  ok=$(grep -c '^\[ok\]' "$log" || true)
  err=$(grep -c '^\[err\]' "$log" || true)
  timeouts=$(grep -c '^\[TIMEOUT\]' "$log" || true)
  printf '%-28s %6d %6d %8d\n' "$unit" "$ok" "$err" "$timeouts"
  grep '^\[err\]' "$log" | sed 's/^/    /' || true
  total_ok=$((total_ok + ok))
  total_err=$((total_err + err))
  stop_server
done
printf '%-28s %6d %6d\n' total "$total_ok" "$total_err"
