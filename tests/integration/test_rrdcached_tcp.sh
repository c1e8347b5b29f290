#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pve_rrd writing through a real rrdcached over TCP on 127.0.0.1 (the
# remote-rrdcached example of docs/central-collector.md): paths relative to the
# daemon's base directory, which makes the directories itself (-R), files
# created through the daemon, a foreign file recognised through the
# daemon's INFO alone (nothing is read on this side) and left untouched,
# exact values once flushed; an absolute DataDir is refused for TCP, and so
# is a queue of no rows.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"

D=$T/rrdcached
EX_TCP=127.0.0.1:$(free_port)
start_rrdcached "$D" "$EX_TCP" -R
VM=$D/db/pvecg/pve-vm-9.0
deploy_fixture "$T/cgroup" 300 3
qemu_guest "$T/cgroup" 302 0 0 0 0 0 0
v2_memory "$T/cgroup/qemu.slice/302.scope" 1000 0
mkdir -p "$VM"
rrdtool create "$VM/302" --step 60 DS:memhost:GAUGE:120:0:U RRA:AVERAGE:0.5:1:10
cp "$VM/302" "$T/302.orig"

# the single-host example with its pve_rrd block replaced by the TCP one
{
  example_conf single-host collectd | sed '/<Plugin pve_rrd>/,/<\/Plugin>/d'
  example_block remote-rrdcached | sed "s|rrd-store.example.net:42217|$EX_TCP|"
  fixture_cgroup_block "$T/cgroup"
  unixsock_block "$T/collectd.sock"
} >"$T/collectd.conf"
start_collectd_as collectd "$T/collectd.conf"
COLLECTD_PID=$(cat "$T/collectd.pid")
wait_for 20 test -f "$VM/400"
sleep 2
check "unixsock FLUSH of everything" "0 Done: 1 successful, 0 errors" \
  "$(unixsock "$T/collectd.sock" 'FLUSH plugin=pve_rrd')"
check_deploy_values "$VM" 300 3
check "pve-vm-9.0 layout" "$(expected_vm_layout | sort)" "$(actual_layout "$VM/301" | sort)"
COLLECTD_PID=
stop_collectd_as collectd
stop_rrdcached "$D"

check "one file per guest, and the foreign one" "300 301 302 400" "$(ls "$VM" | sort -n | xargs)"
check "rows were sent with relative paths" 1 \
  "$(journal_times "$D" pvecg/pve-vm-9.0/300 | head -1 | wc -l)"
check_true "foreign file byte for byte unchanged" cmp -s "$T/302.orig" "$VM/302"
check "one error for the foreign file" 1 \
  "$(grep -c 'pvecg/pve-vm-9.0/302 is not an RRD file of layout pve-vm-9.0 (ds\[0\] is .memhost. (GAUGE), expected .maxcpu. (GAUGE))' "$T/collectd.log")"
check "no other errors" "" "$(grep -iE 'error|fail' "$T/collectd.log" | grep -v 'pve-vm-9.0/302' || true)"

echo "# an absolute DataDir cannot be below a TCP daemon's base directory"
sed -i "s|DataDir \"pvecg\"|DataDir \"$T/abs\"|" "$T/collectd.conf"
"$COLLECTD" -T -C "$T/collectd.conf" >/dev/null 2>&1 || true
check "refused with the reason" 1 \
  "$(grep -c "pve_rrd plugin: cannot write below $T/abs: the data directory \"$T/abs\" must be relative to the daemon's base directory" "$T/collectd.log")"

echo "# a queue of no rows is refused"
sed -i "s|DataDir \"$T/abs\"|DataDir \"pvecg\"\n  QueueSize 0|" "$T/collectd.conf"
"$COLLECTD" -T -C "$T/collectd.conf" >/dev/null 2>&1 || true
check "QueueSize 0 refused" 1 \
  "$(grep -c 'pve_rrd plugin: "QueueSize" needs a whole number of rows from 1 to 10000000' "$T/collectd.log")"
finish
