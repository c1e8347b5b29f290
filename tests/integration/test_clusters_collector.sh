#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One collector for two clusters and a standalone host, as docs/central-collector.md
# "Several clusters on one collector" configures it (its central-clusters
# example, through rrdcached, Interval 1): pve1 of cluster prod, lab1 of
# cluster lab and the standalone host solo each run a guest 196 with other
# memory and pressure figures, sent with collectd's network plugin.  Each
# cluster's file holds exactly its own host's values: the newest row, and
# every row rrdcached was given for it (its journal), never another's.  The
# guest then migrates inside prod (pve1 stops, pve2 reports it): one info
# line, the same file goes on.  pvecg serve's /metrics and
# cluster/resources give each cluster's guest 196 (no /etc/pve here:
# guest/196) its own values, and rrddata asks which cluster is meant.  A
# host in no block is refused without StandaloneHosts (one line, no file),
# and what cannot be configured keeps collectd from starting, with one
# line saying why.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"
PVECG=${PVECG:?the built pvecg}

guest_196 "$T/node1" 1073741824 1.50
guest_196 "$T/node2" 3221225472 7.25
guest_196 "$T/node3" 2147483648 3.25
guest_196 "$T/node4" 4294967296 5.50
MEM1=$((1073741824 - 104857600))
MEM2=$((3221225472 - 104857600))
MEM3=$((2147483648 - 104857600))
MEM4=$((4294967296 - 104857600))

start_central 1 2 3 4
# the senders' host names: pve1 and pve2 of prod, lab1 of lab, solo
name_sender() { sed -i "s/^Hostname \"node$1\"\$/Hostname \"$2\"/" "$T/node$1.conf"; }
name_sender 1 pve1
name_sender 2 pve2
name_sender 3 lab1
name_sender 4 solo
printf 'node3: secret-of-node3\nnode4: secret-of-node4\n' >>"$T/passwd"

# the collector's conf with the documented cluster block for pve_rrd's,
# less any line matching $1 (a regex; "^$" keeps them all)
cluster_conf() {
  awk -v block="$(example_block central-clusters | example_paths collector | grep -v -- "$1")" '
    /^<Plugin pve_rrd>$/ { print block; skip = 1; next }
    skip && /^<\/Plugin>$/ { skip = 0; next }
    !skip { print }' "$T/central.conf"
}

echo "# what cannot be configured keeps collectd from starting"
stop_collectd_as collector
cp "$T/collector.conf" "$T/central.conf"
refused() { # refused DESCRIPTION SED LINE
  cluster_conf '^$' | sed "$2" >"$T/bad.conf"
  rm -f "$T/collector.log"
  rc=0
  timeout 20 "$COLLECTD" -f -C "$T/bad.conf" >"$T/bad.out" 2>&1 || rc=$?
  check "$1: collectd does not start" 1 "$rc"
  check "$1: one line says why" 1 "$(grep -cF "$3" "$T/collector.log")"
  check "$1: and no other pve_rrd line" 1 "$(grep -c 'pve_rrd plugin:' "$T/collector.log")"
}
refused "a host in two clusters" 's/Host "lab1" "lab2"/Host "lab1" "pve2"/' \
  'pve_rrd plugin: the host "pve2" is in both cluster "prod" and cluster "lab"; the configuration is refused.'
refused "a cluster named like a layout" 's/<Cluster "lab">/<Cluster "pve-node-9.0">/' \
  'pve_rrd plugin: the cluster name "pve-node-9.0" cannot be used: it is the name of a layout'"'"'s directory; the configuration is refused.'
refused "a host name that is no file name" 's/Host "lab1" "lab2"/Host "lab1" "..\/lab2"/' \
  'pve_rrd plugin: the host name "../lab2" of cluster "lab" cannot name a node'"'"'s file: the file name contains '"'/'"'; the configuration is refused.'
check "nothing was written" "" "$(ls "$DB" 2>/dev/null || true)"

