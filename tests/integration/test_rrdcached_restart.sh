#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rrdcached stopped in the middle of a run and started again, under the
# Proxmox VE node example of docs/node.md: every row collectd
# dispatched (recorded by collectd's csv plugin in the same instance) is
# accepted by a daemon exactly once and in time order -- including the rows
# of the outage, replayed after it -- as the daemons' journals show; the file
# ends with the last row's exact values; and the log has one "lost" and one
# "reachable again" line.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"

EX_DAEMON=$T/rrdcached
start_rrdcached "$EX_DAEMON"
VM=$EX_DAEMON/db/pvecg/pve-vm-9.0
deploy_fixture "$T/cgroup" 100 1
{
  example_conf pve-node collectd
  fixture_cgroup_block "$T/cgroup"
  csv_block "$T/csv"
} >"$T/collectd.conf"
start_collectd_as collectd "$T/collectd.conf"
COLLECTD_PID=$(cat "$T/collectd.pid")
wait_for 20 test -f "$VM/200"
sleep 2

down=$(date +%s)
stop_rrdcached "$EX_DAEMON"
sleep 2.5
up=$(date +%s)
start_rrdcached "$EX_DAEMON"
wait_for 20 grep -q 'is reachable again' "$T/collectd.log"
sleep 1
COLLECTD_PID=
stop_collectd_as collectd # its FLUSH at shutdown writes the files
stop_rrdcached "$EX_DAEMON"

for g in 100:qemu 200:lxc; do
  id=${g%:*}
  dispatched=$(csv_times "$T"/csv/pve1/pve_cgroup-$id/pve_vm_9_0-${g#*:}-*)
  accepted=$(journal_times "$EX_DAEMON" "$VM/$id")
  check_true "$id: every dispatched row accepted once, in order ($(echo "$accepted" | wc -l) rows)" \
    same_rows "$dispatched" "$accepted"
  same_rows "$dispatched" "$accepted" ||
    echo "  dispatched:" $dispatched "/ accepted:" $accepted
  check_true "$id: at least 2 rows were dispatched during the outage" \
    test "$(echo "$accepted" | awk -v a="$down" -v b="$up" '$1 > a && $1 <= b' | wc -l)" -ge 2
  check "$id: the file ends with the last row" "$(echo "$accepted" | tail -1)" "$(rrdtool last "$VM/$id")"
done
check_deploy_values "$VM" 100 1
check "one line for the loss" 1 "$(grep -c 'pve_rrd plugin: Lost the connection to rrdcached' "$T/collectd.log")"
check "one line for the return" 1 "$(grep -c 'pve_rrd plugin: rrdcached at .* is reachable again after' "$T/collectd.log")"
check "no other errors" "" "$(grep -iE 'error|fail' "$T/collectd.log" | grep -v 'Lost the connection' || true)"
finish
