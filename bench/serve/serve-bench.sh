#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The benchmark of pvecg serve (docs/performance.md): files of a year of
# rows made by rrdtool from the layout tables (a guest with a legacy pve2
# file, a node), the built `pvecg serve` on a free loopback port, and
# pvecg-bench-serve's keep-alive clients against it: for the day, week and
# year views of the guest and the day view of the node, 1, 8 and 64
# clients at once; then the server's peak resident memory.
#
# usage: bench/serve/serve-bench.sh [BUILD_DIR]   (default: build)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
PVECG=$BUILD/src/cli/pvecg
LAYOUT_DEFS=$BUILD/tests/cli/layout_defs
BENCH=$BUILD/bench/serve/pvecg-bench-serve
for f in "$PVECG" "$LAYOUT_DEFS" "$BENCH"; do
  [ -x "$f" ] || { echo "missing $f: build the project first" >&2; exit 1; }
done
. "$ROOT/tests/serve/fixture.sh"

T=$(mktemp -d)
SERVE_PID=
cleanup() {
  [ -z "$SERVE_PID" ] || { kill -TERM "$SERVE_PID" 2>/dev/null || true; wait "$SERVE_PID" 2>/dev/null || true; }
  rm -rf "$T"
}
trap cleanup EXIT

NOW=$(date +%s)
START=$(((NOW - 86400 * 30) / 60 * 60))
D=$T/data
mkdir -p "$D/pve-vm-9.0" "$D/pve2-vm" "$D/pve-node-9.0"
echo "# making files: 30 days of minute rows (43200 updates each)" >&2
make_file pve-vm-9.0 "$D/pve-vm-9.0/100" "$START"
vm_rows "$START" 43199 | xargs -n 2000 rrdtool update "$D/pve-vm-9.0/100"
make_file pve2-vm "$D/pve2-vm/100" $((START - 86400 * 30))
awk -v t0=$((START - 86400 * 30)) 'BEGIN { for (i = 1; i < 43200; i++)
  printf "%d:2:0.5:4294967296:1073741824:U:U:%d:U:U:U\n", t0 + 60 * i, 6000 * i }' |
  xargs -n 2000 rrdtool update "$D/pve2-vm/100"
make_file pve-node-9.0 "$D/pve-node-9.0/pve1" "$START"
node_rows "$START" 43199 | xargs -n 2000 rrdtool update "$D/pve-node-9.0/pve1"

PORT=$(loopback_port)
"$PVECG" serve --listen "127.0.0.1:$PORT" --data-dir "$D" --pve-config-dir "" 2>"$T/serve.log" &
SERVE_PID=$!
wait_serving "http://127.0.0.1:$PORT/"

echo "# pvecg serve $("$PVECG" --version | cut -d' ' -f2), $(nproc) CPUs, $(date -u +%Y-%m-%d)"
for view in "qemu/100/rrddata?timeframe=day" "qemu/100/rrddata?timeframe=week" \
            "qemu/100/rrddata?timeframe=year" "rrddata?timeframe=day"; do
  path=/api2/json/nodes/pve1/$view
  for clients in 1 8 64; do
    printf '%-40s ' "${view%%\?*} ${view#*=}"
    "$BENCH" --port "$PORT" --path "$path" --clients "$clients" \
      --requests $((clients == 1 ? 200 : 1600 / clients)) --pid "$SERVE_PID"
  done
done
