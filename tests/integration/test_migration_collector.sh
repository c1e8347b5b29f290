#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A live migration inside one cluster, seen by the packaged central
# collector (no <Cluster> block) on loopback, Interval 1, through
# rrdcached.  Nodes nodea and nodeb share one configuration tree as pmxcfs
# presents it: each node's qemu-server and lxc link to nodes/<node>/, and
# .version's "vmlist" counts the changes of the guest list.
# - Guest 196's configuration is on nodea.  nodeb's incoming QEMU (its own
#   scope, other values) exists for over a minute: sixty intervals, as ten
#   minutes are at Interval 10.  nodeb does not report it: the file is
#   nodea's, no collision is said, nothing is remembered as colliding.
# - The configuration moves to nodeb (a migration's end) and nodea's scope
#   goes: the same file goes on with nodeb's values.
# The file's whole minutes are nodea's, then at most one blend at the move,
# then nodeb's; every row rrdcached was given is nodea's, then nodeb's,
# never back, and nodeb's only after the move.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"
: "${PVECG:?}"

guest_196 "$T/node1" 1073741824 1.50
guest_196 "$T/node2" 536870912 7.25
A_MEM=$((1073741824 - 104857600))
B_MEM=$((536870912 - 104857600))

# The cluster's tree and each node's view of it.
PVE=$T/pve
for h in a b; do mkdir -p "$PVE/nodes/node$h/qemu-server" "$PVE/nodes/node$h/lxc"; done
printf 'memory: 4096\nname: big\n' >"$PVE/nodes/nodea/qemu-server/196.conf"
for n in 1 2; do
  h=$(echo "a b" | cut -d' ' -f$n)
  mkdir -p "$T/view$n"
  ln -s "$PVE/nodes" "$T/view$n/nodes"
  ln -s "$PVE/nodes/node$h/qemu-server" "$T/view$n/qemu-server"
  ln -s "$PVE/nodes/node$h/lxc" "$T/view$n/lxc"
done
vmlist() { # vmlist N: the guest list's counter, on every node
  local n
  for n in 1 2; do
    printf '{\n"starttime": 1764934800,\n"clinfo": 2,\n"vmlist": %s,\n}\n' "$1" >"$T/view$n/.version"
  done
}
vmlist 1

start_central 1 2
for n in 1 2; do
  h=$(echo "a b" | cut -d' ' -f$n)
  sed -i "s/^Hostname \"node$n\"\$/Hostname \"node$h\"/" "$T/node$n.conf"
  printf '<Plugin pve_cgroup>\n  PveConfigDir "%s"\n</Plugin>\n' "$T/view$n" >>"$T/node$n.conf"
done
F=$DB/pve-vm-9.0/196
flush() {
  check "collector FLUSH" "0 Done: 1 successful, 0 errors" \
    "$(unixsock "$T/collector.sock" 'FLUSH plugin=pve_rrd')"
}
# minutes: the file's whole minutes of memhost, "time value", oldest first;
# rrdtool names a minute by its end
minutes() {
  rrdtool fetch --daemon "unix:$EX_DAEMON/sock" "$F" AVERAGE -r 60 -s -900 |
    awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "memhost") col = i + 1 }
      NR > 2 && $col != "-nan" && $col != "nan" { sub(":", "", $1); print $1, $col + 0 }'
}
# wait_until EPOCH
wait_until() { local d=$(($1 - $(date +%s))); [ "$d" -le 0 ] || sleep "$d"; }

echo "# guest 196 runs on nodea; nodeb's incoming QEMU exists too"
start_collectd_as node1 "$T/node1.conf"
wait_for 20 test -f "$F"
began=$(date +%s)
start_collectd_as node2 "$T/node2.conf"
wait_for 20 test -f "$DB/pve-node-9.0/nodeb"
check "nodeb says which guests it reports" 1 \
  "$(grep -cF "pve_cgroup plugin: reporting the guests whose configuration is on this node ($T/view2/qemu-server and $T/view2/lxc), as pvestatd does." "$T/node2.log")"
