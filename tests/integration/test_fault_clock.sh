#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The wall clock stepping backwards under the real collectd with both
# plugins (libfaketime, its offset read from a file while collectd runs):
# back by 20 s, the rows carry times the files already have: they are
# dropped, not written with older times, with one warning per file, and
# writing resumes by itself once the clock passes the files' last update,
# with one line per file.  No error storm.  (collectd itself schedules
# reads by the wall clock: after a step back it reads again only when the
# clock reaches the next read time, so a step of an hour stops the read
# loop for an hour, whatever a plugin does.  The store's side of an hour
# back -- rows dropped, lines with back-off, writing resumed -- is
# tests/rrd/test_rrd_clock.)
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"

need_faketime

CG=$T/cgroup
DATA=$T/data
VM=$DATA/pve-vm-9.0
qemu_guest "$CG" 100 1.50 0.75 2.25 1.00 0.50 0.25
v2_memory "$CG/qemu.slice/100.scope" 1073741824 104857600
write_conf "$T/collectd.conf" "
$(plugin_blocks "$CG" "$DATA" 'NodeName "node1"')"

# newer_than T: the guest's file has a row after T.
newer_than() { [ "$(rrd_last_time "$VM/100")" -gt "$1" ]; }

# offset SECONDS: collectd's clock from now on (libfaketime re-reads it).
offset() { echo "$1" >"$T/faketime"; }
offset +0
export FAKETIME_TIMESTAMP_FILE=$T/faketime FAKETIME_NO_CACHE=1 FAKETIME_DONT_RESET=1
LD_PRELOAD=$FAKETIME_LIB start_collectd "$T/collectd.conf"
unset FAKETIME_TIMESTAMP_FILE FAKETIME_NO_CACHE FAKETIME_DONT_RESET
wait_for 20 has_update "$VM/100"
wait_for 20 has_update "$DATA/pve-node-9.0/node1"
sleep 2

echo "# back by 20 s"
last=$(rrd_last_time "$VM/100")
offset -20
sleep 10
check "no row written while behind the file" "$last" "$(rrd_last_time "$VM/100")"
wait_for 40 newer_than "$last"
check_true "resumed by itself, with a newer time" test "$(rrd_last_time "$VM/100")" -gt "$last"
sleep 2

stop_collectd

check "100 memhost after the steps" 968884224 "$(rrd_last "$VM/100" memhost)"
for f in pve-vm-9.0/100 pve-node-9.0/node1; do
  check "$f: one line about dropped rows" 1 \
    "$(grep -c "Dropped the row for [0-9]* for $DATA/$f: it is not newer" "$T/collectd.log" || true)"
  check "$f: one line when written again" 1 \
    "$(grep -c "$DATA/$f is written again: " "$T/collectd.log" || true)"
done
check "no other warnings or errors of the plugins" "" \
  "$(grep -iE 'pve_(rrd|cgroup) plugin: .*(warn|error|fail|drop)' "$T/collectd.log" | grep -v 'it is not newer' || true)"
finish
