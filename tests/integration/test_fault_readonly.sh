#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# DataDir on a read-only mount (a read-only bind mount: as root, file modes
# would not stop a write), under the real collectd with pve_cgroup,
# pve_rrd and collectd's csv plugin as a second writer: collectd keeps
# running, each RRD file's failure is one error line for the whole period
# (the back-off's first step is 60 s), the csv plugin gets every row, and
# once the mount is writable again every file is created and gets the
# guests' exact values, with one line per file saying so.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"

[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for a bind mount"; exit 77; }
CG=$T/cgroup
DATA=$T/data
mkdir -p "$T/data-src" "$DATA"
mount --bind "$T/data-src" "$DATA" 2>/dev/null ||
  { echo "SKIP: cannot bind-mount here"; exit 77; }
at_exit "umount '$DATA'"
mount -o remount,bind,ro "$DATA" || { echo "SKIP: cannot make the mount read-only"; exit 77; }
touch "$DATA/probe" 2>/dev/null && { echo "the mount is not read-only"; exit 1; }

for id in 100 101; do
  qemu_guest "$CG" $id 1.50 0.75 2.25 1.00 0.50 0.25
  v2_memory "$CG/qemu.slice/$id.scope" 1073741824 104857600
done
write_conf "$T/collectd.conf" "
$(plugin_blocks "$CG" "$DATA" 'NodeName "node1"')
$(csv_block "$T/csv")"
start_collectd "$T/collectd.conf"
wait_for 20 grep -q 'for node1: Read-only file system' "$T/collectd.log"
ro_from=$(date +%s)
sleep 5
ro_to=$(date +%s)
check_true "collectd still running" kill -0 "$COLLECTD_PID"
check "no file made" "" "$(ls -A "$T/data-src")"
for name in 100 101 node1; do
  check "$name: one error line while read-only" 1 \
    "$(grep -c "Could not create the directory $DATA/pve-.*-9.0 for $name: Read-only file system" "$T/collectd.log" || true)"
done
CSV=("$T"/csv/testnode/pve_cgroup-100/pve_vm_9_0-qemu-*)
check_true "the csv plugin got the rows meanwhile" \
  test "$(csv_times "${CSV[@]}" | awk -v a="$ro_from" -v b="$ro_to" '$1 > a && $1 <= b' | wc -l)" -ge 4

mount -o remount,bind,rw "$DATA"
wait_for 20 has_update "$DATA/pve-vm-9.0/100"
wait_for 20 has_update "$DATA/pve-vm-9.0/101"
wait_for 20 has_update "$DATA/pve-node-9.0/node1"
sleep 2
stop_collectd

check "100 memhost after recovery" 968884224 "$(rrd_last "$DATA/pve-vm-9.0/100" memhost)"
check "101 pressurecpusome after recovery" 1.5 "$(rrd_last "$DATA/pve-vm-9.0/101" pressurecpusome)"
check "pve-vm-9.0 layout after recovery" \
  "$(expected_vm_layout | sort)" "$(actual_layout "$DATA/pve-vm-9.0/101" | sort)"
for name in 100 101 node1; do
  check "$name: one line when written again" 1 \
    "$(grep -c "pve-.*-9.0/$name is written again (created anew)" "$T/collectd.log" || true)"
done
check "no other warnings or errors" "" \
  "$(grep -iE 'warn|error|fail' "$T/collectd.log" | grep -v 'Read-only file system' || true)"
finish
