#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# KSM on the real kernel: a VM-like cgroup (qemu.slice/196.scope) holds a
# process with 32 MiB of identical pages offered to KSM, a container-like
# one (lxc/197) 8 MiB; the test starts ksmd with a fast scan (and puts its
# settings back after).  Once every page is merged, the real collectd with
# both plugins (KSM auto, the default, read every KSMInterval 2 s) must
# record exactly what the kernel says at the
# same time: the VM's ksm_stat (merging, zero pages, profit), the saved
# bytes of docs/values.md from the node's pages_shared and pages_sharing,
# and the node's /sys/kernel/mm/ksm/ -- in collectd's own csv and in
# pve_rrd's files.  The container has no QEMU process and gets no KSM row.
# Then the VM restarts as a 16 MiB process (a new pid): no row after that
# carries the old process's numbers (the first is unknown), and the new
# one's are found; pvecg serve's /metrics then gives the kernel's numbers.  Skips
# (77) without root, cgroups or a writable /sys/kernel/mm/ksm.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
[ -f "$SYSTEM_PLUGIN_DIR/csv.so" ] || { echo "SKIP: no csv plugin"; exit 77; }

KSMHOG=${HELPER_DIR:-}/ksmhog
[ -x "$KSMHOG" ] || { echo "no ksmhog helper at $KSMHOG"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to make cgroups and run ksmd"; exit 77; }
K=/sys/kernel/mm/ksm
[ -w "$K/run" ] || { echo "SKIP: no writable $K"; exit 77; }
CG2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$CG2" ] || { echo "SKIP: no cgroup2 mount"; exit 77; }
[ -r /proc/self/ksm_stat ] || { echo "SKIP: no /proc/<pid>/ksm_stat (Linux < 6.1)"; exit 77; }

ROOT=$CG2/pvecg-ksm-$$
PIDS=()
OLD_RUN=$(cat "$K/run")
OLD_PAGES=$(cat "$K/pages_to_scan")
OLD_SLEEP=$(cat "$K/sleep_millisecs")
restore() {
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  [ ! -d "$ROOT" ] || find "$ROOT" -depth -type d -exec rmdir {} + 2>/dev/null || true
  echo "$OLD_PAGES" >"$K/pages_to_scan" || true
  echo "$OLD_SLEEP" >"$K/sleep_millisecs" || true
  echo "$OLD_RUN" >"$K/run" || true
}
at_exit restore
mkdir -p "$ROOT/qemu.slice/196.scope" "$ROOT/lxc/197" 2>/dev/null ||
  { echo "SKIP: cannot create cgroups in $CG2"; exit 77; }

# run_in REL MIB: ksmhog in the cgroup, once its pages are offered to KSM.
run_in() {
  local ready=$T/ready-$RANDOM
  sh -c 'echo $$ >"$1/cgroup.procs"; exec "$2" "$3" "$4"' sh "$ROOT/$1" "$KSMHOG" "$2" "$ready" &
  PIDS+=($!)
  wait_for 30 test -e "$ready"
  LAST_PID=$!
}
merging() { awk '$1 == "ksm_merging_pages" { print $2 }' "/proc/$1/ksm_stat"; }
merged() { [ "$(merging "$1")" -eq "$2" ]; } # merged PID PAGES

PAGE=$(getconf PAGESIZE)
run_in qemu.slice/196.scope 32
VM=$LAST_PID
run_in lxc/197 8
echo 5000 >"$K/pages_to_scan"
echo 10 >"$K/sleep_millisecs"
echo 1 >"$K/run"
wait_for 30 merged "$VM" $(((32 << 20) / PAGE))

mkdir -p "$T/run"
write_conf "$T/collectd.conf" "
<Plugin pve_cgroup>
  CgroupRoot \"$ROOT\"
  MemoryCgroupRoot \"\"
  PveConfigDir \"\"
  RunDir \"$T/run\"
  KSMInterval 2
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
VM_CSV=$T/csv/testnode/pve_cgroup-196
NODE_CSV=$T/csv/testnode/pve_cgroup
csv_rows() { cat "$1/$2"-* 2>/dev/null | grep -E '^[0-9]' || true; }
rows_since() { # rows_since T N: the VM's KSM rows after T are at least N
  [ "$(csv_rows "$VM_CSV" pvecg_ksm_vm_1_0 | awk -F, -v t="$1" '$1 > t' | wc -l)" -ge "$2" ]
}
wait_for 20 rows_since 0 3
# KSM auto (the default) on a host that runs it; one row per KSMInterval
check "KSM auto: on, said once" 1 \
  "$(grep -c 'KSM statistics on: this host runs KSM (' "$T/collectd.log")"
check "the VM's KSM rows: one per 2 s slot, not one per 1 s interval" "" \
  "$(csv_rows "$VM_CSV" pvecg_ksm_vm_1_0 | awk -F, '{ s = int($1 / 2) } s == last { print } { last = s }')"
check "...while its pve rows come every interval" "" \
  "$(csv_rows "$VM_CSV" pve_vm_9_0 | awk -F, 'NR > 1 && $1 - last > 1.5 { print } { last = $1 }')"
# what the kernel says now, and collectd's newest rows (merged: stable)
kernel_vm=$(awk '$1 == "ksm_merging_pages" { m = $2 } $1 == "ksm_zero_pages" { z = $2 }
  $1 == "ksm_process_profit" { p = $2 } END { print m, z, p }' "/proc/$VM/ksm_stat")
read -r shared sharing zero profit run < <(cat "$K/pages_shared" "$K/pages_sharing" \
  "$K/ksm_zero_pages" "$K/general_profit" "$K/run" | xargs)
read -r m z p < <(echo "$kernel_vm")
num() { awk -v v="$1" 'BEGIN { printf "%.0f", v }'; }
last_row() { csv_rows "$1" "$2" | tail -1 | cut -d, -f2- | tr ',' '\n' |
  while read -r v; do num "$v"; echo; done | xargs; }
saved=$(awk -v m="$m" -v z="$z" -v sh="$shared" -v si="$sharing" -v pg="$PAGE" \
  'BEGIN { printf "%.0f", (m * si / (sh + si) + z) * pg }')
check "all 32 MiB merged" $((32 << 20)) $((m * PAGE))
check "the VM's row: merging, zero, profit, saved as the kernel says" \
  "$m $z $p $saved" "$(last_row "$VM_CSV" pvecg_ksm_vm_1_0)"
check "the node's row: run, shared, sharing, zero, profit, saved" \
  "$run $shared $sharing $zero $profit $(((sharing + zero) * PAGE))" \
  "$(last_row "$NODE_CSV" pvecg_ksm_node_1_0)"
check "no KSM row for the container" "" \
  "$(ls "$T/csv/testnode/pve_cgroup-197" 2>/dev/null | grep ksm || true)"

echo "# the VM restarts as a 16 MiB process, collectd running on"
kill -KILL "$VM"
wait "$VM" 2>/dev/null || true
restarted=$(date +%s.%N)
run_in qemu.slice/196.scope 16
NEW=$LAST_PID
wait_for 30 merged "$NEW" $((m / 2))
wait_for 20 rows_since $(($(date +%s) + 1)) 2
stop_collectd
check "no row after the restart has the old process's pages" "" \
  "$(csv_rows "$VM_CSV" pvecg_ksm_vm_1_0 | awk -F, -v t="$restarted" -v old="$m" '$1 > t && $2 != "nan" && $2 + 0 == old')"
check "the restart itself is a row of unknowns" "nan,nan,nan,nan" \
  "$(csv_rows "$VM_CSV" pvecg_ksm_vm_1_0 | awk -F, -v t="$restarted" '$1 > t' | head -1 | cut -d, -f2-)"
check "the new process's pages are found" "$((m / 2))" \
  "$(num "$(csv_rows "$VM_CSV" pvecg_ksm_vm_1_0 | tail -1 | cut -d, -f2)")"
check "pve_rrd's file: ksmmerging" "$((m / 2))" "$(num "$(rrd_last "$T/data/pvecg-ksm-vm-1.0/196" ksmmerging)")"
check "pve_rrd's node file: ksmrun" 1 "$(num "$(rrd_last "$T/data/pvecg-ksm-node-1.0/testnode" ksmrun)")"
check "no KSM file for the container" "" "$(ls "$T/data/pvecg-ksm-vm-1.0/" | grep -v '^196$' || true)"

echo "# pvecg serve's /metrics: the kernel's numbers, as recorded"
PVECG=${PVECG:?the built pvecg}
port=$(free_port)
"$PVECG" serve --listen "127.0.0.1:$port" --data-dir "$T/data" --pve-config-dir "" \
  >"$T/serve.log" 2>&1 &
echo $! >"$T/serve.pid"
at_exit 'kill "$(cat "$T/serve.pid")" 2>/dev/null || true'
wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$port/metrics"
metrics=$(curl -sf "http://127.0.0.1:$port/metrics")
sample() { awk -v want="$1" '$1 == want { printf "%.0f", $2 }' <<<"$metrics"; }
check "/metrics: the VM's merged pages are the new process's ksm_stat" "$(merging "$NEW")" \
  "$(sample 'pve_ksm_merging_pages{id="guest/196"}')"
check "/metrics: the VM's saved bytes are its file's" \
  "$(num "$(rrd_last "$T/data/pvecg-ksm-vm-1.0/196" ksmsaved)")" \
  "$(sample 'pve_memory_ksm_saved_bytes{id="guest/196"}')"
check "/metrics: the node's sharing pages are its file's" \
  "$(num "$(rrd_last "$T/data/pvecg-ksm-node-1.0/testnode" ksmsharing)")" \
  "$(sample 'pve_ksm_sharing_pages{id="node/testnode"}')"
check "/metrics: no KSM series of the container" "" \
  "$(grep '^pve_ksm.*197' <<<"$metrics" || true)"
finish
