# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the receiver tests: a data directory and a PVE configuration
# as a Proxmox VE cluster leaves them, filled through rrdtool with rows of
# the last three days (the stores keep what is that recent):
#   pve-vm-9.0/100  a VM "web server" (a name with a space) on pve1: 36 h of
#                   minute rows (so the export takes 30-minute rows before
#                   the last day), counters, U holes, an all-U stretch;
#   pve-vm-9.0/101  a container "ct1" on pve2 whose history begins in a
#                   legacy pve2-vm file, then goes on in the 9.0 file;
#   pve-node-9.0/pve1  a node with every column, pressure in percent;
#   pve-vm-9.0/102  a guest no configuration names;
#   pvecg-ksm-vm-1.0/100, pvecg-ksm-node-1.0/pve1  pvecg's KSM files of
#                   the VM and the node: 2 h of rows, a negative profit,
#                   U where an older kernel says nothing;
#   pvecg-pressure-vm-1.0/100, pvecg-pressure-node-1.0/pve1  pvecg's stall
#                   files of the VM and the node: 2 h of the kernel's PSI
#                   totals (µs) at known rates: the VM's cpu some 250,000
#                   µs/s (a quarter of each minute: its counter is 15 s a
#                   row), a U hole in io full, the node's totals above 2^32.
# GUESTS lists "vmid object nodename title" for export_points.py.
#
# needs: T, LAYOUT_DEFS; sets D (data), C (configuration), GUESTS, NOW

command -v rrdtool >/dev/null || { echo "SKIP: rrdtool is not installed"; exit 77; }

NOW=$(date +%s)
T0=$(((NOW - 3 * 86400) / 1800 * 1800))
D=$T/data
C=$T/pve
mkdir -p "$D/pve-vm-9.0" "$D/pve-node-9.0" "$D/pve2-vm" \
  "$D/pvecg-ksm-vm-1.0" "$D/pvecg-ksm-node-1.0" \
  "$D/pvecg-pressure-vm-1.0" "$D/pvecg-pressure-node-1.0" \
  "$C/nodes/pve1/qemu-server" "$C/nodes/pve2/lxc" "$C/nodes/pve1/lxc"

fixture_file() { # LAYOUT PATH START
  # shellcheck disable=SC2046 # one definition per line
  rrdtool create "$2" --start "$3" --step 60 $("$LAYOUT_DEFS" "$1")
}

fixture_file pve-vm-9.0 "$D/pve-vm-9.0/100" "$T0"
awk -v t0="$T0" 'BEGIN {
  for (i = 1; i <= 2160; i++) {
    if (i > 2000 && i <= 2030) {          # a stretch of nothing
      printf "%d:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U\n", t0 + 60 * i; continue
    }
    printf "%d:4:%s:8589934592:%s:34359738368:U:%d:%d:%s:%d:%d:%.2f:0:%.2f:%.2f:%.2f:0\n",
      t0 + 60 * i, (i % 4) / 4, (i % 13 == 0 ? "U" : 1048576 * (i % 50) + 0.5),
      300 * i, 1000 * i + (i % 7) * 3, (i % 17 == 0 ? "U" : 4096 * i), 512 * i,
      1073741824 + 1024 * i, (i % 9) * 1.37, (i % 5) * 0.11, (i % 3) * 12.5,
      (i % 11) * 0.01
  }
}' | xargs -n 400 rrdtool update "$D/pve-vm-9.0/100"

# 101: 60 minutes in the legacy file, then 120 in the 9.0 file.
TL=$((T0 + 86400))
fixture_file pve2-vm "$D/pve2-vm/101" "$TL"
awk -v t0="$TL" 'BEGIN { for (i = 1; i <= 60; i++)
  printf "%d:2:0.125:2147483648:%d:U:U:%d:%d:U:U\n", t0 + 60 * i, 1000 * i, 100 * i, 50 * i }' |
  xargs rrdtool update "$D/pve2-vm/101"
fixture_file pve-vm-9.0 "$D/pve-vm-9.0/101" "$((TL + 3600))"
awk -v t0="$TL" 'BEGIN { for (i = 61; i <= 180; i++)
  printf "%d:2:0.25:2147483648:%d:U:U:%d:%d:U:U:U:U:U:U:U:U:U\n", t0 + 60 * i, 2000 * i, 100 * i, 50 * i }' |
  xargs rrdtool update "$D/pve-vm-9.0/101"

fixture_file pve-node-9.0 "$D/pve-node-9.0/pve1" "$T0"
awk -v t0="$T0" 'BEGIN { for (i = 1; i <= 300; i++)
  printf "%d:%.2f:8:%.3f:%.3f:67108864000:%d:8589934592:%d:100000000000:%d:%d:%d:%d:0:%.2f:%.2f:%.2f:%.2f:%.2f\n",
    t0 + 60 * i, (i % 10) / 4, (i % 8) / 8, (i % 5) / 100, 30000000000 + 1000 * i,
    4096 * (i % 3), 40000000000 + i, 1200 * i, 800 * i, 20000000000 - i,
    (i % 4) * 2.5, (i % 6) * 0.5, (i % 2) * 0.25, (i % 3) * 1.5, (i % 7) * 0.05 }' |
  xargs rrdtool update "$D/pve-node-9.0/pve1"