# a whole minute of nodea's, then two seconds into the next
first_minute=$(((began / 60 + 1) * 60))
wait_until $((first_minute + 62))
flush
overlap=$(($(date +%s) - began))
check_true "the incoming QEMU overlapped for over sixty intervals ($overlap s)" test "$overlap" -ge 60
check "nothing said of guest 196 while it was nodea's" 0 "$(grep -c 'guest 196' "$T/collector.log" || true)"
check "the collector has no row of nodeb's guest 196" 0 \
  "$(unixsock "$T/collector.sock" LISTVAL | grep -c ' nodeb/pve_cgroup-196/' || true)"
check "the newest row is nodea's" "$A_MEM" "$(rrd_last "$F" memhost)"
check "pvecg check --owners: nodea owns it, nobody collided" \
  "pve-vm-9.0/196: owner nodea" "$("$PVECG" check --owners --data-dir "$DB")"

echo "# the migration ends: the configuration moves to nodeb, nodea's QEMU goes"
mv "$PVE/nodes/nodea/qemu-server/196.conf" "$PVE/nodes/nodeb/qemu-server/"
vmlist 2
moved=$(date +%s)
rm -r "$T/node1/qemu.slice/196.scope"
wait_for 20 grep -q 'guest 196 now reported by nodeb, was nodea' "$T/collector.log"
taken=$(($(date +%s) - moved))
check_true "nodeb's rows are written within 10 s of the move ($taken s)" test "$taken" -le 10
# the minute after the move's, whole
wait_until $(((moved / 60 + 2) * 60 + 3))
flush
check "the newest row is nodeb's: memhost" "$B_MEM" "$(rrd_last "$F" memhost)"
check "the newest row is nodeb's: pressurecpusome" 7.25 "$(rrd_last "$F" pressurecpusome)"
check "the newest row has the configuration's maxmem" 4294967296 "$(rrd_last "$F" maxmem)"
echo "# the file's whole minutes"
minutes | sed 's/^/  /'
check "nodea's minutes, at most one blend at the move, then nodeb's" "A B" \
  "$(minutes | awk -v a="$A_MEM" -v b="$B_MEM" -v m="$moved" '
      { t = $1; v = $2
        k = (v == a) ? "A" : (v == b) ? "B" : (t - 60 < m && m <= t) ? "" : "?"
        if (k != "" && k != last) { printf "%s%s", sep, k; sep = " "; last = k } }')"
check "one info line for the handover" 1 \
  "$(grep -cF 'pve_rrd plugin: guest 196 now reported by nodeb, was nodea.' "$T/collector.log")"
check "pvecg check --owners: nodeb owns it, nobody collided" \
  "pve-vm-9.0/196: owner nodeb" "$("$PVECG" check --owners --data-dir "$DB")"

stop_collectd_as node1
stop_collectd_as node2
stop_collectd_as collector
stop_rrdcached "$EX_DAEMON"
echo "# every row rrdcached was given for guest 196"
rows=$(cat "$EX_DAEMON"/journal/rrd.journal.* |
  awk -v p="$F" '$1 == "update" && $2 == p && $3 !~ /^[0-9]+(:U)+$/ {
    split($3, f, ":"); print f[1], f[12] }')
check "nodea's rows, then nodeb's: nothing else, never back" "$A_MEM
$B_MEM" "$(awk '{ print $2 }' <<<"$rows" | uniq)"
check "nodeb's rows only after the move" "" \
  "$(awk -v b="$B_MEM" -v m="$moved" '$2 == b && $1 < m - 1' <<<"$rows")"
check "no errors or warnings on the collector" "" \
  "$(grep -iE 'error|fail|warn|collid|both' "$T/collector.log" || true)"
check "no errors or warnings on the nodes" "" "$(grep -ihE 'error|fail|warn' "$T"/node[12].log || true)"
cp "$T/collector.log" "$T/collectd.log" # for finish's report
finish
