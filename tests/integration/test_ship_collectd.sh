#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg ship on a live host, in real time: collectd with pve_cgroup on a
# fixture host (two VMs and a container) and pve_rrd writing through a
# real rrdcached (the Proxmox VE node example of docs/node.md, the
# daemon with -w 10 for Debian's -w 300), and pvecg ship --interval 5
# into a real InfluxDB.  Over four minutes of rows (the layouts' step is
# a minute): the store stopped for 70 s and started again on its data,
# the shipper killed with -9 and started again.  Then, once the daemon
# wrote every row: every point in the store equals what Proxmox's names
# make of `pvecg export --format json` of the same files, counters
# included; one line said the store went away, one that it is back.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"
. "$HERE/../cli/receivers.sh" # the stores, on T
at_exit stop_receivers
PVECG=${PVECG:?the built pvecg}
EXPORT_POINTS=$HERE/../cli/export_points.py

EX_DAEMON=$T/rrdcached
start_rrdcached "$EX_DAEMON" "unix:$EX_DAEMON/sock" -w 10 -f 20
DATA=$EX_DAEMON/db/pvecg
deploy_fixture "$T/cgroup" 100 1
mkdir -p "$T/pve/nodes/pve1/qemu-server" "$T/pve/nodes/pve1/lxc"
printf 'name: web\n' >"$T/pve/nodes/pve1/qemu-server/100.conf"
printf 'name: db\n' >"$T/pve/nodes/pve1/qemu-server/101.conf"
printf 'hostname: ct\n' >"$T/pve/nodes/pve1/lxc/200.conf"
printf '100 qemu pve1 web\n101 qemu pve1 db\n200 lxc pve1 ct\n' >"$T/guests"
{
  example_conf pve-node collectd
  fixture_cgroup_block "$T/cgroup"
} >"$T/collectd.conf"
start_collectd_as collectd "$T/collectd.conf"
start_influxdb

SHIPPER=
ship() {
  "$PVECG" ship --format influx --to "$INFLUX_URL/write?db=pve" --data-dir "$DATA" \
    --pve-config-dir "$T/pve" --state-dir "$T/state" --interval 5 2>>"$T/ship.log" &
  SHIPPER=$!
}
stop_shipper() { [ -z "$SHIPPER" ] || kill -KILL "$SHIPPER" 2>/dev/null || true; }
at_exit stop_shipper
ship
wait_for 20 test -f "$DATA/pve-node-9.0/pve1"

sleep 60
stop_pid "$INFLUX_PID"
sleep 70
restart_influxdb
sleep 15
kill -KILL "$SHIPPER"
wait "$SHIPPER" 2>/dev/null || true
ship
sleep 80
stop_collectd_as collectd
# Every file the shipper reads, pvecg's KSM files (KSM auto turns them on
# where the host runs KSM) and stall files too: a row still in the
# daemon's cache when the shipper last looked would reach the export below
# and not the store.
shopt -s nullglob
SHIPPED=("$DATA"/pve-vm-9.0/* "$DATA"/pve-node-9.0/* \
  "$DATA"/pvecg-ksm-vm-1.0/* "$DATA"/pvecg-ksm-node-1.0/* \
  "$DATA"/pvecg-pressure-vm-1.0/* "$DATA"/pvecg-pressure-node-1.0/*)
shopt -u nullglob
rrdtool flushcached --daemon "unix:$EX_DAEMON/sock" "${SHIPPED[@]}"

# caught_up: every file's cursor is its newest row.
caught_up() {
  local f last cursor
  for f in "${SHIPPED[@]}"; do
    last=$(rrdtool lastupdate "$f" | awk 'NR == 3 { sub(":", "", $1); print $1 }')
    cursor=$(awk -v k="${f#"$DATA"/}" '$1 == "file" && $2 == k { print $6 }' "$T"/state/*.state)
    [ "$cursor" == "$((last / 60 * 60))" ] || return 1
  done
}
wait_for 30 caught_up
kill "$SHIPPER"
wait "$SHIPPER" 2>/dev/null || true
SHIPPER=

"$PVECG" export --format json --names pvecg --all --data-dir "$DATA" >"$T/rows.json"
"$EXPORT_POINTS" expect influx "$T/rows.json" "$T/guests" >"$T/expected"
"$EXPORT_POINTS" influx "$INFLUX_URL" pve >"$T/got"
check "every guest's cpu, for at least two minutes" "100 101 200" \
  "$(awk -F'\t' '$1 ~ / cpu$/ && $1 ~ /vmid=/ { n[$1]++ }
    END { for (s in n) if (n[s] >= 2) { sub(/.*vmid=/, "", s); sub(/ .*/, "", s); print s } }' \
    "$T/got" | sort | xargs)"
check "the node's traffic" 1 "$(grep -c -m1 '^nics,host=pve1,instance=physical,object=nodes receive' "$T/got")"
check "the store holds exactly the files' points" "" "$(diff "$T/expected" "$T/got" | head -5)"
check "one line: the store went away" 1 "$(grep -c 'the store is away' "$T/ship.log")"
check "one line: it is back" 1 "$(grep -c 'the store is back after' "$T/ship.log")"
check "the shipper said nothing else" "" \
  "$(grep -v -e 'the store is away' -e 'the store is back' -e ': shipping ' "$T/ship.log" || true)"
check "no errors in collectd's log" "" "$(grep -iE 'error|fail' "$T/collectd.log" || true)"
finish
