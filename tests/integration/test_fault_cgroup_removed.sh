#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A REAL guest cgroup removed while collectd reads it, and made again under
# the same VMID: its kept descriptors start failing with ENODEV, the guest
# is dropped (no row, nothing logged: a guest that stops is not an error),
# the other guest's rows go on exact, and the re-created cgroup (a new
# directory) is read again.  Real cgroups under a private cgroup2 subtree;
# skipped (77) where they cannot be made.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to make cgroups"; exit 77; }
CG2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$CG2" ] || { echo "SKIP: no cgroup2 mount"; exit 77; }
ROOT=$CG2/pvecg-fault-$$
remove_cgroups() {
  [ -d "$ROOT" ] && find "$ROOT" -depth -type d -exec rmdir {} + 2>/dev/null || true
}
trap 'run_exit_hooks; remove_cgroups; cleanup' EXIT
mkdir "$ROOT" 2>/dev/null || { echo "SKIP: cannot create cgroups in $CG2"; exit 77; }
mkdir -p "$ROOT/qemu.slice/100.scope" "$ROOT/qemu.slice/101.scope"
[ -r "$ROOT/qemu.slice/100.scope/cpu.pressure" ] ||
  { echo "SKIP: no pressure files (PSI off)"; exit 77; }

DATA=$T/data
VM=$DATA/pve-vm-9.0
write_conf "$T/collectd.conf" "
$(plugin_blocks "$ROOT" "$DATA" 'Node false')"
start_collectd "$T/collectd.conf"
wait_for 20 has_update "$VM/100"
wait_for 20 has_update "$VM/101"
sleep 1

rmdir "$ROOT/qemu.slice/101.scope"
removed=$(date +%s)
sleep 4
gone_last=$(rrd_last_time "$VM/101")
check_true "101 got no row once removed ($gone_last, removed at $removed)" \
  test "$gone_last" -le $((removed + 1))
check_true "100 went on meanwhile" test "$(rrd_last_time "$VM/100")" -ge $((removed + 3))

mkdir "$ROOT/qemu.slice/101.scope"
back=$(date +%s)
newer() { [ "$(rrd_last_time "$VM/101")" -gt "$1" ]; }
wait_for 20 newer "$back"
sleep 1
stop_collectd

# Empty cgroups: nothing ever stalled in them.
for id in 100 101; do
  check "$id pressurecpusome" 0 "$(rrd_last "$VM/$id" pressurecpusome)"
  check "$id pressureiosome" 0 "$(rrd_last "$VM/$id" pressureiosome)"
done
check "nothing logged about the removal" "" \
  "$(grep -iE 'warn|error|fail' "$T/collectd.log" || true)"
finish
