#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two hosts that share a VMID, sending to the central collector of
# docs/deployment.md on loopback (Interval 1, through rrdcached): nodea
# and nodeb each run a guest 196 with other memory and pressure figures.
# The file stays with nodea, which reported the guest first: one error line
# names the guest and both hosts, nodeb's rows never reach the file, and
# what it holds is exactly nodea's values, never a blend.  Then nodea stops
# (a migration): five intervals later one info line, and the same file
# goes on with nodeb's values.  Every row rrdcached was given for the
# guest is read back from its journal: nodea's, then nodeb's.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"

# guest_196 ROOT CURRENT CPU_SOME: a fixture tree with QEMU guest 196 only.
guest_196() {
  mkdir -p "$1"
  qemu_guest "$1" 196 "$3" 0.75 2.25 1.00 0.50 0.25
  v2_memory "$1/qemu.slice/196.scope" "$2" 104857600
}
guest_196 "$T/node1" 1073741824 1.50
guest_196 "$T/node2" 3221225472 7.25
A_MEM=$((1073741824 - 104857600))
B_MEM=$((3221225472 - 104857600))

start_central 1 2
# the senders' host names; their users in the AuthFile stay node1, node2
sed -i 's/^Hostname "node1"$/Hostname "nodea"/' "$T/node1.conf"
sed -i 's/^Hostname "node2"$/Hostname "nodeb"/' "$T/node2.conf"
check "the senders are nodea and nodeb" 2 \
  "$(cat "$T/node1.conf" "$T/node2.conf" | grep -cE '^Hostname "node[ab]"$')"
F=$DB/pve-vm-9.0/196
flush() {
  check "collector FLUSH" "0 Done: 1 successful, 0 errors" \
    "$(unixsock "$T/collector.sock" 'FLUSH plugin=pve_rrd')"
}

echo "# nodea reports guest 196 first, then nodeb too"
start_collectd_as node1 "$T/node1.conf"
wait_for 20 test -f "$F"
sleep 2
start_collectd_as node2 "$T/node2.conf"
wait_for 20 test -f "$DB/pve-node-9.0/nodeb"
# told once both have reported the guest for longer than 5 intervals
wait_for 20 grep -q 'guest 196 is reported by both' "$T/collector.log"
sleep 3 # more rows of both: no more lines
flush
COLLISION="pve_rrd plugin: guest 196 is reported by both nodea and nodeb: its file $F stays with nodea, and the rows from nodeb are dropped. If nodea and nodeb are in different clusters or are standalone hosts that share VMIDs, put each cluster's hosts in a <Cluster> block of pve_rrd's configuration (Host \"nodea\" in one, Host \"nodeb\" in another, or StandaloneHosts true for hosts of their own); inside one cluster this is a live migration that took longer than 5 s, and nodeb takes over once nodea stops reporting the guest."
check "one error line for guest 196, naming both hosts" 1 \
  "$(grep -cF "$COLLISION" "$T/collector.log")"
check "no other line about guest 196" 1 "$(grep -c 'guest 196' "$T/collector.log")"
check "the newest row is nodea's: memhost" "$A_MEM" "$(rrd_last "$F" memhost)"
check "the newest row is nodea's: pressurecpusome" 1.5 "$(rrd_last "$F" pressurecpusome)"
# every consolidated row so far (if a minute has passed) is nodea's alone
blend=$(rrdtool fetch "$F" AVERAGE -r 60 -s -300 | awk -v a="$(printf '%.10e' "$A_MEM")" '
  NR == 1 { for (i = 1; i <= NF; i++) if ($i == "memhost") c = i + 1 }
  NR > 2 && $c != "-nan" && $c != "nan" && $c != a { print $1, $c }')
check "no archived row other than nodea's" "" "$blend"
inode=$(stat -c %i "$F")

echo "# nodea stops: nodeb takes guest 196 over"
stop_collectd_as node1
wait_for 20 grep -q 'guest 196 now reported by' "$T/collector.log"
sleep 3
flush
check "one info line for the migration" 1 \
  "$(grep -cF 'pve_rrd plugin: guest 196 now reported by nodeb, was nodea.' "$T/collector.log")"
check "the newest row is nodeb's: memhost" "$B_MEM" "$(rrd_last "$F" memhost)"
check "the newest row is nodeb's: pressurecpusome" 7.25 "$(rrd_last "$F" pressurecpusome)"
check "the same file goes on" "$inode" "$(stat -c %i "$F")"

stop_collectd_as node2
stop_collectd_as collector
stop_rrdcached "$EX_DAEMON"
# The journal lists every update the daemon was given, those it refused as
# not newer too: a row of nodeb's that reached it, even one refused, would
# be there.  (The daemon also journals a row of U only for the new file.)
echo "# every row rrdcached was given for guest 196"
rows=$(cat "$EX_DAEMON"/journal/rrd.journal.* |
  awk -v p="$F" '$1 == "update" && $2 == p && $3 !~ /^[0-9]+(:U)+$/ {
    split($3, f, ":"); print f[1], f[12], f[13] }')
check "nodea's rows, then nodeb's: nothing else, never back" \
  "$A_MEM 1.5
$B_MEM 7.25" "$(awk '{ print $2, $3 }' <<<"$rows" | uniq)"
check "in time order" "$(awk '{ print $1 }' <<<"$rows" | sort -n)" "$(awk '{ print $1 }' <<<"$rows")"
check_true "nodea's rows span the time nodeb was refused (at least 8 s)" \
  test "$(awk -v a="$A_MEM" '$2 == a' <<<"$rows" | wc -l)" -ge 8

# A loaded sender may send two of its own rows out of order (see
# start_central): the older is dropped as not newer, a line this test does
# not count on; the journal above is what shows nodeb's rows never came.
check "no other errors or warnings on the collector" "" \
  "$(grep -iE 'error|fail|warn|dropped' "$T/collector.log" | grep -vF "$COLLISION" |
    grep -vE 'it is not newer than the file.s last update' || true)"
check "no errors on the nodes" "" "$(grep -ihE 'error|fail' "$T/node1.log" "$T/node2.log" || true)"
cp "$T/collector.log" "$T/collectd.log" # for finish's report
finish
