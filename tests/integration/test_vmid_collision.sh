#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two hosts that share a VMID, sending to the central collector of
# docs/central-collector.md on loopback (Interval 1, through rrdcached): nodea
# and nodeb each run a guest 196 with other memory and pressure figures.
# - The file stays with nodea, which reported the guest first: one error
#   line names the guest, both hosts and when it began; the owner and the
#   collision are in <DataDir>/pvecg-owners and `pvecg check --owners`.
# - The collector is killed (kill -9) mid-collision and started again
#   while both keep sending: nodea still owns the file.
# - nodea goes quiet for three times its window: nodeb, seen colliding,
#   does not take the file over.
# - nodec, never seen colliding, then reports the guest (a migration from
#   nodea): one info line, and the same file goes on with nodec's values.
# - nodec stops and the operator hands the file to nodeb with
#   `pvecg check --owners --give` under the running collectd: nodeb's
#   values follow, and nothing of nodeb's came before.
# Every row rrdcached was given for the guest is read back from its
# journal (nodea's, nodec's, nodeb's, never back), and the file's whole
# minutes before the --give with `rrdtool fetch`: none holds anything of
# nodeb's (its memory is below both others', so any share of it shows).
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"
: "${PVECG:?}"

guest_196 "$T/node1" 1073741824 1.50
guest_196 "$T/node2" 536870912 7.25
guest_196 "$T/node3" 2147483648 3.50
A_MEM=$((1073741824 - 104857600))
B_MEM=$((536870912 - 104857600))
C_MEM=$((2147483648 - 104857600))

start_central 1 2 3
echo "node3: secret-of-node3" >>"$T/passwd"
# the senders' host names; their users in the AuthFile stay node1..node3
for n in 1 2 3; do
  h=$(echo "a b c" | cut -d' ' -f$n)
  sed -i "s/^Hostname \"node$n\"\$/Hostname \"node$h\"/" "$T/node$n.conf"
done
check "the senders are nodea, nodeb and nodec" 3 \
  "$(cat "$T"/node[123].conf | grep -cE '^Hostname "node[abc]"$')"
F=$DB/pve-vm-9.0/196
OWNERS=$DB/pvecg-owners
flush() {
  check "collector FLUSH" "0 Done: 1 successful, 0 errors" \
    "$(unixsock "$T/collector.sock" 'FLUSH plugin=pve_rrd')"
}
start_collector() {
  start_collectd_as collector "$T/collector.conf"
  wait_for 10 test -S "$T/collector.sock"
}

echo "# nodea reports guest 196 first, then nodeb too"
start_collectd_as node1 "$T/node1.conf"
wait_for 20 test -f "$F"
sleep 2
b_began=$(date +%s)
start_collectd_as node2 "$T/node2.conf"
wait_for 20 test -f "$DB/pve-node-9.0/nodeb"
b_seen=$(date +%s) # nodeb's first rows have reached the collector
# told once both have reported the guest for longer than 5 intervals
wait_for 20 grep -q 'guest 196 is reported by both' "$T/collector.log"
sleep 3 # more rows of both: no more lines
flush
since=$(grep -o 'reported by both nodea and nodeb (since [^)]*)' "$T/collector.log" |
  head -1 | sed 's/.*(since \(.*\))$/\1/')
since_s=$(date -u -d "${since% UTC}" +%s)
check_true "the collision began when nodeb's first rows came" \
  test "$since_s" -ge $((b_began - 1)) -a "$since_s" -le $((b_seen + 1))
COLLISION="pve_rrd plugin: guest 196 is reported by both nodea and nodeb (since $since): its file $F stays with nodea, and the rows from nodeb are dropped, also once nodea stops reporting it (logged again hourly while they come). If nodea and nodeb are in different clusters or are standalone hosts that share VMIDs, put each cluster's hosts in a <Cluster> block of pve_rrd's configuration (Host \"nodea\" in one, Host \"nodeb\" in another, or StandaloneHosts true for hosts of their own; see \"Cluster\" in collectd-pve_rrd(5)). \"pvecg check --owners --data-dir $DB --give pve-vm-9.0/196 nodeb\" hands the file to nodeb, \"pvecg check --owners --data-dir $DB --forget pve-vm-9.0/196\" forgets the collision."
check "one error line for guest 196, naming both hosts" 1 \
  "$(grep -cF "$COLLISION" "$T/collector.log")"
check "no other line about guest 196" 1 "$(grep -c 'guest 196' "$T/collector.log")"
check "the newest row is nodea's: memhost" "$A_MEM" "$(rrd_last "$F" memhost)"
check "the newest row is nodea's: pressurecpusome" 1.5 "$(rrd_last "$F" pressurecpusome)"
wait_for 5 grep -q '^collision ' "$OWNERS"
check "the owners file" "pvecg-owners 2
owner pve-vm-9.0 . 196 1 nodea
collision pve-vm-9.0 . 196 $since_s nodeb
end 2" "$(cat "$OWNERS")"
rc=0
listing=$("$PVECG" check --owners --data-dir "$DB") || rc=$?
check "pvecg check --owners" "pve-vm-9.0/196: owner nodea; nodeb seen colliding since $since" "$listing"
check "exit status 1 while a host is seen colliding" 1 "$rc"
inode=$(stat -c %i "$F")

echo "# the collector is killed and started again; both keep sending"
kill -KILL "$(cat "$T/collector.pid")"
wait "$(cat "$T/collector.pid")" 2>/dev/null || true
rm -f "$T/collector.pid" "$T/collector.sock"
sleep 2
start_collector
wait_for 20 grep -q 'Read back the owners' "$T/collector.log"
check "the owners read back" 1 \
  "$(grep -cF "pve_rrd plugin: Read back the owners of 1 guests' files and 1 hosts seen colliding from $OWNERS." "$T/collector.log")"
