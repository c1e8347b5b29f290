#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The optional value lists (PressureDetails, ExtraStats, KSM) through the
# real collectd, written by collectd's own csv plugin: every list arrives
# with the plugin instance of its guest, its type and the exact value of
# the fixture files; KSM's rows (one per VM, one for the node) also reach
# pve_rrd's files of their own, and a VM whose ksm_stat is malformed gets
# unknowns and one line.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
[ -f "$SYSTEM_PLUGIN_DIR/csv.so" ] || { echo "SKIP: no csv plugin"; exit 77; }

CG=$T/cgroup
qemu_guest "$CG" 100 1.50 0.75 2.25 1.00 0.50 0.25
D=$CG/qemu.slice/100.scope
v2_memory "$D" 1073741824 104857600
printf 'low 0\nhigh 0\nmax 1\noom 3\noom_kill 2\noom_group_kill 0\n' >"$D/memory.events"
echo 65536 >"$D/memory.swap.current"
echo 4242 >"$D/cgroup.procs"
mkdir -p "$T/proc/4242" "$T/proc/net" "$T/run/qemu-server"
echo "0::/qemu.slice/100.scope" >"$T/proc/4242/cgroup"
printf 'ksm_rmap_items 1\nksm_zero_pages 8\nksm_merging_pages 2048\nksm_process_profit -4096\n' >"$T/proc/4242/ksm_stat"
echo "4242 (kvm) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 6 0 0 20 0 9 0 777 1000 50" >"$T/proc/4242/stat"
# VM 101: a QEMU process whose ksm_stat is malformed
qemu_guest "$CG" 101 1.50 0.75 2.25 1.00 0.50 0.25
v2_memory "$CG/qemu.slice/101.scope" 1073741824 104857600
echo 4343 >"$CG/qemu.slice/101.scope/cgroup.procs"
mkdir -p "$T/proc/4343"
echo "0::/qemu.slice/101.scope" >"$T/proc/4343/cgroup"
echo "4343 (kvm) S 1 4343 4343 0 -1 4194560 100 0 0 0 5 6 0 0 20 0 9 0 888 1000 50" >"$T/proc/4343/stat"
printf 'ksm_merging_pages many\n' >"$T/proc/4343/ksm_stat"
K=$T/sys/kernel/mm/ksm
mkdir -p "$K" "$T/sys/class/net"
echo 1 >"$K/run"
echo 1000 >"$K/pages_shared"
echo 3000 >"$K/pages_sharing"
echo 16 >"$K/ksm_zero_pages"
echo -123 >"$K/general_profit"
PAGE=$(getconf PAGESIZE)
printf 'Inter-|\n face |\n' >"$T/proc/net/dev"

write_conf "$T/collectd.conf" "
<Plugin pve_cgroup>
  CgroupRoot \"$CG\"
  MemoryCgroupRoot \"\"
  PveConfigDir \"\"
  ProcRoot \"$T/proc\"
  RunDir \"$T/run\"
  SysRoot \"$T/sys\"
  PressureDetails true
  ExtraStats true
  KSM true
  KSMInterval 0
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
CSV=$T/csv/testnode/pve_cgroup-100
csv_last() { # TYPE-INSTANCE: the value of its newest line
  local f
  f=$(ls "$CSV/$1"-* 2>/dev/null | tail -1)
  [ -n "$f" ] && tail -1 "$f" | cut -d, -f2
}
has_csv() { [ -n "$(csv_last "$1")" ]; }
wait_for 20 has_csv derive-oom_kill
wait_for 20 has_csv pvecg_ksm_vm_1_0
wait_for 20 test -f "$T/data/pvecg-ksm-node-1.0/testnode"
rows_101() { [ "$(cat "$T/csv/testnode/pve_cgroup-101/pvecg_ksm_vm_1_0"-* 2>/dev/null | grep -c '^[0-9]')" -ge 3 ]; }
wait_for 20 rows_101
stop_collectd

num() { awk -v v="$1" 'BEGIN { printf "%.6f", v }'; }
check "pressure io some avg60" "$(num 0.25)" "$(num "$(csv_last percent-pressure-io-some-avg60)")"
check "pressure memory full avg300" "$(num 0.01)" "$(num "$(csv_last percent-pressure-memory-full-avg300)")"
check "pressure cpu some total (µs counter)" 123456 "$(csv_last derive-pressure-cpu-some-total)"
check "memory anon" "$(num 8675309)" "$(num "$(csv_last memory-anon)")"
check "memory file_mapped (not file)" "$(num 7340032)" "$(num "$(csv_last memory-file_mapped)")"
check "memory swap" "$(num 65536)" "$(num "$(csv_last memory-swap)")"
check "memory host_with_shmem: 1073741824 - (104857600 - 4096)" \
  "$(num 968888320)" "$(num "$(csv_last memory-host_with_shmem)")"
check "oom counter" 3 "$(csv_last derive-oom)"
check "oom_kill counter" 2 "$(csv_last derive-oom_kill)"
csv_row() { # DIR TYPE: the values of its newest line, each as num
  local f
  f=$(ls "$1/$2"-* 2>/dev/null | tail -1)
  [ -n "$f" ] && tail -1 "$f" | cut -d, -f2- | tr ',' '\n' |
    while read -r v; do num "$v"; echo; done | xargs
}
# merging, zero, the kernel's profit, and saved: 2048 merging pages at
# 3000 / (1000 + 3000) each plus 8 zero pages
check "the VM's KSM row" "$(num 2048) $(num 8) $(num -4096) $(num $(((2048 * 3 / 4 + 8) * PAGE)))" \
  "$(csv_row "$CSV" pvecg_ksm_vm_1_0)"
# run, shared, sharing, zero, general_profit, saved: (3000 + 16) pages
check "the node's KSM row" "$(num 1) $(num 1000) $(num 3000) $(num 16) $(num -123) $(num $(((3000 + 16) * PAGE)))" \
  "$(csv_row "$T/csv/testnode/pve_cgroup" pvecg_ksm_node_1_0)"
check "the VM's KSM file: ksmsaved" "$(num $(((2048 * 3 / 4 + 8) * PAGE)))" \
  "$(num "$(rrd_last "$T/data/pvecg-ksm-vm-1.0/100" ksmsaved)")"
check "the node's KSM file: ksmsharing" "$(num 3000)" \
  "$(num "$(rrd_last "$T/data/pvecg-ksm-node-1.0/testnode" ksmsharing)")"
check "VM 101's malformed ksm_stat: unknown" "nan,nan,nan,nan" \
  "$(cat "$T/csv/testnode/pve_cgroup-101/pvecg_ksm_vm_1_0"-* | tail -1 | cut -d, -f2-)"
check "...said once, not per row" 1 \
  "$(grep -cF "pve_cgroup plugin: qemu 101: its QEMU process's ksm_stat: malformed content; its KSM values are recorded as unknown until it recovers." "$T/collectd.log")"
check "lists per guest: row + 18 pressure + 10 memory + 2 oom + 1 ksm + 1 stall" 33 \
  "$(ls "$CSV" | sed 's/-[0-9-]*$//' | sort -u | wc -l)"
finish
