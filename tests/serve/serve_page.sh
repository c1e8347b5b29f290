#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The page of pvecg serve in a real headless Chromium (page_check.sh):
# files with three days of rows up to now, the real server, and for a
# guest (hour, and day with MAX), a container (week) and a node (day):
# every graph and series the page draws must hold exactly as many points
# as `pvecg rrddata` has rows with that value, with legends, a screenshot
# (kept in SCREENSHOT_DIR) and no console error.  The pressure graphs
# (page_stall.sh): VM 100 and the node have stall-time files of known
# rates (fixture.sh's stall_rate), which the exact series must show row by
# row as % of the row's time (250000 µs/s as 25 %), avg10 beside them as
# Proxmox's column; the #pressure control switches between them; the
# container 101 has none and says that exact is not recorded.
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
mkdir -p "$D/pve-vm-9.0" "$D/pve-node-9.0" "$D/pvecg-ksm-vm-1.0" "$D/pvecg-ksm-node-1.0" "$D/pvecg-pressure-vm-1.0" "$D/pvecg-pressure-node-1.0" "$T/pve/nodes/pve1/qemu-server" "$T/pve/nodes/pve1/lxc"
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
# stall-time files of VM 100 and the node (none of the container 101)
make_file pvecg-pressure-vm-1.0 "$D/pvecg-pressure-vm-1.0/100" "$START"
stall_rate_rows "$START" 4300 | xargs -n 500 rrdtool update "$D/pvecg-pressure-vm-1.0/100"
make_file pvecg-pressure-node-1.0 "$D/pvecg-pressure-node-1.0/pve1" "$START"
stall_rate_rows "$START" 4300 | xargs -n 500 rrdtool update "$D/pvecg-pressure-node-1.0/pve1"
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
# (a node has no CPU "full"), in the measure picked: exact (stall...),
# avg10 (pressure..., Proxmox's columns) or both.
GUEST_BASE='{"cpu":["cpu"],"memory":["memhost","mem","maxmem"],"network":["netin","netout"],"disk":["diskread","diskwrite"]}'
NODE_BASE='{"cpu":["cpu","iowait"],"load":["loadavg"],"memory":["memtotal","memused","memavailable","arcsize"],"swap":["swaptotal","swapused"],"network":["netin","netout"],"root":["roottotal","rootused"]}'
pressure_series() { # pressure_series exact|avg10|both guest|node
  jq -cn --arg mode "$1" --arg who "$2" '
    [if $mode != "avg10" then "stall" else empty end,
     if $mode != "exact" then "pressure" else empty end] as $prefixes |
    {cpu: (if $who == "node" then ["some"] else ["some", "full"] end),
     io: ["some", "full"], memory: ["some", "full"]}
    | with_entries(.key as $r | {key: "pressure-\($r)",
        value: [$prefixes[] as $p | .value[] | "\($p)\($r)\(.)"]})'
}
graphs() { # graphs MODE guest|node: every graph's series
  jq -cn --argjson base "$([ "$2" = node ] && echo "$NODE_BASE" || echo "$GUEST_BASE")" \
    --argjson p "$(pressure_series "$1" "$2")" '$base + $p'
}
GUEST_GRAPHS=$(graphs exact guest)

# expected GRAPHS RRDDATA-ARGS...: per graph and series, the rows of
# `pvecg rrddata` that have the value.
# The points of each series: the rows of `pvecg rrddata` that have its
# value; with the KSM file, memory/ksmsaved (drawn on top of memhost) the
# rows of `pvecg rrddata --ksm` with ksmsaved whose row has memhost, and
# the node's ksm graph those with ksmsaved.
# The stall series' points: the rows of `pvecg rrddata --pressure` with
# the value whose time the pve file has a row of.
expected() {
  local graphs=$1
  shift
  "$PVECG" rrddata --ksm --data-dir "$D" --now "$NOW" "$@" >"$T/ksm.json" 2>/dev/null ||
    echo '{"data":[]}' >"$T/ksm.json"
  "$PVECG" rrddata --pressure --data-dir "$D" --now "$NOW" "$@" >"$T/stall.json" 2>/dev/null ||
    echo '{"data":[]}' >"$T/stall.json"
  "$PVECG" rrddata --data-dir "$D" --now "$NOW" "$@" | jq -c --argjson g "$graphs" --slurpfile k "$T/ksm.json" \
    --slurpfile s "$T/stall.json" '
    $k[0] as $ksm
    | .data as $rows
    | ([$rows[] | select(has("memhost")) | .time] | INDEX(tostring)) as $memhost
    | ([$rows[] | .time] | INDEX(tostring)) as $times
    | ($g | map_values(map(. as $k | {key: $k, value:
          (if startswith("stall") then [$s[0].data[] | select(has($k) and $times[.time | tostring])]
           else [$rows[] | select(has($k))] end | length)})
                       | from_entries))
    | if ($ksm.data | length) == 0 then . elif has("swap") then
        . + {ksm: {ksmsaved: ([$ksm.data[] | select(has("ksmsaved"))] | length)}}
      else
        .memory.ksmsaved = ([$ksm.data[] | select(has("ksmsaved") and $memhost[.time | tostring])] | length)
      end'
}

