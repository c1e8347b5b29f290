# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the `pvecg ship` tests: guests' files that grow while the
# shipper runs, written through a real rrdcached as collectd's pve_rrd
# writes them, on a clock that runs a minute of rows in a fraction of a
# second (so hours of history and outages take seconds):
#   pve-vm-9.0/100     a VM "web" on pve1: counters, U holes
#   pve-vm-9.0/101     a container "ct1" on pve1
#   pve-node-9.0/pve1  the node
#   (ship_add_guest)   pve-vm-9.0/102, a VM "late" that appears mid-run
#   with SHIP_STALL=1: pvecg-pressure-vm-1.0/100 and
#   pvecg-pressure-node-1.0/pve1, the stall files of the VM and the node,
#                      the kernel's PSI totals (µs) at known rates: cpu
#                      some 250,000 µs/s, so its counter grows by exactly
#                      15 s a row (ship_check_stall), and a U hole in io full
# The daemon writes a file's rows once the oldest is 2 s old (-w 2, as
# Proxmox's -w 300 in a hurry; SHIP_WRITE_TIMEOUT sets another): until
# then the file does not hold them.
#
# needs: T, LAYOUT_DEFS, PVECG; sets D (data), C (configuration), GUESTS,
# DAEMON (its address), SIM (the clock: the last row's time), and an EXIT
# trap that stops SHIPPER, the daemon and the stores (a test with more to
# stop sets its own and calls ship_test_end)

command -v rrdtool >/dev/null || { echo "SKIP: rrdtool is not installed"; exit 77; }
command -v rrdcached >/dev/null || { echo "SKIP: rrdcached is not installed"; exit 77; }

D=$T/data
C=$T/pve
mkdir -p "$D/pve-vm-9.0" "$D/pve-node-9.0" "$C/nodes/pve1/qemu-server" \
  "$C/nodes/pve1/lxc"
# 22 hours ago: every row a test writes (at most 1,300) stays in the past
# and in the files' minute archive (a day), so `pvecg export` reads the
# same rows as the shipper did.
SIM=$((($(date +%s) - 22 * 3600) / 60 * 60))
SHIP_VMS="100 101"

mkdir -p "$T/journal"
rrdcached -g -l "unix:$T/rrdcached.sock" -b "$D" -B -p "$T/rrdcached.pid" \
  -j "$T/journal" -w "${SHIP_WRITE_TIMEOUT:-2}" -f $((2 * ${SHIP_WRITE_TIMEOUT:-2})) >"$T/rrdcached.log" 2>&1 &
SHIP_DAEMON_PID=$!
DAEMON=unix:$T/rrdcached.sock
for _ in $(seq 100); do [ -S "$T/rrdcached.sock" ] && break; sleep 0.05; done

ship_fixture_stop() {
  kill "$SHIP_DAEMON_PID" 2>/dev/null || true
  wait "$SHIP_DAEMON_PID" 2>/dev/null || true
}