echo "# without StandaloneHosts: solo is refused"
cluster_conf StandaloneHosts >"$T/collector.conf"
start_collectd_as collector "$T/collector.conf"
wait_for 10 test -S "$T/collector.sock"
start_collectd_as node4 "$T/node4.conf"
wait_for 20 grep -q 'rows of host "solo" are dropped' "$T/collector.log"
sleep 3
check "one line for solo" 1 "$(grep -c '"solo"' "$T/collector.log")"
check "naming the fix" 1 "$(grep -cF 'pve_rrd plugin: the rows of host "solo" are dropped: it is in no <Cluster> block. Add Host "solo" to its cluster'"'"'s block, or set StandaloneHosts true to give every unlisted host a cluster of its own.' "$T/collector.log")"
check "nothing written for solo" "" "$(ls "$DB" 2>/dev/null || true)"
stop_collectd_as node4
stop_collectd_as collector
mv "$T/collector.log" "$T/collector-refusing.log"

echo "# prod, lab and solo each report a guest 196"
cluster_conf '^$' >"$T/collector.conf"
start_collectd_as collector "$T/collector.conf"
wait_for 10 test -S "$T/collector.sock"
check "the collector keeps clusters apart" 1 \
  "$(grep -c "writing RRD files below $DB, each cluster in a directory of its own through rrdcached" "$T/collector.log")"
start_collectd_as node1 "$T/node1.conf"
start_collectd_as node3 "$T/node3.conf"
start_collectd_as node4 "$T/node4.conf"
for c in prod lab solo; do wait_for 20 test -f "$DB/$c/pve-vm-9.0/196"; done
sleep 4
flush() {
  check "collector FLUSH" "0 Done: 1 successful, 0 errors" \
    "$(unixsock "$T/collector.sock" 'FLUSH plugin=pve_rrd')"
}
flush
check "one directory per cluster, and the owners' file and lock" \
  "lab prod pvecg-owners pvecg-owners.lock solo" "$(ls "$DB" | xargs)"
check "prod's guest 196: pve1's memhost" "$MEM1" "$(rrd_last "$DB/prod/pve-vm-9.0/196" memhost)"
check "lab's guest 196: lab1's memhost" "$MEM3" "$(rrd_last "$DB/lab/pve-vm-9.0/196" memhost)"
check "solo's guest 196: solo's memhost" "$MEM4" "$(rrd_last "$DB/solo/pve-vm-9.0/196" memhost)"
check "prod's guest 196: pve1's pressurecpusome" 1.5 "$(rrd_last "$DB/prod/pve-vm-9.0/196" pressurecpusome)"
check "lab's guest 196: lab1's pressurecpusome" 3.25 "$(rrd_last "$DB/lab/pve-vm-9.0/196" pressurecpusome)"
check "solo's guest 196: solo's pressurecpusome" 5.5 "$(rrd_last "$DB/solo/pve-vm-9.0/196" pressurecpusome)"
check "the nodes' files in their clusters" "lab/pve-node-9.0/lab1 prod/pve-node-9.0/pve1 solo/pve-node-9.0/solo" \
  "$(cd "$DB" && ls prod/pve-node-9.0/* lab/pve-node-9.0/* solo/pve-node-9.0/* | xargs)"
check "no line about guest 196" 0 "$(grep -c 'guest 196' "$T/collector.log" || true)"
inode=$(stat -c %i "$DB/prod/pve-vm-9.0/196")

echo "# guest 196 migrates from pve1 to pve2, inside prod"
stop_collectd_as node1
start_collectd_as node2 "$T/node2.conf"
wait_for 20 grep -q 'guest 196 of cluster prod now reported by' "$T/collector.log"
sleep 3
flush
check "one info line for the migration" 1 \
  "$(grep -cF 'pve_rrd plugin: guest 196 of cluster prod now reported by pve2, was pve1.' "$T/collector.log")"
check "prod's guest 196 goes on with pve2's memhost" "$MEM2" "$(rrd_last "$DB/prod/pve-vm-9.0/196" memhost)"
check "the same file" "$inode" "$(stat -c %i "$DB/prod/pve-vm-9.0/196")"
check "lab's guest 196 untouched" "$MEM3" "$(rrd_last "$DB/lab/pve-vm-9.0/196" memhost)"

