#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest files that cannot be read the way the kernel's can, under the real
# collectd with both plugins: a directory where memory.current should be
# (EISDIR), a FIFO as cpu.pressure and as a guest's PVE config (opening one
# must not wait for a writer: the read thread would hang, as it did before
# the files were opened O_NONBLOCK), and a symlink out of the tree as
# io.pressure (O_NOFOLLOW: not followed).  Each affected column is U,
# each problem is one log line for the whole run, every other column and
# the healthy guest are exact, and collectd keeps reading at its interval.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"

CG=$T/cgroup
DATA=$T/data
VM=$DATA/pve-vm-9.0
PVE=$T/pve
mkdir -p "$CG" "$PVE/qemu-server" "$PVE/lxc"

for id in 100 101 102 103 104; do
  qemu_guest "$CG" $id 1.50 0.75 2.25 1.00 0.50 0.25
  v2_memory "$CG/qemu.slice/$id.scope" 1073741824 104857600
  printf 'sockets: 1\ncores: 2\nmemory: 2048\n' >"$PVE/qemu-server/$id.conf"
done
rm "$CG/qemu.slice/101.scope/memory.current"
mkdir "$CG/qemu.slice/101.scope/memory.current"
rm "$CG/qemu.slice/102.scope/cpu.pressure"
mkfifo "$CG/qemu.slice/102.scope/cpu.pressure"
psi_file "$T/outside.pressure" 9.99 9.99
rm "$CG/qemu.slice/103.scope/io.pressure"
ln -s "$T/outside.pressure" "$CG/qemu.slice/103.scope/io.pressure"
rm "$PVE/qemu-server/104.conf"
mkfifo "$PVE/qemu-server/104.conf"

write_conf "$T/collectd.conf" "
$(plugin_blocks "$CG" "$DATA" "PveConfigDir \"$PVE\"")"
start_collectd "$T/collectd.conf"
for id in 100 101 102 103 104; do wait_for 20 has_update "$VM/$id"; done
first=$(rrd_last_time "$VM/100")
sleep 4
stop_collectd

echo "# the healthy guest"
check "100 memhost" 968884224 "$(rrd_last "$VM/100" memhost)"
check "100 pressurecpusome" 1.5 "$(rrd_last "$VM/100" pressurecpusome)"
check "100 pressureiosome" 2.25 "$(rrd_last "$VM/100" pressureiosome)"
check "100 maxcpu" 2 "$(rrd_last "$VM/100" maxcpu)"
check_true "rows kept coming at Interval 1 ($first -> $(rrd_last_time "$VM/100"))" \
  test $(($(rrd_last_time "$VM/100") - first)) -ge 3
check_true "every guest written in the last second" \
  test "$(for id in 100 101 102 103 104; do rrd_last_time "$VM/$id"; done | sort -u | wc -l)" -le 2

echo "# memory.current a directory"
check "101 memhost U" U "$(rrd_last "$VM/101" memhost)"
check "101 mem U" U "$(rrd_last "$VM/101" mem)"
check "101 pressurememorysome" 0.5 "$(rrd_last "$VM/101" pressurememorysome)"
check "101 maxmem" 2147483648 "$(rrd_last "$VM/101" maxmem)"
check "101 logged once" 1 \
  "$(grep -c 'qemu 101: memory.current: Is a directory' "$T/collectd.log" || true)"

echo "# cpu.pressure a FIFO"
check "102 pressurecpusome U" U "$(rrd_last "$VM/102" pressurecpusome)"
check "102 pressurecpufull U" U "$(rrd_last "$VM/102" pressurecpufull)"
check "102 memhost" 968884224 "$(rrd_last "$VM/102" memhost)"
check "102 pressureiofull" 1 "$(rrd_last "$VM/102" pressureiofull)"
check "102 logged once" 1 "$(grep -c 'qemu 102: cpu.pressure: ' "$T/collectd.log" || true)"

echo "# io.pressure a symlink out of the tree"
check "103 pressureiosome U (not followed)" U "$(rrd_last "$VM/103" pressureiosome)"
check "103 pressureiofull U" U "$(rrd_last "$VM/103" pressureiofull)"
check "103 pressurecpusome" 1.5 "$(rrd_last "$VM/103" pressurecpusome)"
check "103 logged once (O_NOFOLLOW: as if missing)" 1 \
  "$(grep -c 'qemu 103: io.pressure: file missing' "$T/collectd.log" || true)"

echo "# PVE config a FIFO"
check "104 memhost" 968884224 "$(rrd_last "$VM/104" memhost)"
check "104 pressurecpusome" 1.5 "$(rrd_last "$VM/104" pressurecpusome)"
# A FIFO is not a config: it would read as an empty one (PVE's defaults),
# so maxcpu and maxmem are unknown, with one line.
check "104 maxcpu unknown" U "$(rrd_last "$VM/104" maxcpu)"
check "104 maxmem unknown" U "$(rrd_last "$VM/104" maxmem)"
check "104 logged once" 1 \
  "$(grep -c 'qemu-server/104.conf: not a regular file; maxcpu and maxmem are recorded as unknown' "$T/collectd.log" || true)"

check "no other warnings or errors" "" \
  "$(grep -iE 'warn|error|fail' "$T/collectd.log" | grep -vE 'qemu 10[123]: |104\.conf: not a regular file' || true)"
finish