# A test's shipper in the background (SHIPPER), the daemon and the stores
# are stopped at exit, whatever happened; T goes too unless KEEP is set.
SHIPPER=
ship_test_end() {
  [ -z "$SHIPPER" ] || kill -KILL "$SHIPPER" 2>/dev/null || true
  ship_fixture_stop
  ! declare -F stop_receivers >/dev/null || stop_receivers
  [ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap ship_test_end EXIT

ship_file() { # LAYOUT PATH
  # shellcheck disable=SC2046 # one definition per line
  rrdtool create "$2" --start "$SIM" --step 60 $("$LAYOUT_DEFS" "$1")
}

ship_file pve-vm-9.0 "$D/pve-vm-9.0/100"
ship_file pve-vm-9.0 "$D/pve-vm-9.0/101"
ship_file pve-node-9.0 "$D/pve-node-9.0/pve1"
STALL_FILES=()
if [ -n "${SHIP_STALL:-}" ]; then
  mkdir -p "$D/pvecg-pressure-vm-1.0" "$D/pvecg-pressure-node-1.0"
  STALL_FILES=("$D/pvecg-pressure-vm-1.0/100" "$D/pvecg-pressure-node-1.0/pve1")
  ship_file pvecg-pressure-vm-1.0 "${STALL_FILES[0]}"
  ship_file pvecg-pressure-node-1.0 "${STALL_FILES[1]}"
fi
printf 'name: web\nmemory: 8192\ncores: 4\n' >"$C/nodes/pve1/qemu-server/100.conf"
printf 'hostname: ct1\nmemory: 2048\n' >"$C/nodes/pve1/lxc/101.conf"
GUESTS=$T/guests
printf '100 qemu pve1 web\n101 lxc pve1 ct1\n' >"$GUESTS"

# ship_rows N: N more rows for every guest and the node, through the
# daemon.  Row i's values are functions of i (mawk's %d stops at 2^31:
# big numbers are %.0f); the counters (DERIVE: integers) grow, with holes.
ship_rows() {
  local n=$1 vm
  for vm in $SHIP_VMS; do
    awk -v t0="$SIM" -v n="$n" -v vm="$vm" 'BEGIN {
      for (k = 1; k <= n; k++) {
        t = t0 + 60 * k; i = t / 60 % 1000000 + vm
        printf "%d:2:%.3f:4294967296:%.1f:34359738368:U:%.0f:%.0f:%s:%.0f:%.0f:%.2f:0:%.2f:%.2f:%.2f:0\n",
          t, (i % 8) / 8, 1048576 * (i % 100) + 0.5, 1000 * i + (i % 7) * 3,
          300 * i, (i % 17 == 0 ? "U" : sprintf("%.0f", 4096 * i)), 512 * i,
          536870912 + 4096 * (i % 91), (i % 9) * 1.25, (i % 5) * 0.5,
          (i % 3) * 2.5, (i % 7) * 0.25
      } }' | xargs -n 20 rrdtool update --daemon "$DAEMON" "$D/pve-vm-9.0/$vm"
  done
  awk -v t0="$SIM" -v n="$n" 'BEGIN {
    for (k = 1; k <= n; k++) {
      t = t0 + 60 * k; i = t / 60 % 1000000
      printf "%d:%.2f:8:%.3f:%.3f:67108864000:%.0f:8589934592:%.0f:100000000000:%.0f:%.0f:%.0f:%.0f:0:%.2f:%.2f:%.2f:%.2f:%.2f\n",
        t, (i % 10) / 4, (i % 8) / 8, (i % 5) / 100, 30000000000 + 1000 * (i % 97),
        4096 * (i % 3), 40000000000 + i % 89, 1200 * i, 800 * i,
        20000000000 - i % 83, (i % 4) * 2.5, (i % 6) * 0.5, (i % 2) * 0.25,
        (i % 3) * 1.5, (i % 7) * 0.05
    } }' | xargs -n 20 rrdtool update --daemon "$DAEMON" "$D/pve-node-9.0/pve1"
  local f
  for f in "${STALL_FILES[@]}"; do ship_stall_rows "$n" "$f"; done
  SIM=$((SIM + 60 * n))
}

# ship_stall_rows N PATH: the stall totals of N more rows, functions of the
# minute i (cpu some, cpu full, io some, io full, memory some, memory
# full): each row's rate is the growth over its 60 s.
ship_stall_rows() {
  awk -v t0="$SIM" -v n="$1" 'BEGIN {
    for (k = 1; k <= n; k++) {
      t = t0 + 60 * k; i = t / 60
      printf "%d:%.0f:%.0f:%.0f:%s:%.0f:0\n", t, 15000000 * i,
        60 * (1000 * i + 4000 * int(i / 3)), 60 * (7 * i + 11 * int(i / 5)),
        (i % 17 == 0 ? "U" : sprintf("%.0f", 180 * i)), 60 * 123457 * i
    } }' | xargs -n 20 rrdtool update --daemon "$DAEMON" "$2"
}

# ship_add_guest: VM 102 appears, with its configuration.
ship_add_guest() {
  ship_file pve-vm-9.0 "$D/pve-vm-9.0/102"
  printf 'name: late\nmemory: 1024\n' >"$C/nodes/pve1/qemu-server/102.conf"
  printf '102 qemu pve1 late\n' >>"$GUESTS"
  SHIP_VMS="$SHIP_VMS 102"
}