# The values the pressure series must show, row by row: {KEY: {TIME:
# VALUE}}, exact as % (the fixture's µs per second / 1e4), the guest's
# avg10 as vm_rows writes them (the node's avg10 is not compared).
awk -v t0="$START" -v n=4300 "$STALL_RATES_AWK"'BEGIN {
  split("cpusome cpufull iosome iofull memorysome memoryfull", name, " ")
  for (i = 1; i <= n; i++) {
    t = t0 + 60 * i
    for (c = 1; c <= 6; c++) print "stall" name[c], t, stall_rate(i, c)
    print "pressurecpusome", t, (i % 10) * 2.5
    print "pressurecpufull", t, i % 5
    print "pressureiosome", t, (i % 3) / 4
    print "pressureiofull", t, i % 4
    print "pressurememorysome", t, 0
    print "pressurememoryfull", t, (i % 9) * 0.25
  }
}' | jq -Rn 'reduce (inputs | split(" ")) as [$k, $t, $v] ({};
  .[$k][$t] = (if $v == "U" then null elif ($k | startswith("stall")) then ($v | tonumber) / 10000
               else $v | tonumber end))' >"$T/stall-values.json"
# the legend's names, exact as the page must say them
LABELS=$(jq -cn '{cpu: "CPU", io: "IO", memory: "Memory"} | to_entries |
  [.[] | .key as $r | .value as $n | ("some", "full") as $k |
    {key: "stall\($r)\($k)", value: "\($n) stalled, \($k): % of each row\u0027s time (exact)"},
    {key: "pressure\($r)\($k)", value: "\($n) pressure, \($k): 10 s average at each row (avg10, %)"}]
  | from_entries')

failures=0
page() { # page NAME TARGET-ID GRAPHS RRDDATA-ARGS...
  local name=$1 target=$2 graphs=$3
  shift 3
  local want
  want=$(expected "$graphs" "$@")
  echo "# $name: $want"
  local r=0
  PAGE_AXES="${PAGE_AXES:-}" PAGE_STALL="${PAGE_STALL:-}" \
    "$HERE/page_check.sh" "$URL" "$target" "$SCREENSHOT_DIR/$name.png" "$want" || r=$?
  [ "$r" -eq 77 ] && exit 77
  [ "$r" -eq 0 ] || failures=$((failures + 1))
}
# stall SPEC-JSON: PAGE_STALL with the legend's names; VALUES: the
# values file, for a view of the hour (whose rows are the fixture's own)
VALUES=$T/stall-values.json
stall() { jq -c --argjson l "$LABELS" '{labels: $l} + .' <<<"$1"; }
# VM 100's hour, exact by default: every row's value as the fixture wrote
# it (a memory some of 250000 µs/s reads 25.0%); then avg10 picked in the
# control, then both, each row again.
PAGE_STALL=$(stall "$(jq -cn --argjson e "$(pressure_series exact guest)" \
  --argjson a "$(pressure_series avg10 guest)" --argjson b "$(pressure_series both guest)" \
  --arg shot "$SCREENSHOT_DIR/guest-hour-both.png" --arg v "$VALUES" '
  {series: $e, note: false, values: $v,
   texts: {stallmemorysome: {"25": "25.0%", "15": "15.0%"}, stallcpufull: {"0.25": "0.25%", "1.75": "1.75%"}},
   toggles: [{mode: "avg10", series: $a, note: false, values: true},
             {mode: "both", series: $b, note: false, values: true}],
   screenshot: $shot}')") \
  page guest-hour "qemu/100" "$GUEST_GRAPHS" --vmid 100 --timeframe hour
# the pressure graphs scaled to their data: the guest's IO stall of the
# hour reaches 3 % (iofull i % 4), its axis 0-3 %; the node's IO and memory
# stalls stay under 1 % (0.5 and (i % 4) / 8): the smallest range, 0-1 %.
PAGE_AXES='{"pressure-io":"3%","pressure-memory":"2.0%","pressure-cpu":"30%"}' \
  page guest-hour-avg10 "qemu/100?pressure=avg10" "$(graphs avg10 guest)" --vmid 100 --timeframe hour
page guest-day-max "qemu/100?timeframe=day&cf=MAX" "$GUEST_GRAPHS" --vmid 100 --timeframe day --cf MAX
# the container has no stall-time file: avg10 whatever is picked, and
# each pressure graph says so; picking avg10 leaves nothing to say
PAGE_STALL=$(stall "$(jq -cn --argjson a "$(pressure_series avg10 guest)" '
  {series: $a, note: true, toggles: [{mode: "avg10", series: $a, note: false},
                                     {mode: "both", series: $a, note: true}]}')") \
  page container-week "lxc/101?timeframe=week" "$(graphs avg10 guest)" --vmid 101 --timeframe week
PAGE_AXES='{"pressure-io":"1.00%","pressure-memory":"1.00%"}' \
  page node-day "node/pve1?timeframe=day&pressure=avg10" "$(graphs avg10 node)" --node pve1 --timeframe day
# the node's hour, exact: its rows as the fixture wrote them (no CPU full)
PAGE_STALL=$(stall "$(jq -cn --argjson e "$(pressure_series exact node)" --arg v "$VALUES" '{series: $e, note: false, values: $v}')") \
  page node-hour "node/pve1" "$(graphs exact node)" --node pve1 --timeframe hour

if [ "$failures" -ne 0 ]; then
  echo "--- serve.log ---"; cat "$T/serve.log"
  echo "$failures page(s) failed"; exit 1
fi
echo "all pages passed; screenshots in $SCREENSHOT_DIR"
