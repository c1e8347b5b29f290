#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Damaged RRD files where guests' files should be, under the real collectd
# with both plugins: a valid pve-vm-9.0 file cut in half, one overwritten
# with random bytes of the right size, an empty one, and a symlink to a
# valid file of the layout elsewhere (not followed).  Each is logged once
# as unreadable, never written (bytes, size, inode and mtime unchanged),
# and the healthy guest's file keeps getting exact rows.
# (A file of another layout: test_fixture_collectd; damage found while
# writing, and every cut length: tests/rrd/test_rrd_store, test_rrd_file.)
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"

CG=$T/cgroup
DATA=$T/data
VM=$DATA/pve-vm-9.0
for id in 100 101 102 103 104; do
  qemu_guest "$CG" $id 1.50 0.75 2.25 1.00 0.50 0.25
  v2_memory "$CG/qemu.slice/$id.scope" 1073741824 104857600
done
write_conf "$T/collectd.conf" "
$(plugin_blocks "$CG" "$DATA")"

# First run: valid files for every guest.
start_collectd "$T/collectd.conf"
for id in 100 101 102 103 104; do wait_for 20 has_update "$VM/$id"; done
stop_collectd
size=$(stat -c %s "$VM/101")
check "a pve-vm-9.0 file as made here" 1346072 "$size"
truncate -s $((size / 2)) "$VM/101"
head -c "$size" /dev/urandom >"$VM/102"
: >"$VM/103"
mkdir "$T/elsewhere"
mv "$VM/104" "$T/elsewhere/104"
ln -s "$T/elsewhere/104" "$VM/104"
touch -d '2020-01-02 03:04:05' "$VM/101" "$VM/102" "$VM/103" "$T/elsewhere/104"
identity() { stat -c '%s %i %y' "$1"; md5sum <"$1"; }
for id in 101 102 103 104; do identity "$VM/$id" >"$T/$id.before"; done
mv "$T/collectd.log" "$T/first-run.log"

# Second run: the damaged files are found.
start_collectd "$T/collectd.conf"
wait_for 20 grep -q "pve-vm-9.0/104" "$T/collectd.log"
first=$(rrd_last_time "$VM/100")
sleep 5
stop_collectd

check_true "100 kept getting rows ($first -> $(rrd_last_time "$VM/100"))" \
  test $(($(rrd_last_time "$VM/100") - first)) -ge 4
check "100 memhost" 968884224 "$(rrd_last "$VM/100" memhost)"
check "100 pressureiosome" 2.25 "$(rrd_last "$VM/100" pressureiosome)"
for id in 101 102 103 104; do
  check "$id: size, inode, mtime and bytes unchanged" \
    "$(cat "$T/$id.before")" "$(identity "$VM/$id")"
  check "$id: one line for the whole run" 1 \
    "$(grep -c "pve-vm-9.0/$id cannot be read as an RRD file" "$T/collectd.log" || true)"
done
check "the cut file: librrd's reason" 1 \
  "$(grep -c "pve-vm-9.0/101 cannot be read as an RRD file (librrd: .*too small" "$T/collectd.log" || true)"
check "the symlink: not followed" 1 \
  "$(grep -c "pve-vm-9.0/104 cannot be read as an RRD file (a symbolic link, not followed)" "$T/collectd.log" || true)"
check_true "the symlink is still in place" test -L "$VM/104"
check "nothing else logged as a problem" "" \
  "$(grep -iE 'warn|error|fail' "$T/collectd.log" | grep -vE 'pve-vm-9.0/10[1234] cannot be read' || true)"
check "no file left behind in the data directory" "100 101 102 103 104" \
  "$(ls -A "$VM" | sort | xargs)"
finish