# ship_remove_guest VMID: its file and configuration go.
ship_remove_guest() {
  rrdtool forget --daemon "$DAEMON" "$D/pve-vm-9.0/$1" 2>/dev/null || true
  rm -f "$D/pve-vm-9.0/$1" "$C/nodes/pve1/qemu-server/$1.conf" \
    "$C/nodes/pve1/lxc/$1.conf"
  SHIP_VMS=$(echo " $SHIP_VMS " | sed "s/ $1 / /; s/^ //; s/ $//")
  grep -v "^$1 " "$GUESTS" >"$GUESTS.new" && mv "$GUESTS.new" "$GUESTS"
}

# ship_flush: every row the daemon holds into the files.
ship_flush() {
  rrdtool flushcached --daemon "$DAEMON" "$D"/pve-vm-9.0/* "$D"/pve-node-9.0/* \
    "${STALL_FILES[@]}"
}

# ship_expected FORM: what the store must hold of the files now there,
# from pvecg's own JSON rows (export_points.py states Proxmox's names).
ship_expected() {
  local args=() vm
  for vm in $SHIP_VMS; do args+=(--vmid "$vm"); done
  "$PVECG" export --format json --names pvecg "${args[@]}" --node pve1 \
    --data-dir "$D" >"$T/rows.json"
  "$EXPORT_POINTS" expect "$1" "$T/rows.json" "$GUESTS"
}

# ship_wait_caught_up STATE_DIR [SECONDS]: until the shipper's state
# says every row the files hold is acknowledged (lag 0) and it has
# acknowledged rows since the files last changed.
ship_wait_caught_up() {
  local dir=$1 limit=${2:-60} i
  for i in $(seq $((limit * 10))); do
    if "$PVECG" ship --status --prometheus --state-dir "$dir" 2>/dev/null |
      grep -q '^pvecg_ship_lag_seconds{.*} 0$'; then
      ship_cursors_at_end "$dir" && return 0
    fi
    sleep 0.1
  done
  fail "the shipper did not catch up in $limit s: $(cat "$dir"/*.state)"
}

# ship_wait_away STATE_DIR WHAT: up to 10 s for the shipper to find its
# target away (pvecg_ship_store_condition{condition="away"} 1), then
# --status must say so; WHAT names the target in the failure.
ship_wait_away() {
  local i
  for i in $(seq 100); do
    "$PVECG" ship --status --prometheus --state-dir "$1" |
      grep -q '^pvecg_ship_store_condition{.*condition="away".*} 1$' && break
    sleep 0.1
  done
  "$PVECG" ship --status --state-dir "$1" | grep -q 'store *away' ||
    fail "$2 not away in --status: $("$PVECG" ship --status --state-dir "$1")"
}

# ship_cursors_at_end STATE_DIR: every file's cursor is its newest row.
ship_cursors_at_end() {
  local f last cursor
  for f in "$D"/pve-vm-9.0/* "$D"/pve-node-9.0/* "${STALL_FILES[@]}"; do
    last=$(rrdtool lastupdate "$f" | awk 'NR == 3 { sub(":", "", $1); print $1 }')
    cursor=$(awk -v k="${f#"$D"/}" '$1 == "file" && $2 == k { print $6 }' "$1"/*.state)
    [ "$cursor" == "$((last / 60 * 60))" ] || return 1
  done
}

# ship_check_stall GOT SERIES: the VM's cpu some stall counter, as the
# store holds it (GOT, as export_points.py reads it), stated here on its
# own: 0 at the file's first known row (its second: a DERIVE's first
# update has no rate), then exactly 15 s more each minute, through every
# outage, kill and restart of the run (a counter that started again from 0
# or skipped rows would not be), up to the file's last row.
ship_check_stall() {
  local last
  last=$(rrdtool lastupdate "${STALL_FILES[0]}" | awk 'NR == 3 { sub(":", "", $1); print $1 }')
  awk -F'\t' -v s="$2" -v last="$last" '$1 == s {
      if (n++ == 0) { first = $2; if ($3 != 0) bad = "first " $3 }
      else if ($2 != t + 60 || $3 - v != 15) bad = bad " " t ":" v "->" $2 ":" $3
      t = $2; v = $3 }
    END { if (n < 100 || t != last || bad != "") {
      print n " points to " t " (last row " last "): " bad; exit 1 } }' "$1" ||
    fail "$2 is not 15 s a row from 0"
}
