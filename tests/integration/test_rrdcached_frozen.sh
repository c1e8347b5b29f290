#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An rrdcached that accepts connections but does not answer (SIGSTOP), under
# the Proxmox VE node example of docs/node.md with DaemonTimeout 2:
# collectd's write threads go on (the csv plugin, fed by the same threads,
# keeps getting every row), one line says the daemon does not answer, one
# that it answers again, and every row reaches it afterwards; frozen again
# at shutdown, collectd still exits within a bounded time, saying it gave up.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"

EX_DAEMON=$T/rrdcached
start_rrdcached "$EX_DAEMON"
DPID=$(cat "$EX_DAEMON/daemon.pid")
VM=$EX_DAEMON/db/pvecg/pve-vm-9.0
deploy_fixture "$T/cgroup" 100 1
{
  example_conf pve-node collectd | sed 's|^  DaemonAddress .*|&\n  DaemonTimeout 2|'
  fixture_cgroup_block "$T/cgroup"
  csv_block "$T/csv"
} >"$T/collectd.conf"
start_collectd_as collectd "$T/collectd.conf"
COLLECTD_PID=$(cat "$T/collectd.pid")
wait_for 20 test -f "$VM/200"
sleep 1

kill -STOP "$DPID"
frozen=$(date +%s)
sleep 4
kill -CONT "$DPID"
wait_for 10 grep -q 'answers again' "$T/collectd.log"
sleep 1
CSV=("$T"/csv/pve1/pve_cgroup-100/pve_vm_9_0-qemu-*)
check_true "rows kept being dispatched while the daemon was frozen" \
  test "$(csv_times "${CSV[@]}" | awk -v a="$frozen" '$1 > a && $1 <= a + 4' | wc -l)" -ge 3

kill -STOP "$DPID"
refrozen=$(date +%s)
sleep 0.5
start=$SECONDS
COLLECTD_PID=
stop_collectd_as collectd
check_true "shutdown does not wait for a frozen daemon ($((SECONDS - start)) s)" \
  test $((SECONDS - start)) -le 9
kill -CONT "$DPID"
stop_rrdcached "$EX_DAEMON"

before=$(csv_times "${CSV[@]}" | awk -v a="$refrozen" '$1 < a')
check_true "every row dispatched before the second freeze reached the daemon, in order" \
  same_rows "$before" "$(journal_times "$EX_DAEMON" "$VM/100" | awk -v a="$refrozen" '$1 < a')"
check "one line when it stopped answering" 1 \
  "$(grep -c 'pve_rrd plugin: rrdcached at .* has not answered for 2 s; rows are kept' "$T/collectd.log")"
check "one when it answered again" 1 "$(grep -c 'pve_rrd plugin: rrdcached at .* answers again' "$T/collectd.log")"
check "one when giving up at shutdown" 1 \
  "$(grep -c 'pve_rrd plugin: rrdcached at .* has not answered for 2 s at shutdown: giving up' "$T/collectd.log")"
finish
