#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The real collectd with both plugins under valgrind memcheck, at Interval 1
# for several intervals, while guests appear, disappear and come back with
# the same VMID: no memory errors and no definite leaks in our code.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
command -v valgrind >/dev/null || { echo "SKIP: valgrind is not installed"; exit 77; }

CG=$T/cgroup
for i in 100 101 102; do
  qemu_guest "$CG" $i 1.00 0.50 0.00 0.00 0.00 0.00
  v2_memory "$CG/qemu.slice/$i.scope" 2000000 1000000
done
lxc_guest "$CG" 200 0.10 0.00 0.20 0.10 0.00 0.00
v2_memory "$CG/lxc/200" 3000000 1000000
mkdir -p "$T/pve/qemu-server"
printf 'name: a\ncores: 2\nmemory: 1024\n' >"$T/pve/qemu-server/100.conf"

write_conf "$T/collectd.conf" "
<Plugin pve_cgroup>
  CgroupRoot \"$CG\"
  MemoryCgroupRoot \"\"
  PveConfigDir \"$T/pve\"
  ExtraStats true
  PressureDetails true
</Plugin>
<Plugin pve_rrd>
  DataDir \"$T/data\"
</Plugin>"
valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
  --suppressions="$HERE/valgrind.supp" --log-file="$T/valgrind.log" \
  "$COLLECTD" -f -C "$T/collectd.conf" \
  >"$T/collectd.stdout" 2>&1 &
COLLECTD_PID=$!
VM=$T/data/pve-vm-9.0
wait_for 120 has_update "$VM/102"
# Churn: one goes, one comes back as a new directory, one is added.
rm -r "$CG/qemu.slice/101.scope"
rm -r "$CG/qemu.slice/102.scope"
qemu_guest "$CG" 102 2.00 1.00 0.00 0.00 0.00 0.00
v2_memory "$CG/qemu.slice/102.scope" 5000000 1000000
qemu_guest "$CG" 103 2.00 1.00 0.00 0.00 0.00 0.00
v2_memory "$CG/qemu.slice/103.scope" 6000000 1000000
wait_for 60 has_update "$VM/103"
check_mem() { [ "$(rrd_last "$VM/102" memhost)" == 4000000 ]; }
wait_for 30 check_mem
sleep 3
kill -TERM "$COLLECTD_PID"
wait "$COLLECTD_PID"
status=$?
COLLECTD_PID=

check "collectd under valgrind exits cleanly (99 = valgrind errors)" 0 "$status"
check "no valgrind errors or definite leaks" "" "$(grep -E 'ERROR SUMMARY: [1-9]|definitely lost: [1-9]|Invalid|uninitialised' "$T/valgrind.log" || true)"
check "re-created 102 recorded from its new directory" 4000000 "$(rrd_last "$VM/102" memhost)"
check "added 103 recorded" 5000000 "$(rrd_last "$VM/103" memhost)"
[ "$FAILURES" -eq 0 ] || cat "$T/valgrind.log"
finish
