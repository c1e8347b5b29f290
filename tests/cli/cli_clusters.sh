#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The readers on a collector's data directory with several clusters
# (cluster_fixture.sh: "", lab, prod and solo, each with its own guest 196
# and a node, pve1 in both lab and prod), into the real stores of Debian's
# packages (receivers.sh), each started once:
#   - check --all names each file's cluster; rrddata --cluster reads each
#     cluster's 196, without --cluster the data directory's own, a node of
#     one cluster found there, a node of two refused naming both (rrddata,
#     graph, export); graph --cluster; JSON's cluster field, --all
#     --cluster;
#   - export --all to InfluxDB 1.x (tag cluster), carbon (the path level
#     after the prefix) and VictoriaMetrics (/write: a cluster label; the
#     Prometheus import: cluster="..."): every point exact, the ""
#     cluster's points without any cluster;
#   - ship to VictoriaMetrics: a state written before the clusters existed
#     is read as before (the data directory's own file keeps its cursor
#     "pve-vm-9.0/196" and is not sent again), the clusters that appear
#     are shipped on the next pass under "<cluster>/<layout>/<name>", and
#     --status names them.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${EXPORT_POINTS:?}"

. "$(dirname "$0")/receivers.sh" # T, fail, the stores
. "$(dirname "$0")/cluster_fixture.sh"

# ---- without a store -------------------------------------------------------
"$PVECG" check --all --data-dir "$D" >"$T/out" || fail "check --all"
cat >"$T/expected" <<EOF2
$D/pve-vm-9.0/196: pve-vm-9.0
$D/pve-node-9.0/host0: pve-node-9.0
cluster lab: $D/lab/pve-vm-9.0/196: pve-vm-9.0
cluster lab: $D/lab/pve-node-9.0/pve1: pve-node-9.0
cluster prod: $D/prod/pve-vm-9.0/196: pve-vm-9.0
cluster prod: $D/prod/pve-node-9.0/pve1: pve-node-9.0
cluster solo: $D/solo/pve-vm-9.0/196: pve-vm-9.0
cluster solo: $D/solo/pve-node-9.0/solo: pve-node-9.0
EOF2
diff -u "$T/expected" "$T/out" || fail "check --all"

# rrddata: the hour's row at T1+60 of each cluster's 196 (cpu k/8).
rrddata_cpu() { # EXPECTED OPTIONS...
  local want=$1
  shift
  "$PVECG" rrddata --timeframe hour --now $((T1 + 600)) --data-dir "$D" "$@" \
    >"$T/rrddata" 2>"$T/err" || fail "rrddata $*: $(cat "$T/err")"
  [ "$(jq -c ".data[] | select(.time == $((T1 + 60))) | [.cpu, .maxcpu]" "$T/rrddata")" == "$want" ] ||
    fail "rrddata $*: $(jq -c ".data[] | select(.time == $((T1 + 60)))" "$T/rrddata")"
}
rrddata_cpu '[0.125,1]' --vmid 196
rrddata_cpu '[0.25,2]' --vmid 196 --cluster lab
rrddata_cpu '[0.375,3]' --vmid 196 --cluster prod
rrddata_cpu '[0.5,4]' --vmid 196 --cluster solo
"$PVECG" rrddata --timeframe hour --now $((T1 + 600)) --data-dir "$D" --node solo \
  >"$T/rrddata" || fail "rrddata --node solo"
[ "$(jq -c ".data[] | select(.time == $T1) | .loadavg" "$T/rrddata")" == 4.5 ] ||
  fail "rrddata --node solo: not solo's node"
set +e
"$PVECG" rrddata --timeframe hour --data-dir "$D" --node pve1 >/dev/null 2>"$T/err"
rc=$?
"$PVECG" export --format json --node pve1 --data-dir "$D" >/dev/null 2>"$T/err2"
rc2=$?
set -e
[ $rc -eq 2 ] && [ $rc2 -eq 2 ] || fail "a node of two clusters: exit $rc, $rc2"
[ "$(cat "$T/err")" == "pvecg rrddata: node pve1 is in the clusters lab, prod: say which with --cluster" ] ||
  fail "rrddata --node pve1: $(cat "$T/err")"
[ "$(cat "$T/err2")" == "pvecg export: node pve1 is in the clusters lab, prod: say which with --cluster" ] ||
  fail "export --node pve1: $(cat "$T/err2")"

# graph takes the same rule and --cluster.
"$PVECG" graph --what cpu --out "$T/prod.png" --timeframe hour --now $((T1 + 600)) \
  --data-dir "$D" --vmid 196 --cluster prod 2>"$T/err" || fail "graph --cluster: $(cat "$T/err")"
[ "$(head -c 4 "$T/prod.png" | tail -c 3)" == PNG ] || fail "graph --cluster: no PNG"
set +e
"$PVECG" graph --what cpu --out "$T/pve1.png" --timeframe hour --data-dir "$D" \
  --node pve1 2>"$T/err"
rc=$?
set -e
[ $rc -eq 2 ] && [ "$(cat "$T/err")" == "pvecg graph: node pve1 is in the clusters lab, prod: say which with --cluster" ] ||
  fail "graph --node pve1: exit $rc, $(cat "$T/err")"

# JSON names every row's cluster ("" for the data directory's own).
"$PVECG" export --format json --all --data-dir "$D" >"$T/all.json"
[ "$(jq -r 'select(.vmid == 196 and .time == '"$T1"') | "\(.cluster)=\(.cpu)"' "$T/all.json" | paste -sd' ')" == "=0.125 lab=0.25 prod=0.375 solo=0.5" ] ||
  fail "json: $(cat "$T/all.json")"