echo "# pvecg serve lists all three, each with its own values"
port=$(free_port)
"$PVECG" serve --listen "127.0.0.1:$port" --data-dir "$DB" --pve-config-dir "" \
  >"$T/serve.log" 2>&1 &
echo $! >"$T/serve.pid"
at_exit 'kill "$(cat "$T/serve.pid")" 2>/dev/null || true'
wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$port/metrics"
metrics=$(curl -sf "http://127.0.0.1:$port/metrics")
memhost() { # memhost CLUSTER: the value of its guest 196's series
  awk -v want="pve_memory_host_bytes{id=\"guest/196\",cluster=\"$1\"}" \
    '$1 == want { print $2 }' <<<"$metrics"
}
check "/metrics: prod's guest 196 is pve2's" "$MEM2" "$(memhost prod)"
check "/metrics: lab's guest 196 is lab1's" "$MEM3" "$(memhost lab)"
check "/metrics: solo's guest 196 is solo's" "$MEM4" "$(memhost solo)"
check "/metrics: three series of guest 196's memhost, none without a cluster" 3 \
  "$(grep -c '^pve_memory_host_bytes{id="guest/196"' <<<"$metrics")"
check "/metrics: each up" 'cluster="lab" 1
cluster="prod" 1
cluster="solo" 1' \
  "$(grep '^pve_up{id="guest/196"' <<<"$metrics" | sed -E 's/.*,(cluster="[a-z]+")} /\1 /' | sort)"
resources=$(curl -sf "http://127.0.0.1:$port/api2/json/cluster/resources")
check "cluster/resources: guest 196 once per cluster" "lab prod solo" \
  "$(/usr/bin/python3 -c '
import json, sys
data = json.load(sys.stdin)["data"]
print(" ".join(sorted(e["cluster"] for e in data if e.get("vmid") == 196)))' <<<"$resources")"
check "rrddata without a cluster: a 400 naming the three" \
  '400 {"data":null,"message":"guest 196 has files in several clusters (lab, prod, solo): name one with the parameter cluster"}' \
  "$(curl -s -w '%{http_code} ' -o "$T/rrddata.json" "http://127.0.0.1:$port/api2/json/nodes/pve2/qemu/196/rrddata?timeframe=hour"; cat "$T/rrddata.json")"
check "rrddata of lab's guest 196: lab's file" 200 \
  "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api2/json/nodes/lab1/qemu/196/rrddata?timeframe=hour&cluster=lab")"
kill "$(cat "$T/serve.pid")"

for n in node2 node3 node4 collector; do stop_collectd_as $n; done
stop_rrdcached "$EX_DAEMON"
# Every update rrdcached was given for each file (the journal; a row of
# U only creates the file): exactly its hosts' values, in that order.
journal_values() { # journal_values FILE: memhost and pressurecpusome, unique runs
  cat "$EX_DAEMON"/journal/rrd.journal.* |
    awk -v p="$1" '$1 == "update" && $2 == p && $3 !~ /^[0-9]+(:U)+$/ {
      split($3, f, ":"); print f[12], f[13] }' | uniq
}
check "prod's file was given pve1's rows, then pve2's" "$MEM1 1.5
$MEM2 7.25" "$(journal_values "$DB/prod/pve-vm-9.0/196")"
check "lab's file was given lab1's rows only" "$MEM3 3.25" "$(journal_values "$DB/lab/pve-vm-9.0/196")"
check "solo's file was given solo's rows only" "$MEM4 5.5" "$(journal_values "$DB/solo/pve-vm-9.0/196")"

check "no other errors or warnings on the collector" "" \
  "$(grep -iE 'error|fail|warn|dropped' "$T/collector.log" |
    grep -vE 'it is not newer than the file.s last update' || true)"
check "no errors on the nodes" "" "$(grep -ihE 'error|fail' "$T"/node[1-4].log || true)"
cp "$T/collector.log" "$T/collectd.log" # for finish's report
finish
