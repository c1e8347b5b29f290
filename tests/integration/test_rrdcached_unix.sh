#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Proxmox VE node example of docs/node.md: pve_rrd writing through
# a real rrdcached -B on a unix socket, into its own directory below the
# daemon's base.  Files are created through the daemon with PVE's layout;
# collectd's FLUSH reaches the daemon (unixsock FLUSH for one file, SIGUSR1
# for all), after which the files on disk hold the exact values; readers
# through the daemon (rrdtool fetch/info/lastupdate --daemon) flush and
# agree; a file of another layout is recognised through the daemon's INFO
# and left untouched.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"

EX_DAEMON=$T/rrdcached
start_rrdcached "$EX_DAEMON"
SOCK=unix:$EX_DAEMON/sock
VM=$EX_DAEMON/db/pvecg/pve-vm-9.0
deploy_fixture "$T/cgroup" 100 2
qemu_guest "$T/cgroup" 102 0 0 0 0 0 0
v2_memory "$T/cgroup/qemu.slice/102.scope" 1000 0
mkdir -p "$VM"
rrdtool create "$VM/102" --step 300 DS:foo:GAUGE:600:0:U RRA:AVERAGE:0.5:1:10
cp "$VM/102" "$T/102.orig"

{
  example_conf pve-node collectd
  fixture_cgroup_block "$T/cgroup"
  unixsock_block "$T/collectd.sock"
} >"$T/collectd.conf"
start_collectd_as collectd "$T/collectd.conf"
COLLECTD_PID=$(cat "$T/collectd.pid")

# on_disk_after FILE T: the file on disk has a row newer than T.
on_disk_after() { [ "$(rrdtool last "$1")" -gt "$2" ]; }

# Files exist as soon as the daemon created them; rows stay in its cache.
wait_for 20 test -f "$VM/200"
sleep 2
created=$(rrdtool last "$VM/100")
check "rows not on disk before a flush" "$created" "$(rrdtool last "$VM/101")"
check_true "rows are in the daemon's cache" \
  test "$(rrdtool last --daemon "$SOCK" "$VM/100")" -gt "$created"

echo "# FLUSH of one file through unixsock"
check "unixsock FLUSH answers" "0 Done: 1 successful, 0 errors" \
  "$(unixsock "$T/collectd.sock" 'FLUSH plugin=pve_rrd identifier="pve1/pve_cgroup-100/pve_vm_9_0-qemu"')"
check_true "100 is on disk now" test "$(rrdtool last "$VM/100")" -gt "$created"
check "101 is not" "$created" "$(rrdtool last "$VM/101")"

echo "# a reader through the daemon (as PVE's web UI) flushes the file first"
rrdtool fetch --daemon "$SOCK" "$VM/101" AVERAGE -s -300 >/dev/null
check_true "101 is on disk now" on_disk_after "$VM/101" "$created"
check "200 is not" "$created" "$(rrdtool last "$VM/200")"

echo "# SIGUSR1 flushes every file"
kill -USR1 "$COLLECTD_PID"
wait_for 10 on_disk_after "$VM/200" "$created"
check_deploy_values "$VM" 100 2
check "lastupdate --daemon agrees with the file" \
  "$(rrdtool lastupdate "$VM/101" | tail -1 | cut -d' ' -f12)" \
  "$(rrdtool lastupdate --daemon "$SOCK" "$VM/101" | tail -1 | cut -d' ' -f12)"
check "pve-vm-9.0 layout (info --daemon)" "$(expected_vm_layout | sort)" \
  "$(rrdtool info --daemon "$SOCK" "$VM/101" | grep -E '^(step|ds\[[a-z]+\]\.(index|type|minimal_heartbeat|min|max)|rra\[[0-9]+\]\.(cf|rows|pdp_per_row|xff)) =' | sort)"
check "file mode 0644, size as PVE's" "644 1346072" "$(stat -c '%a %s' "$VM/100")"

COLLECTD_PID=
stop_collectd_as collectd
stop_rrdcached "$EX_DAEMON"

echo "# files and log"
check "one file per guest, and the foreign one" "100 101 102 200" "$(ls "$VM" | sort -n | xargs)"
check_true "foreign file byte for byte unchanged" cmp -s "$T/102.orig" "$VM/102"
check "the daemon never got a row for the foreign file" "" "$(journal_times "$EX_DAEMON" "$VM/102")"
check "one error for the foreign file" 1 "$(grep -c 'pve-vm-9.0/102 is not an RRD file of layout' "$T/collectd.log")"
check "writing through rrdcached logged once" 1 \
  "$(grep -c 'Connected to rrdcached at unix:' "$T/collectd.log")"
check "no other errors" "" "$(grep -iE 'error|fail' "$T/collectd.log" | grep -v 'pve-vm-9.0/102' || true)"
finish
