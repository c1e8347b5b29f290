#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The optional value lists (PressureDetails, ExtraStats, KSM) through the
# real collectd, written by collectd's own csv plugin: every list arrives
# with the plugin instance of its guest, the stock type and the exact value
# of the fixture files.
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
printf 'ksm_rmap_items 1\nksm_zero_pages 0\nksm_merging_pages 2048\nksm_process_profit -4096\n' >"$T/proc/4242/ksm_stat"
printf 'Inter-|\n face |\n' >"$T/proc/net/dev"

write_conf "$T/collectd.conf" "
<Plugin pve_cgroup>
  CgroupRoot \"$CG\"
  MemoryCgroupRoot \"\"
  PveConfigDir \"\"
  ProcRoot \"$T/proc\"
  RunDir \"$T/run\"
  PressureDetails true
  ExtraStats true
  KSM true
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
wait_for 20 has_csv gauge-ksm_profit
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
check "ksm merged pages" "$(num 2048)" "$(num "$(csv_last vmpage_number-ksm_merging)")"
check "ksm profit (negative)" "$(num -4096)" "$(num "$(csv_last gauge-ksm_profit)")"
check "lists per guest: row + 18 pressure + 10 memory + 2 oom + 2 ksm" 33 \
  "$(ls "$CSV" | sed 's/-[0-9-]*$//' | sort -u | wc -l)"
finish