fixture_file pve-vm-9.0 "$D/pve-vm-9.0/102" "$T0"
rrdtool update "$D/pve-vm-9.0/102" "$((T0 + 60)):1:0.5:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U"

TK=$((T0 + 2 * 86400))
fixture_file pvecg-ksm-vm-1.0 "$D/pvecg-ksm-vm-1.0/100" "$TK"
awk -v t0="$TK" 'BEGIN { for (i = 1; i <= 120; i++)
  printf "%d:%d:%s:%d:%d\n", t0 + 60 * i, 1000 * i, (i % 10 == 0 ? "U" : i),
    4096 * i - 300000, 3072 * i }' | xargs rrdtool update "$D/pvecg-ksm-vm-1.0/100"
fixture_file pvecg-ksm-node-1.0 "$D/pvecg-ksm-node-1.0/pve1" "$TK"
awk -v t0="$TK" 'BEGIN { for (i = 1; i <= 120; i++)
  printf "%d:1:%d:%d:U:U:%d\n", t0 + 60 * i, 250 * i, 750 * i, 3072000 * i }' |
  xargs rrdtool update "$D/pvecg-ksm-node-1.0/pve1"

# Stall totals (DERIVE, µs): cpu some, cpu full, io some, io full, memory
# some, memory full; each row's rate is the total's growth over 60 s.
stall_rows() { # PATH BASE: rows i = 1..120 from TK + 60
  awk -v t0="$TK" -v base="$2" 'BEGIN { for (i = 1; i <= 120; i++)
    printf "%d:%.0f:%.0f:%.0f:%s:%.0f:0\n", t0 + 60 * i, base + 15000000 * i,
      60 * (1000 * i + 4000 * int(i / 3)), 60 * 7 * i * i,
      (i % 17 == 0 ? "U" : sprintf("%.0f", 180 * i)), base + 60 * 123457 * i }' |
    xargs rrdtool update "$1"
}
fixture_file pvecg-pressure-vm-1.0 "$D/pvecg-pressure-vm-1.0/100" "$TK"
stall_rows "$D/pvecg-pressure-vm-1.0/100" 0
fixture_file pvecg-pressure-node-1.0 "$D/pvecg-pressure-node-1.0/pve1" "$TK"
stall_rows "$D/pvecg-pressure-node-1.0/pve1" 5000000000000

printf 'name: web server\nmemory: 8192\ncores: 4\n' >"$C/nodes/pve1/qemu-server/100.conf"
printf 'hostname: ct1\nmemory: 2048\n' >"$C/nodes/pve2/lxc/101.conf"
GUESTS=$T/guests
printf '100 qemu pve1 web server\n101 lxc pve2 ct1\n' >"$GUESTS"

# expected_points FORM: what the store must hold of the guests 100, 101
# and the node, from pvecg's own JSON rows.
expected_points() {
  "$PVECG" export --format json --names pvecg --vmid 100 --vmid 101 --node pve1 \
    --data-dir "$D" >"$T/rows.json"
  "$EXPORT_POINTS" expect "$1" "$T/rows.json" "$GUESTS"
}

# check_stall GOT VM_CPU_SOME NODE_MEMORY_SOME [VM_IO_FULL]: the store's
# points (GOT, as export_points.py reads them) hold the stall counters the
# fixture's rates make, stated here on their own: the VM's cpu some 0 at
# its first known row (i = 2: a DERIVE's first update has no rate) and 15 s
# more each row, so that each minute's difference over 60 s is exactly the
# quarter the rows were written with; the node's memory some 7.40742 s a
# row; io full (when named) without the rows of its U hole (17, 18) and
# going on without their microseconds.  Series are named as GOT names them.
check_stall() {
  local got=$1 i value
  stall_value() { # SERIES ROW
    awk -F'\t' -v s="$1" -v t=$((TK + 60 * $2)) '$1 == s && $2 == t { printf "%.12g\n", $3 }' "$got"
  }
  for i in 2 3 62 120; do
    value=$(stall_value "$2" "$i")
    [ "$value" = "$((15 * (i - 2)))" ] || fail "$2 at row $i: '$value', not $((15 * (i - 2)))"
  done
  [ -z "$(stall_value "$2" 1)" ] || fail "$2 has a point at its first update"
  awk -F'\t' -v s="$2" '$1 == s { if (n++ && ($3 - v) / 60 != 0.25) bad = 1; v = $3 }
    END { exit bad || n != 119 }' "$got" || fail "$2: not 119 points a quarter apart"
  value=$(stall_value "$3" 120)
  [ "$value" = 874.07556 ] || fail "$3 at row 120: '$value', not 874.07556"
  [ -z "${4:-}" ] && return 0
  [ -z "$(stall_value "$4" 17)$(stall_value "$4" 18)" ] || fail "$4 has points in its hole"
  [ "$(stall_value "$4" 16)" = 0.00252 ] && [ "$(stall_value "$4" 19)" = 0.0027 ] ||
    fail "$4 around its hole: $(stall_value "$4" 16), $(stall_value "$4" 19)"
}
