#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The page of pvecg serve in a real headless Chromium (page_check.sh):
# files with three days of rows up to now, the real server, and for a
# guest (hour, and day with MAX), a container (week) and a node (day):
# every graph and series the page draws must hold exactly as many points
# as `pvecg rrddata` has rows with that value, with legends, a screenshot
# (kept in SCREENSHOT_DIR) and no console error.
set -euo pipefail

for tool in rrdtool curl jq; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
: "${PVECG:?}" "${LAYOUT_DEFS:?}"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/fixture.sh"
SCREENSHOT_DIR=${SCREENSHOT_DIR:-$PWD/screenshots}
mkdir -p "$SCREENSHOT_DIR"

T=$(mktemp -d)
SERVE_PID=
cleanup() {
  [ -z "$SERVE_PID" ] || { kill -KILL "$SERVE_PID" 2>/dev/null || true; wait "$SERVE_PID" 2>/dev/null || true; }
  rm -rf "$T"
}
trap cleanup EXIT

NOW=$(date +%s)
START=$(((NOW - 259200) / 60 * 60))
D=$T/data
mkdir -p "$D/pve-vm-9.0" "$D/pve-node-9.0" "$D/pvecg-ksm-vm-1.0" "$D/pvecg-ksm-node-1.0" "$T/pve/nodes/pve1/qemu-server" "$T/pve/nodes/pve1/lxc"
for vmid in 100 101; do
  make_file pve-vm-9.0 "$D/pve-vm-9.0/$vmid" "$START"
  vm_rows "$START" 4300 | xargs -n 500 rrdtool update "$D/pve-vm-9.0/$vmid"
done
make_file pve-node-9.0 "$D/pve-node-9.0/pve1" "$START"
node_rows "$START" 4300 | xargs -n 500 rrdtool update "$D/pve-node-9.0/pve1"
# KSM files of VM 100 and the node (none of the container 101)
make_file pvecg-ksm-vm-1.0 "$D/pvecg-ksm-vm-1.0/100" "$START"
ksm_vm_rows "$START" 4300 | xargs -n 500 rrdtool update "$D/pvecg-ksm-vm-1.0/100"
make_file pvecg-ksm-node-1.0 "$D/pvecg-ksm-node-1.0/pve1" "$START"
ksm_node_rows "$START" 4300 | xargs -n 500 rrdtool update "$D/pvecg-ksm-node-1.0/pve1"
printf 'name: web-1\nmemory: 4096\n' >"$T/pve/nodes/pve1/qemu-server/100.conf"
printf 'hostname: ct\n' >"$T/pve/nodes/pve1/lxc/101.conf"

PORT=$(loopback_port)
"$PVECG" serve --listen "127.0.0.1:$PORT" --data-dir "$D" --pve-config-dir "$T/pve" \
  --now "$NOW" 2>"$T/serve.log" &
SERVE_PID=$!
URL=http://127.0.0.1:$PORT
wait_serving "$URL/"

# The series of each graph, as the page draws them (src/serve/web/app.js).
# Pressure as Proxmox draws it: a graph per resource, "some" and "full"
# (a node has no CPU "full").
GUEST_GRAPHS='{"cpu":["cpu"],"memory":["memhost","mem","maxmem"],"network":["netin","netout"],"disk":["diskread","diskwrite"],"pressure-cpu":["pressurecpusome","pressurecpufull"],"pressure-io":["pressureiosome","pressureiofull"],"pressure-memory":["pressurememorysome","pressurememoryfull"]}'
NODE_GRAPHS='{"cpu":["cpu","iowait"],"load":["loadavg"],"memory":["memtotal","memused","memavailable","arcsize"],"swap":["swaptotal","swapused"],"network":["netin","netout"],"root":["roottotal","rootused"],"pressure-cpu":["pressurecpusome"],"pressure-io":["pressureiosome","pressureiofull"],"pressure-memory":["pressurememorysome","pressurememoryfull"]}'

# expected GRAPHS RRDDATA-ARGS...: per graph and series, the rows of
# `pvecg rrddata` that have the value.
# The points of each series: the rows of `pvecg rrddata` that have its
# value; with the KSM file, memory/ksmsaved (drawn on top of memhost) the
# rows of `pvecg rrddata --ksm` with ksmsaved whose row has memhost, and
# the node's ksm graph those with ksmsaved.
expected() {
  local graphs=$1
  shift
  "$PVECG" rrddata --ksm --data-dir "$D" --now "$NOW" "$@" >"$T/ksm.json" 2>/dev/null ||
    echo '{"data":[]}' >"$T/ksm.json"
  "$PVECG" rrddata --data-dir "$D" --now "$NOW" "$@" | jq -c --argjson g "$graphs" --slurpfile k "$T/ksm.json" '
    $k[0] as $ksm
    | .data as $rows
    | ([$rows[] | select(has("memhost")) | .time] | INDEX(tostring)) as $memhost
    | ($g | map_values(map(. as $k | {key: $k, value: ([$rows[] | select(has($k))] | length)})
                       | from_entries))
    | if ($ksm.data | length) == 0 then . elif has("swap") then
        . + {ksm: {ksmsaved: ([$ksm.data[] | select(has("ksmsaved"))] | length)}}
      else
        .memory.ksmsaved = ([$ksm.data[] | select(has("ksmsaved") and $memhost[.time | tostring])] | length)
      end'
}

failures=0
page() { # page NAME TARGET-ID GRAPHS RRDDATA-ARGS...
  local name=$1 target=$2 graphs=$3
  shift 3
  local want
  want=$(expected "$graphs" "$@")
  echo "# $name: $want"
  local r=0
  PAGE_AXES="${PAGE_AXES:-}" "$HERE/page_check.sh" "$URL" "$target" "$SCREENSHOT_DIR/$name.png" "$want" || r=$?
  [ "$r" -eq 77 ] && exit 77
  [ "$r" -eq 0 ] || failures=$((failures + 1))
}
# the pressure graphs scaled to their data: the guest's IO stall of the
# hour reaches 3 % (iofull i % 4), its axis 0-3 %; the node's IO and memory
# stalls stay under 1 % (0.5 and (i % 4) / 8): the smallest range, 0-1 %.
PAGE_AXES='{"pressure-io":"3%","pressure-memory":"2.0%","pressure-cpu":"30%"}' \
  page guest-hour "qemu/100" "$GUEST_GRAPHS" --vmid 100 --timeframe hour
page guest-day-max "qemu/100?timeframe=day&cf=MAX" "$GUEST_GRAPHS" --vmid 100 --timeframe day --cf MAX
page container-week "lxc/101?timeframe=week" "$GUEST_GRAPHS" --vmid 101 --timeframe week
PAGE_AXES='{"pressure-io":"1.00%","pressure-memory":"1.00%"}' \
  page node-day "node/pve1?timeframe=day" "$NODE_GRAPHS" --node pve1 --timeframe day

if [ "$failures" -ne 0 ]; then
  echo "--- serve.log ---"; cat "$T/serve.log"
  echo "$failures page(s) failed"; exit 1
fi
echo "all pages passed; screenshots in $SCREENSHOT_DIR"
