#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# memhost and pressure from REAL kernel cgroups: a QEMU-like and an LXC-like
# guest cgroup are made under a private subtree (cgroup2, plus the v1 memory
# hierarchy on hybrid hosts), a process holding 64 MiB (48 MiB) of its own
# pages runs in each, and the real collectd with both plugins must record
# memhost/mem within the process's footprint and equal to what the kernel
# files say.  Skips (77) where cgroups cannot be made.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

MEMHOG=${HELPER_DIR:-}/memhog
[ -x "$MEMHOG" ] || { echo "no memhog helper at $MEMHOG"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to make cgroups"; exit 77; }

CG2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$CG2" ] || { echo "SKIP: no cgroup2 mount"; exit 77; }
if grep -qw memory "$CG2/cgroup.controllers" 2>/dev/null; then
  MEMV1=
else
  MEMV1=$(awk '$9 == "cgroup" && $NF ~ /(^|,)memory(,|$)/ { print $5; exit }' /proc/self/mountinfo)
  [ -n "$MEMV1" ] || { echo "SKIP: no memory controller in cgroup2 or v1"; exit 77; }
fi

NAME=pvecg-test-$$
ROOT2=$CG2/$NAME
ROOT1=${MEMV1:+$MEMV1/$NAME}
PIDS=()
remove_cgroups() {
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  for r in "$ROOT2" $ROOT1; do
    [ -d "$r" ] || continue
    find "$r" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
}
trap 'remove_cgroups; cleanup' EXIT

mkdir "$ROOT2" 2>/dev/null || { echo "SKIP: cannot create cgroups in $CG2"; exit 77; }
if [ -z "$MEMV1" ]; then
  # cgroup2 memory: enable the controller down the private subtree.
  echo +memory >"$ROOT2/cgroup.subtree_control" 2>/dev/null ||
    { echo "SKIP: cannot enable the memory controller"; exit 77; }
fi

# make_guest REL: the guest's cgroup in every hierarchy in use.
make_guest() {
  mkdir -p "$ROOT2/$1"
  [ -z "$MEMV1" ] || mkdir -p "$ROOT1/$1"
  if [ -z "$MEMV1" ]; then
    echo +memory >"$(dirname "$ROOT2/$1")/cgroup.subtree_control"
  fi
}

# run_in REL MIB: starts memhog in the guest's cgroups (it moves itself in
# before exec, so every page it touches is charged there).
run_in() {
  local ready=$T/ready-${1//\//_}
  sh -c 'echo $$ >"$1/cgroup.procs"; [ -z "$2" ] || echo $$ >"$2/cgroup.procs"; exec "$3" "$4" "$5"' \
    sh "$ROOT2/$1" "${ROOT1:+$ROOT1/$1}" "$MEMHOG" "$2" "$ready" &
  PIDS+=($!)
  wait_for 30 test -e "$ready"
}

make_guest qemu.slice/100.scope
make_guest lxc/200
run_in qemu.slice/100.scope 64
run_in lxc/200 48
# One CPU-bound process in the VM: cpu = its share of the host's CPUs
# (no PVE config here, so maxcpu is the host's CPU count).
sh -c 'echo $$ >"$1/cgroup.procs"; exec sh -c "while :; do :; done"' sh "$ROOT2/qemu.slice/100.scope" &
PIDS+=($!)

# kernel_memhost REL: PVE's formula on the kernel's files right now.
kernel_memhost() {
  if [ -z "$MEMV1" ]; then
    echo $(( $(cat "$ROOT2/$1/memory.current") - $(awk '$1 == "file" { print $2 }' "$ROOT2/$1/memory.stat") ))
  else
    echo $(( $(cat "$ROOT1/$1/memory.usage_in_bytes") - $(awk '$1 == "total_cache" { print $2 }' "$ROOT1/$1/memory.stat") ))
  fi
}
kernel_avg10() { # REL FILE some|full
  awk -v l="$3" '$1 == l { sub("avg10=", "", $2); print $2 + 0 }' "$ROOT2/$1/$2"
}

write_conf "$T/collectd.conf" "
<Plugin pve_cgroup>
  CgroupRoot \"$ROOT2\"
  MemoryCgroupRoot \"${ROOT1:-}\"
  PveConfigDir \"\"
</Plugin>
<Plugin pve_rrd>
  DataDir \"$T/data\"
</Plugin>"
start_collectd "$T/collectd.conf"
VM=$T/data/pve-vm-9.0
wait_for 20 has_update "$VM/100"
wait_for 20 has_update "$VM/200"
# The container's avg10 before its last row (read below after it): it
# decays from whatever its start waited for the CPU, so its last row
# holds a value between the two readings.
declare -A lxc_before
for f in cpu io memory; do
  for l in some full; do lxc_before[$f$l]=$(kernel_avg10 lxc/200 $f.pressure $l); done
done
sleep 3
stop_collectd

MIB=$((1024 * 1024))
qemu=$(rrd_last "$VM/100" memhost)
lxc=$(rrd_last "$VM/200" mem)
echo "# kernel: qemu $(kernel_memhost qemu.slice/100.scope), lxc $(kernel_memhost lxc/200); rrd: qemu $qemu, lxc $lxc"
check_true "qemu memhost covers the 64 MiB held ($qemu)" test "$qemu" -ge $((64 * MIB))
check_true "qemu memhost is not much more than that" test "$qemu" -le $((72 * MIB))
check_true "qemu memhost equals the kernel's figure within 256 KiB" \
  test $(( qemu - $(kernel_memhost qemu.slice/100.scope) )) -le 262144 -a \
       $(( $(kernel_memhost qemu.slice/100.scope) - qemu )) -le 262144
check "qemu mem equals memhost" "$qemu" "$(rrd_last "$VM/100" mem)"
check_true "lxc mem covers the 48 MiB held ($lxc)" test "$lxc" -ge $((48 * MIB)) -a "$lxc" -le $((56 * MIB))
CPUS=$(nproc)
cpu=$(rrd_last "$VM/100" cpu)
check "maxcpu is the host's CPU count" "$CPUS" "$(rrd_last "$VM/100" maxcpu)"
check_true "cpu of one busy process is near 1/$CPUS ($cpu)" \
  awk -v c="$cpu" -v n="$CPUS" 'BEGIN { exit !(c >= 0.6 / n && c <= 1.1 / n) }'
check_true "an idle guest's cpu is near 0 ($(rrd_last "$VM/200" cpu))" \
  awk -v c="$(rrd_last "$VM/200" cpu)" 'BEGIN { exit !(c >= 0 && c < 0.05) }'
check "lxc memhost unknown (as PVE)" U "$(rrd_last "$VM/200" memhost)"
# The idle container's pressure only decays (to 0 on a quiet machine):
# its last row is within the kernel's readings before and after it; the
# busy VM's moves (avg10 is recomputed every 2 s), so within 5 points.
for f in cpu io memory; do
  for l in some full; do
    b=${lxc_before[$f$l]} a=$(kernel_avg10 lxc/200 $f.pressure $l)
    r=$(rrd_last "$VM/200" "pressure$f$l")
    check_true "lxc pressure${f}${l} ($r) within the kernel's avg10 before ($b) and after ($a)" \
      awk -v r="$r" -v a="$a" -v b="$b" 'BEGIN { exit !(r >= (a < b ? a : b) && r <= (a < b ? b : a)) }'
    k=$(kernel_avg10 qemu.slice/100.scope $f.pressure $l)
    r=$(rrd_last "$VM/100" "pressure$f$l")
    check_true "qemu pressure${f}${l} ($r) near the kernel's avg10 ($k)" \
      awk -v a="$r" -v b="$k" 'BEGIN { d = a - b; exit !(d <= 5 && d >= -5) }'
  done
done
check "directories made with mode 0750 (as pmxcfs's)" "750 750" \
  "$(stat -c %a "$T/data" "$VM" | xargs)"
check "files made with mode 0644" "644 644" "$(stat -c %a "$VM/100" "$VM/200" | xargs)"
check "no errors logged" "" "$(grep -iE 'error|failed|warning' "$T/collectd.log" || true)"
finish