"$PVECG" export --format json --all --cluster prod --data-dir "$D" >"$T/prod.json"
[ "$(jq -r '"\(.cluster) \(.file)"' "$T/prod.json" | sort -u | paste -sd,)" == "prod pve-node-9.0/pve1,prod pve-vm-9.0/196" ] ||
  fail "--all --cluster prod: $(cat "$T/prod.json")"

export_all() { # FORMAT TO [OPTIONS]
  local format=$1 to=$2
  shift 2
  "$PVECG" export --format "$format" --all --data-dir "$D" --pve-config-dir "$C" \
    --to "$to" "$@" 2>"$T/err" || fail "export $format to $to: $(cat "$T/err")"
}

# ---- InfluxDB 1.x and carbon ----------------------------------------------
start_influxdb
start_carbon
export_all influx "$INFLUX_URL/write?db=pve"
cluster_points influx >"$T/expected"
"$EXPORT_POINTS" influx "$INFLUX_URL" pve >"$T/got"
diff -u "$T/expected" "$T/got" || fail "InfluxDB: points differ"

export_all graphite "tcp://127.0.0.1:$CARBON_PORT"
cluster_points graphite >"$T/expected"
read_carbon() {
  "$EXPORT_POINTS" graphite "$CARBON_WHISPER" "$((T1 - 60))" "$((T1 + 180))" >"$T/got"
  [ "$(wc -l <"$T/got")" -eq "$(wc -l <"$T/expected")" ]
}
wait_until "every point in whisper" read_carbon
diff -u "$T/expected" "$T/got" || fail "carbon: points differ"
stop_receivers

# ---- VictoriaMetrics --------------------------------------------------------
read_victoria() {
  curl -sf "$VICTORIA_URL/internal/force_flush" >/dev/null
  "$EXPORT_POINTS" --significant 12 victoria "$VICTORIA_URL" >"$T/got"
}
start_victoria
export_all influx "$VICTORIA_URL/write"
export_all prometheus "$VICTORIA_URL/api/v1/import/prometheus"
{ cluster_points victoria 12; cluster_points prometheus 12; } | LC_ALL=C sort >"$T/expected"
read_victoria
diff -u "$T/expected" "$T/got" || fail "VictoriaMetrics: points differ"
stop_pid "$VICTORIA_PID"

# ship: first the data directory alone (as before clusters), then with
# the clusters' directories back.
start_victoria
mkdir "$T/away"
mv "$D/lab" "$D/prod" "$D/solo" "$T/away/"
ship() {
  "$PVECG" ship --once --format influx --to "$VICTORIA_URL/write" --state-dir "$T/state" \
    --data-dir "$D" --pve-config-dir "$C" --since $((T1 - 3600)) 2>>"$T/ship.log" ||
    fail "ship: $(cat "$T/ship.log")"
}
ship
state=$(ls "$T/state"/*.state)
grep '^file ' "$state" | cut -d' ' -f2,6 >"$T/before"
printf 'pve-node-9.0/host0 %s\npve-vm-9.0/196 %s\n' "$T1" "$((T1 + 120))" >"$T/expected"
diff -u "$T/expected" "$T/before" || fail "the state before clusters"
mv "$T/away/"* "$D/"
ship
grep '^file ' "$state" | cut -d' ' -f2,6 >"$T/after"
cat >"$T/expected" <<EOF2
lab/pve-node-9.0/pve1 $T1
lab/pve-vm-9.0/196 $((T1 + 120))
prod/pve-node-9.0/pve1 $T1
prod/pve-vm-9.0/196 $((T1 + 120))
pve-node-9.0/host0 $T1
pve-vm-9.0/196 $((T1 + 120))
solo/pve-node-9.0/solo $T1
solo/pve-vm-9.0/196 $((T1 + 120))
EOF2
diff -u "$T/expected" "$T/after" || fail "the state with clusters"
grep -E "gone|first row" "$T/ship.log" && fail "a cursor was dropped or restarted"
# 4 rows per cluster (3 of 196, 1 of its node) and no more:
# the first pass's 4 rows were not sent again.
[ "$(sed -n 's/^stats \([0-9]*\) .*/\1/p' "$state")" == 16 ] ||
  fail "rows sent: $(grep '^stats' "$state")"
cluster_points victoria 12 >"$T/expected"
read_victoria
diff -u "$T/expected" "$T/got" || fail "ship: points differ"

"$PVECG" ship --status --state-dir "$T/state" >"$T/status"
grep -A4 '^  files ' "$T/status" >"$T/got"
cat >"$T/expected" <<EOF2
  files          8
  cluster ""     2 files, lag 0 s
  cluster lab    2 files, lag 0 s
  cluster prod   2 files, lag 0 s
  cluster solo   2 files, lag 0 s
EOF2
diff -u "$T/expected" "$T/got" || fail "--status"
"$PVECG" ship --status --prometheus --state-dir "$T/state" >"$T/status"
id=$(basename "$state" .state)
grep '^pvecg_ship_cluster_files' "$T/status" | sed 's/target="[^"]*"/target/' >"$T/got"
cat >"$T/expected" <<EOF2
pvecg_ship_cluster_files{target,state="$id",cluster=""} 2
pvecg_ship_cluster_files{target,state="$id",cluster="lab"} 2
pvecg_ship_cluster_files{target,state="$id",cluster="prod"} 2
pvecg_ship_cluster_files{target,state="$id",cluster="solo"} 2
EOF2
diff -u "$T/expected" "$T/got" || fail "--status --prometheus"
echo PASS