sleep 8 # longer than a window: a guess anew would have been made by now
flush
check "after the restart the newest row is nodea's" "$A_MEM" "$(rrd_last "$F" memhost)"
check "the collision said once more after the restart" 2 \
  "$(grep -cF "$COLLISION" "$T/collector.log")"

echo "# nodea goes quiet: nodeb, seen colliding, does not take the file"
stop_collectd_as node1
flush
a_last=$(rrd_last_time "$F")
sleep 16 # over three windows of nodea's
flush
check "no migration to nodeb" 0 "$(grep -c 'now reported by' "$T/collector.log")"
check "the file's newest row is still nodea's last" "$a_last" "$(rrd_last_time "$F")"
check "the newest row is nodea's" "$A_MEM" "$(rrd_last "$F" memhost)"

echo "# nodec, never seen colliding, reports the guest: a migration"
start_collectd_as node3 "$T/node3.conf"
wait_for 20 grep -q 'guest 196 now reported by' "$T/collector.log"
sleep 3
flush
COLLISION_C=$(sed 's/nodea/nodec/g' <<<"$COLLISION")
check "nodeb's rows told once to the new owner" 1 \
  "$(grep -cF "$COLLISION_C" "$T/collector.log")"
check "one info line for the migration" 1 \
  "$(grep -cF 'pve_rrd plugin: guest 196 now reported by nodec, was nodea.' "$T/collector.log")"
check "the newest row is nodec's: memhost" "$C_MEM" "$(rrd_last "$F" memhost)"
check "the newest row is nodec's: pressurecpusome" 3.5 "$(rrd_last "$F" pressurecpusome)"
check "the same file goes on" "$inode" "$(stat -c %i "$F")"
wait_for 5 grep -q '^owner pve-vm-9.0 . 196 [0-9.]* nodec$' "$OWNERS"

# every whole minute so far is nodea's or nodec's (their mix at the
# migration), never with anything of nodeb's: it would pull below A_MEM
minutes() {
  rrdtool fetch --daemon "unix:$EX_DAEMON/sock" "$F" AVERAGE -r 60 -s -600 |
    awk -v col_name=memhost 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col_name) col = i + 1 }
      NR > 2 && $col != "-nan" && $col != "nan" { print $1, $col }'
}
wait_for 130 sh -c "[ -n \"\$(rrdtool fetch --daemon 'unix:$EX_DAEMON/sock' '$F' AVERAGE -r 60 -s -600 | awk 'NR > 2 && \$12 != \"-nan\" && \$12 != \"nan\"')\" ]"
check_true "the file has whole minutes to compare" test -n "$(minutes)"
check "no minute holds any of nodeb's values" "" \
  "$(minutes | awk -v a="$A_MEM" -v c="$C_MEM" '$2 + 0 < a - 1e-3 || $2 + 0 > c + 1e-3')"

echo "# nodec stops; the operator hands the file to nodeb"
stop_collectd_as node3
flush
gave=$(date +%s)
check "pvecg check --owners --give under the running collectd" \
  "saved; a running pve_rrd follows within seconds
pve-vm-9.0/196: owner nodeb" \
  "$("$PVECG" check --owners --data-dir "$DB" --give pve-vm-9.0/196 nodeb)"
wait_for 10 grep -qF 'Took the edit of' "$T/collector.log"
check "one line for it, once the running pve_rrd took it" 1 \
  "$(grep -cF "pve_rrd plugin: Took the edit of $DB/pvecg-owners (pvecg check --owners): now 1 guests' files have an owner and 0 hosts are seen colliding." "$T/collector.log")"
sleep 3
flush
check "the newest row is nodeb's: memhost" "$B_MEM" "$(rrd_last "$F" memhost)"
check "the newest row is nodeb's: pressurecpusome" 7.25 "$(rrd_last "$F" pressurecpusome)"
check "pvecg check --owners: no collision left" \
  "pve-vm-9.0/196: owner nodeb" "$("$PVECG" check --owners --data-dir "$DB")"

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
check "nodea's rows, then nodec's, then nodeb's: nothing else, never back" \
  "$A_MEM 1.5
$C_MEM 3.5
$B_MEM 7.25" "$(awk '{ print $2, $3 }' <<<"$rows" | uniq)"
check "in time order" "$(awk '{ print $1 }' <<<"$rows" | sort -n)" "$(awk '{ print $1 }' <<<"$rows")"
check_true "nodea's rows span the time nodeb was refused (at least 15 s)" \
  test "$(awk -v a="$A_MEM" '$2 == a' <<<"$rows" | wc -l)" -ge 15
check "nodeb's rows only after the --give" "" \
  "$(awk -v b="$B_MEM" -v g="$gave" '$2 == b && $1 < g - 1' <<<"$rows")"

# A loaded sender may send two of its own rows out of order (see
# start_central): the older is dropped as not newer, a line this test does
# not count on; the journal above is what shows nodeb's rows never came.
check "no other errors or warnings on the collector" "" \
  "$(grep -iE 'error|fail|warn|dropped' "$T/collector.log" | grep -vF -e "$COLLISION" -e "$COLLISION_C" |
    grep -vE 'it is not newer than the file.s last update' || true)"
check "no errors on the nodes" "" "$(grep -ihE 'error|fail' "$T"/node[123].log || true)"
cp "$T/collector.log" "$T/collectd.log" # for finish's report
finish
