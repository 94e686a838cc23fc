#!/usr/bin/env bash
# Installs what the tests drive and nobody here wrote: redis-cli, redis-benchmark, redis-server,
# strace, openssl (the TLS tests make their certificates with it), redis-py, RQ, BullMQ (node),
# mkfs.ext4/mount/losetup for the disk-full tests (which mount a small file system as root),
# chromium, the headless browser DashboardTest loads the dashboard page in, and Go, which builds
# the Porcupine linearizability checker of the cluster's LinearizabilityTest.
# Skips what is already present; needs root (or sudo) for apt-get.
set -euo pipefail
need_apt=()
command -v redis-cli >/dev/null 2>&1 || need_apt+=(redis-tools)
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
command -v strace >/dev/null 2>&1 || need_apt+=(strace)
command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)
command -v mkfs.ext4 >/dev/null 2>&1 || need_apt+=(e2fsprogs)
command -v losetup >/dev/null 2>&1 || need_apt+=(mount)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
command -v go >/dev/null 2>&1 || [ -x /usr/local/go/bin/go ] || need_apt+=(golang-go)
if [ ${#need_apt[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
# The Debian package starts a redis-server on 6379; tests start their own on free ports.
if command -v systemctl >/dev/null 2>&1; then systemctl stop redis-server >/dev/null 2>&1 || true; fi
pkill -x redis-server >/dev/null 2>&1 || true
if ! python3 -c 'import redis, pytest' >/dev/null 2>&1; then
  python3 -m pip install -q 'redis==5.2.1' pytest
fi
# RQ, the job queue RqClientTest runs jobs with (it brings croniter; redis-py stays as pinned).
if ! python3 -c 'import rq' >/dev/null 2>&1; then
  python3 -m pip install -q 'rq==3.0.0'
fi
# BullMQ, the Node job queue BullMqClientTest runs, into a cache outside the checkout.
if command -v npm >/dev/null 2>&1 && [ ! -d "$HOME/.cache/cellar-test-node/node_modules/bullmq" ]; then
  npm install --silent --no-audit --no-fund --prefix "$HOME/.cache/cellar-test-node" 'bullmq@5.81.5' >/dev/null
fi
