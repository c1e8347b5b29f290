#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Exact stall time on the real kernel: a CPU hog in a VM-like cgroup
# (qemu.slice/301.scope) held to 5 % of a CPU by the group's CPU limit
# (cpu_stall.sh) waits about 95 % of the time, an empty one (302) stalls
# never; the real collectd with both plugins (StallTime, the default)
# records their PSI totals once a minute into pvecg-pressure-vm-1.0 while
# the test reads 301's cpu.pressure itself every 0.1 s.  stall_check.py
# then holds each recorded counter to the kernel's totals read around it
# (less what the files' whole seconds hold back near 100 %), each RRD row
# of a whole minute to what the counters make of it (RRD's arithmetic, to
# 1e-9), no row above 100 %, and avg10's mean to the exact share; 302's
# rows are exactly 0, the node's file has its six columns.  collectd is
# stopped for 20 s after its third stall reading and started again: the
# rows of the minutes it was down are held to the same checks (the counter
# goes on across a restart: the stall of the time it was down, never a
# spike; near 100 % stall a second of rounding can put that span a hair
# over 100 %, which the file's max leaves unknown, and the check expects
# exactly that).  Takes four to five minutes.  Skips (77) without root,
# cgroups or PSI.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/cpu_stall.sh"
[ -f "$SYSTEM_PLUGIN_DIR/csv.so" ] || { echo "SKIP: no csv plugin"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to make cgroups"; exit 77; }
CG2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$CG2" ] || { echo "SKIP: no cgroup2 mount"; exit 77; }
[ -r "$CG2/cpu.pressure" ] || [ -r /proc/pressure/cpu ] ||
  { echo "SKIP: no PSI"; exit 77; }
command -v taskset >/dev/null || { echo "SKIP: no taskset"; exit 77; }

ROOT=$CG2/pvecg-stall-$$
CPUCG=/sys/fs/cgroup/cpu/pvecg-stall-$$
PIDS=()
HOGS=()
restore() {
  for p in "${HOGS[@]}" "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  for p in "${HOGS[@]}" "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  [ ! -d "$ROOT" ] || find "$ROOT" -depth -type d -exec rmdir {} + 2>/dev/null || true
  [ ! -d "$CPUCG" ] || rmdir "$CPUCG" 2>/dev/null || true
}
at_exit restore
mkdir -p "$ROOT/qemu.slice/301.scope" "$ROOT/qemu.slice/302.scope" 2>/dev/null ||
  { echo "SKIP: cannot create cgroups in $CG2"; exit 77; }
[ -r "$ROOT/qemu.slice/301.scope/cpu.pressure" ] ||
  { echo "SKIP: no cpu.pressure in cgroups"; exit 77; }

VM=$ROOT/qemu.slice/301.scope
start_cpu_stall "$VM" "$CPUCG"
# The test's own readings of 301's totals, every 0.1 s.
python3 -c '
import sys, time
path, out = sys.argv[1], open(sys.argv[2], "w", buffering=1)
while True:
    t = time.time()
    lines = open(path).read().split("\n")
    total = [l.split("total=")[1] for l in lines[:2]]
    out.write("%.6f %s %s\n" % (t, total[0], total[1]))
    time.sleep(0.1)
' "$VM/cpu.pressure" "$T/kernel.log" &
PIDS+=($!)
wait_for 10 test -s "$T/kernel.log" # a reading before collectd's first

write_conf "$T/collectd.conf" "
<Plugin pve_cgroup>
  CgroupRoot \"$ROOT\"
  MemoryCgroupRoot \"\"
  PveConfigDir \"\"
  KSM false
</Plugin>
<Plugin pve_rrd>
  DataDir \"$T/data\"
</Plugin>
PluginDir \"$SYSTEM_PLUGIN_DIR\"
LoadPlugin csv
<Plugin csv>
  DataDir \"$T/csv\"
</Plugin>"
start_collectd "$T/collectd.conf"
CSV=$T/csv/testnode/pve_cgroup-301
stall_rows() { # at least N stall rows of 301
  [ "$(cat "$CSV"/pvecg_pressure_vm_1_0-qemu-* 2>/dev/null | grep -c '^[0-9]')" -ge "$1" ]
}
wait_for 200 stall_rows 3
sleep 4 # the kernel's readings after the row (stall_check.py's READ_WITHIN)
stop_collectd
stopped=$(date +%s.%N)
sleep 20
started=$(date +%s.%N)
start_collectd "$T/collectd.conf"
wait_for 200 stall_rows 6 # a whole minute after the restart for avg10
sleep 4
stop_collectd
cat "$CSV"/pvecg_pressure_vm_1_0-qemu-* | grep '^[0-9]' >"$T/stall.csv"
first=$(head -1 "$T/stall.csv" | cut -d. -f1)
last=$(tail -1 "$T/stall.csv" | cut -d. -f1)
rrdtool fetch "$T/data/pvecg-pressure-vm-1.0/301" AVERAGE -r 60 -s $((first - 120)) -e $((last + 60)) >"$T/fetch.txt"
rrdtool fetch "$T/data/pve-vm-9.0/301" AVERAGE -r 60 -s $((first - 120)) -e $((last + 60)) >"$T/avg10.txt"
python3 "$HERE/stall_check.py" "$T/kernel.log" "$T/stall.csv" "$T/fetch.txt" \
  "$T/avg10.txt" "$stopped $started" >"$T/check.txt" && status=0 || status=$?
cat "$T/check.txt"
check "stall_check.py: every check passed" 0 "$status"
check "the empty guest's recorded counters: all 0" "0 0 0 0 0 0" \
  "$(cat "$T/csv/testnode/pve_cgroup-302"/pvecg_pressure_vm_1_0-qemu-* | grep '^[0-9]' | tail -1 |
     cut -d, -f2- | tr ',' '\n' | awk '{ printf "%d\n", $1 }' | xargs)"
check "the node's stall file: six DERIVE columns" 6 \
  "$(rrdtool info "$T/data/pvecg-pressure-node-1.0/testnode" | grep -c '^ds\[stall.*\]\.type = "DERIVE"')"
check "the VM's stall file: the layout of pvecg-pressure-vm-1.0" \
  "stallcpusome stallcpufull stalliosome stalliofull stallmemorysome stallmemoryfull" \
  "$(rrdtool info "$T/data/pvecg-pressure-vm-1.0/301" | sed -n 's/^ds\[\(.*\)\]\.index = .*/\1/p' | xargs)"
finish
