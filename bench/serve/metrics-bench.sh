#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The scrape benchmark of docs/metrics.md (Cost): GET /metrics of the
# built `pvecg serve` over GUESTS guest files (default 1,000) and a node,
# each a full-size pve-vm-9.0 file, with a configuration per guest:
#   1. files read by librrd (no daemon);
#   2. through rrdcached on a unix socket that holds one pending row of
#      every file (-w 3600), so every file costs a PENDING exchange too.
# pvecg-bench-serve makes the scrapes one after another and reports the
# latency and the server's CPU time per scrape.
#
# usage: bench/serve/metrics-bench.sh [BUILD_DIR] [GUESTS]   (build, 1000)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
GUESTS=${2:-1000}
PVECG=$BUILD/src/cli/pvecg
LAYOUT_DEFS=$BUILD/tests/cli/layout_defs
BENCH=$BUILD/bench/serve/pvecg-bench-serve
for f in "$PVECG" "$LAYOUT_DEFS" "$BENCH"; do
  [ -x "$f" ] || { echo "missing $f: build the project first" >&2; exit 1; }
done
. "$ROOT/tests/serve/fixture.sh"

T=$(mktemp -d)
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$T"
}
trap cleanup EXIT

NOW=$(date +%s)
LAST=$((NOW / 60 * 60 - 60))
D=$T/data
C=$T/pve/nodes/pve1/qemu-server
mkdir -p "$D/pve-vm-9.0" "$D/pve-node-9.0" "$C" "$T/journal"
echo "# making $GUESTS guest files (a day of minute rows, copied)" >&2
make_file pve-vm-9.0 "$T/guest" $((LAST - 86400))
vm_rows $((LAST - 86400)) 1440 | xargs -n 2000 rrdtool update "$T/guest"
for ((i = 0; i < GUESTS; i++)); do
  cp "$T/guest" "$D/pve-vm-9.0/$((100 + i))"
  printf 'name: guest-%d\nmemory: 4096\n' "$i" >"$C/$((100 + i)).conf"
done
make_file pve-node-9.0 "$D/pve-node-9.0/pve1" $((LAST - 86400))
node_rows $((LAST - 86400)) 1440 | xargs -n 2000 rrdtool update "$D/pve-node-9.0/pve1"

# serve [ARG...]: starts pvecg serve; PORT, SERVE_PID
serve() {
  PORT=$(loopback_port)
  "$PVECG" serve --listen "127.0.0.1:$PORT" --data-dir "$D" --pve-config-dir "$T/pve" \
    "$@" 2>>"$T/serve.log" &
  SERVE_PID=$!
  PIDS+=("$SERVE_PID")
  wait_serving "http://127.0.0.1:$PORT/"
}

scrape() { # LABEL REQUESTS [--gzip]
  local samples
  samples=$(curl -sf "http://127.0.0.1:$PORT/metrics" | grep -c '^pve_')
  printf '%-34s %6d samples  ' "$1" "$samples"
  "$BENCH" --port "$PORT" --path /metrics --clients 1 --requests "$2" --pid "$SERVE_PID" "${@:3}"
}

echo "# pvecg serve $("$PVECG" --version | cut -d' ' -f2), $(nproc) CPUs, $(date -u +%Y-%m-%d), $GUESTS guests"
serve
scrape "files, librrd" 50
scrape "files, librrd, gzip" 50 --gzip
kill -TERM "$SERVE_PID"; wait "$SERVE_PID" || true

SOCK=$T/rrdcached.sock
rrdcached -g -l "unix:$SOCK" -p "$T/rrdcached.pid" -w 3600 -f 7200 -j "$T/journal" \
  >"$T/rrdcached.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
# one pending row per file, in one BATCH
python3 - "$SOCK" "$D" "$GUESTS" "$(vm_rows $((LAST - 60)) 1)" <<'PY'
import socket, sys
sock, data, guests, row = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
s = socket.socket(socket.AF_UNIX)
s.connect(sock)
lines = ["BATCH"] + ["UPDATE %s/pve-vm-9.0/%d %s" % (data, 100 + i, row)
                     for i in range(guests)] + ["."]
s.sendall(("\n".join(lines) + "\n").encode())
answer = b""
while answer.count(b"\n") < 2:
    answer += s.recv(65536)
if b"0 errors" not in answer:
    sys.exit("BATCH: %r" % answer[:300])
PY
serve --daemon "unix:$SOCK"
scrape "rrdcached, a row pending per file" 50
