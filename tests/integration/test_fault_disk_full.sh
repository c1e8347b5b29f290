#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# DataDir on a full file system: a 2 MiB tmpfs holds one pve-vm-9.0 file
# (1,346,072 bytes) but not two.  Under the real collectd with both
# plugins, the first guest's file keeps getting its rows, the second
# guest's creation fails with one error line for the whole period, and
# nothing is left behind: no partial file in its place and no private
# build directory (rrd_file_create builds the file in ".<name>.XXXXXX" and
# links it in).  Once the file system is grown, the second file appears
# with exact values and one line says so.  pvecg's own files (KSM, which
# `KSM auto` turns on where the host runs it, and the stall time) are left
# out: created first, they would take the room the sizes above count on.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"

[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to mount a tmpfs"; exit 77; }
CG=$T/cgroup
DATA=$T/data
VM=$DATA/pve-vm-9.0
mkdir -p "$DATA"
mount -t tmpfs -o size=2m,mode=0755 pvecg-full "$DATA" 2>/dev/null ||
  { echo "SKIP: cannot mount a tmpfs here"; exit 77; }
at_exit "umount '$DATA'"

qemu_guest "$CG" 100 1.50 0.75 2.25 1.00 0.50 0.25
v2_memory "$CG/qemu.slice/100.scope" 1073741824 104857600
write_conf "$T/collectd.conf" "
$(plugin_blocks "$CG" "$DATA" 'Node false' 'KSM false' 'StallTime false')"
start_collectd "$T/collectd.conf"
wait_for 20 has_update "$VM/100"

qemu_guest "$CG" 101 3.00 2.00 4.00 3.00 5.00 4.00
v2_memory "$CG/qemu.slice/101.scope" 2147483648 0
wait_for 20 grep -q "pve-vm-9.0/101" "$T/collectd.log"
full_from=$(rrd_last_time "$VM/100")
sleep 5
check_true "100 kept getting rows while the disk was full" \
  test $(($(rrd_last_time "$VM/100") - full_from)) -ge 4
check "nothing but 100's file in the directory" "100" "$(ls -A "$VM" | xargs)"
check "one error line for 101 while full" 1 \
  "$(grep -c "Could not create $VM/101: librrd: no reason given; [0-9]* bytes are free" "$T/collectd.log" || true)"

mount -o remount,size=4m "$DATA"
wait_for 20 has_update "$VM/101"
sleep 2
stop_collectd

check "101 memhost once there is room" 2147483648 "$(rrd_last "$VM/101" memhost)"
check "101 pressurememorysome" 5 "$(rrd_last "$VM/101" pressurememorysome)"
check "101 a whole pve-vm-9.0 file" 1346072 "$(stat -c %s "$VM/101")"
check "100 memhost" 968884224 "$(rrd_last "$VM/100" memhost)"
check "one line when 101 was written again" 1 \
  "$(grep -c "pve-vm-9.0/101 is written again (created anew)" "$T/collectd.log" || true)"
check "exactly the two files, nothing left behind" "100 101" "$(ls -A "$VM" | xargs)"
check "no other warnings or errors" "" \
  "$(grep -iE 'warn|error|fail' "$T/collectd.log" | grep -v "Could not create $VM/101: " || true)"
finish
