#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg serve over a data directory that keeps clusters apart
# (clusters_fixture.sh: prod, lab, the standalone host solo and the
# data directory's own files, each with a guest 196 of its own values,
# node pve1 in prod and lab):
#   - cluster/resources and nodes list every cluster's entries, a named
#     cluster's with its "cluster", names and types from that cluster's
#     configuration; ?cluster= keeps one;
#   - rrddata with ?cluster= is `pvecg rrddata --cluster` byte for byte
#     and holds that cluster's values; without it the data directory's
#     file, else the one cluster's, else a 400 naming the clusters;
#   - the overview's entries carry their cluster and values, and those of
#     a guest with collisions these;
#   - /metrics: a cluster label on every series of a named cluster's file,
#     none on the others, no series twice, the collisions pve_rrd keeps in
#     pvecg-owners with their owner, other host, cluster and since when,
#     left out under ?cluster=: promtool check metrics,
#     prometheus_client's parser and a real Prometheus's scrape all equal
#     rrdtool lastupdate of every file (metrics_points.py expect-clusters);
#   - the page in headless Chromium (overview_check.py clusters).
set -euo pipefail

for tool in rrdtool curl jq promtool python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null ||
  { echo "SKIP: python3-prometheus-client is not installed"; exit 77; }
: "${PVECG:?}" "${LAYOUT_DEFS:?}"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/fixture.sh"
. "$HERE/clusters_fixture.sh"
. "$HERE/../cli/receivers.sh" # T, fail, Prometheus; stops what it started
POINTS=$HERE/metrics_points.py
SCREENSHOT_DIR=${SCREENSHOT_DIR:-$PWD/screenshots}
mkdir -p "$SCREENSHOT_DIR"
same() { # same DESCRIPTION EXPECTED ACTUAL
  [ "$2" == "$3" ] || fail "$1: expected '$2', got '$3'"
  echo "ok - $1"
}
answer() { # answer URL: "STATUS BODY"
  local b
  b=$(curl -s -w ' %{http_code}' "$1")
  echo "${b##* } ${b% *}"
}

NOW=$(date +%s)
LAST=$((NOW / 60 * 60))
D=$T/data
make_clusters "$D" "$T/pve" "$LAST"
# what pve_rrd keeps of owners: a collision over prod's 196 and the data
# directory's own (whose owner the file does not name), a host name to
# escape
printf '%s\n' 'pvecg-owners 2' 'collision pve-vm-9.0 . 196 1800000000 node"x' \
  'owner pve-vm-9.0 prod 196 10 pve1' 'collision pve-vm-9.0 prod 196 1800000100 other' \
  'owner pve-vm-9.0 lab 196 10 pve1' 'end 5' >"$D/pvecg-owners"

# serve DATA_DIR: a server on a free port, its URL in URL.
serve() {
  local port
  port=$(free_port)
  "$PVECG" serve --listen "127.0.0.1:$port" --data-dir "$1" --pve-config-dir "$T/pve" \
    --now "$NOW" 2>>"$T/serve.log" &
  RECEIVER_PIDS+=($!)
  URL=http://127.0.0.1:$port
  wait_until "pvecg serve" curl -sf "$URL/api2/json/nodes"
}
serve "$D"
API=$URL/api2/json

# ---- listings ----------------------------------------------------------------
nodes='{"id":"node/pve0","type":"node","node":"pve0"},{"id":"node/pve1","type":"node","node":"pve1","cluster":"lab"},{"id":"node/pve2","type":"node","node":"pve2","cluster":"lab"},{"id":"node/pve1","type":"node","node":"pve1","cluster":"prod"},{"id":"node/solo","type":"node","node":"solo","cluster":"solo"}'
guests='{"id":"qemu/196","type":"qemu","vmid":196,"name":"plain-196","node":"pve0"},{"id":"lxc/196","type":"lxc","vmid":196,"name":"lab-ct","node":"pve1","cluster":"lab"},{"id":"qemu/300","type":"qemu","vmid":300,"name":"lab-db","node":"pve2","cluster":"lab"},{"id":"qemu/196","type":"qemu","vmid":196,"name":"prod-web","node":"pve1","cluster":"prod"},{"id":"qemu/196","type":"qemu","vmid":196,"name":"solo-vm","node":"solo","cluster":"solo"}'
same "cluster/resources: every cluster's nodes, then guests" "{\"data\":[$nodes,$guests]}" "$(curl -s "$API/cluster/resources")"
same "nodes" "{\"data\":[$nodes]}" "$(curl -s "$API/nodes")"
same "cluster/resources?cluster=prod" \
  '{"data":[{"id":"node/pve1","type":"node","node":"pve1","cluster":"prod"},{"id":"qemu/196","type":"qemu","vmid":196,"name":"prod-web","node":"pve1","cluster":"prod"}]}' \
  "$(curl -s "$API/cluster/resources?cluster=prod")"
same "cluster/resources?cluster= (the data directory's own)" \
  '{"data":[{"id":"node/pve0","type":"node","node":"pve0"},{"id":"qemu/196","type":"qemu","vmid":196,"name":"plain-196","node":"pve0"}]}' \
  "$(curl -s "$API/cluster/resources?cluster=")"
same "a cluster that is not there lists nothing" '{"data":[]}' "$(curl -s "$API/cluster/resources?cluster=gone")"
same "a name that cannot be a cluster's" \
  '400 {"data":null,"message":"Parameter verification failed.","errors":{"cluster":"invalid format - not a cluster name"}}' \
  "$(answer "$API/cluster/resources?cluster=pve-vm-9.0")"
same "cluster given twice" \
  '{"data":null,"message":"Parameter verification failed.","errors":{"cluster":"given more than once"}}' \
  "$(curl -s "$API/cluster/resources?cluster=lab&cluster=prod")"

# ---- rrddata -----------------------------------------------------------------
for i in "${!CLUSTERS[@]}"; do
  c=${CLUSTERS[$i]}
  want=$("$PVECG" rrddata --vmid 196 --timeframe hour --data-dir "$D" ${c:+--cluster "$c"} --now "$NOW")
  got=$(curl -s "$API/nodes/pve1/qemu/196/rrddata?timeframe=hour&cluster=$c")
  same "guest 196 of '$c': pvecg rrddata --cluster's bytes" "$want" "$got"
  same "guest 196 of '$c': its memhost and cpu" "$LAST ${CLUSTER_MEMHOST[$i]} ${CLUSTER_CPU[$i]}" \
    "$(jq -r '.data[-1] | "\(.time) \(.memhost) \(.cpu)"' <<<"$got")"
done
for c in prod lab; do
  same "node pve1 of $c" "$("$PVECG" rrddata --node pve1 --timeframe day --cf MAX --data-dir "$D" --cluster "$c" --now "$NOW")" \
    "$(curl -s "$API/nodes/pve1/rrddata?timeframe=day&cf=MAX&cluster=$c")"
done
same "without cluster: the data directory's own 196" \
  "$("$PVECG" rrddata --vmid 196 --timeframe hour --data-dir "$D" --now "$NOW")" \
  "$(curl -s "$API/nodes/pve0/qemu/196/rrddata?timeframe=hour")"
same "without cluster: the one cluster with 300 (lab)" \
  "$("$PVECG" rrddata --vmid 300 --timeframe hour --data-dir "$D" --cluster lab --now "$NOW")" \
  "$(curl -s "$API/nodes/pve2/qemu/300/rrddata?timeframe=hour")"
same "without cluster: node pve1 of two clusters" \
  '400 {"data":null,"message":"node pve1 has files in several clusters (lab, prod): name one with the parameter cluster"}' \
  "$(answer "$API/nodes/pve1/rrddata?timeframe=hour")"
same "guest 300 is not in prod" '404 {"data":null,"message":"no RRD file for this guest"}' \
  "$(answer "$API/nodes/pve2/qemu/300/rrddata?timeframe=hour&cluster=prod")"
grep -qF 'GET /api2/json/nodes/pve1/rrddata: 400 node pve1 has files in several clusters (lab, prod)' "$T/serve.log" ||
  fail "the 400 is not logged: $(cat "$T/serve.log")"

# ---- the overview's answer -----------------------------------------------------
same "the overview: each guest 196 with its cluster and memhost" \
  "-:${CLUSTER_MEMHOST[0]} prod:${CLUSTER_MEMHOST[1]} lab:${CLUSTER_MEMHOST[2]} solo:${CLUSTER_MEMHOST[3]}" \
  "$(curl -s "$API/pvecg/overview" | jq -r '[.data[] | select(.vmid == 196) | "\(.cluster // "-"):\(.memhost)"] | sort_by(.) | join(" ")' |
     tr ' ' '\n' | awk -F: '{ o[$1] = $0 } END { print o["-"], o["prod"], o["lab"], o["solo"] }')"
same "the overview: the collisions of the guests that have any, exactly" \
  '{"cluster":null,"vmid":196,"collisions":[{"owner":"","other":"node\"x","since":1800000000}]}
{"cluster":"prod","vmid":196,"collisions":[{"owner":"pve1","other":"other","since":1800000100}]}' \
  "$(curl -s "$API/pvecg/overview" | jq -c '.data[] | select(has("collisions")) | {cluster, vmid, collisions}' | LC_ALL=C sort -r)"

# ---- /metrics ------------------------------------------------------------------
# (a VM's balloon minimum without `balloon` or `memory`: PVE's 512 MiB)
printf '%s\n' '- 196 qemu pve0 0 - 536870912 plain-196' 'prod 196 qemu pve1 0 web 536870912 prod-web' \
  'lab 196 lxc pve1 0 - - lab-ct' 'lab 300 qemu pve2 0 - 536870912 lab-db' \
  'solo 196 qemu solo 0 - 536870912 solo-vm' >"$T/guests"
curl -sS -o "$T/text.body" "$URL/metrics"
curl -sS -o "$T/om.body" -H 'Accept: application/openmetrics-text;version=1.0.0' "$URL/metrics"
promtool check metrics <"$T/text.body" >"$T/promtool.out" 2>&1 || fail "promtool: $(cat "$T/promtool.out")"
[ ! -s "$T/promtool.out" ] || fail "promtool check metrics: $(cat "$T/promtool.out")"
echo "ok - promtool check metrics: nothing to say"
dups=$(grep -v '^#' "$T/text.body" | sed -E 's/ [^ ]+( [0-9]+)?$//' | sort | uniq -d)
same "no series twice" "" "$dups"
types=(qemu qemu lxc qemu) # guest 196's in CLUSTERS' order
for i in "${!CLUSTERS[@]}"; do
  c=${CLUSTERS[$i]}
  line="pve_memory_host_bytes{id=\"${types[$i]}/196\"${c:+,cluster=\"$c\"}} ${CLUSTER_MEMHOST[$i]} ${LAST}000"
  grep -qxF "$line" "$T/text.body" || fail "missing: $line"
  echo "ok - $line"
done
for line in 'pve_up{id="node/pve1",cluster="lab"} 1' 'pve_up{id="node/pve1",cluster="prod"} 1' 'pve_up{id="node/pve0"} 1' \
  'pve_node_info{id="node/pve1",cluster="prod",level="",name="pve1",nodeid=""} 1' \
  'pve_guest_info{id="qemu/196",cluster="prod",node="pve1",name="prod-web",type="qemu",template="0",tags="web"} 1' \
  'pve_guest_info{id="qemu/196",node="pve0",name="plain-196",type="qemu",template="0",tags=""} 1'; do
  grep -qxF "$line" "$T/text.body" || fail "missing: $line"
done
echo "ok - pve_up, pve_node_info and pve_guest_info with their clusters"
same "the collisions pve_rrd keeps" 'pvecg_guest_collisions{vmid="196",owner="",other="node\"x"} 1
pvecg_guest_collisions{vmid="196",owner="pve1",other="other",cluster="prod"} 1
pvecg_guest_collision_since_seconds{vmid="196",owner="",other="node\"x"} 1800000000
pvecg_guest_collision_since_seconds{vmid="196",owner="pve1",other="other",cluster="prod"} 1800000100' \
  "$(grep '^pvecg_guest_collision' "$T/text.body")"
same "OpenMetrics: the same collisions" "$(grep '^pvecg_guest_collision' "$T/text.body")" \
  "$(grep '^pvecg_guest_collision' "$T/om.body")"
"$POINTS" expect-clusters "$D" "$NOW" "$T/guests" >"$T/expected"
"$POINTS" text "$T/text.body" >"$T/got.text"
"$POINTS" openmetrics "$T/om.body" >"$T/got.openmetrics"
for got in text openmetrics; do
  diff -u "$T/expected" "$T/got.$got" >&2 || fail "$got differs from rrdtool lastupdate"
done
echo "ok - text and OpenMetrics (prometheus_client's parser): $(grep -c . "$T/expected") samples equal rrdtool lastupdate"
curl -sS -o "$T/prod.body" "$URL/metrics?cluster=prod"
same "?cluster=prod: only prod's series" "" \
  "$(grep '^pve_' "$T/prod.body" | grep -v 'cluster="prod"' || true)"
same "?cluster=prod: its series are those of the whole scrape" \
  "$(grep '^pve_' "$T/text.body" | grep -F 'cluster="prod"')" "$(grep '^pve_' "$T/prod.body")"

# ---- a real Prometheus scrapes it ------------------------------------------------
cat >"$T/scrape.yml" <<CONF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: pvecg
    honor_timestamps: true
    static_configs:
      - targets: ["${URL#http://}"]
CONF
start_prometheus "$T/prometheus-data" "$T/scrape.yml"
want=$(grep -c . "$T/expected")
stored() { [ "$("$POINTS" prometheus "$PROMETHEUS_URL" | grep -c .)" -eq "$want" ]; }
wait_until "Prometheus' scrape" stored
"$POINTS" prometheus "$PROMETHEUS_URL" >"$T/got.prometheus"
diff -u "$T/expected" "$T/got.prometheus" >&2 || fail "Prometheus differs from rrdtool lastupdate"
echo "ok - Prometheus stored the $want samples, equal to rrdtool lastupdate"
stop_pid "${RECEIVER_PIDS[-1]}"
unset 'RECEIVER_PIDS[-1]'

# ---- the page --------------------------------------------------------------------
PAGE_URL=$URL
serve "$D/prod" # one cluster's directory, served alone
memhosts=$(printf '{"": %s, "prod": %s, "lab": %s, "solo": %s}' "${CLUSTER_MEMHOST[@]}")
r=0
/usr/bin/python3 "$HERE/overview_check.py" clusters "$PAGE_URL" "$D" "$memhosts" \
  "$SCREENSHOT_DIR/overview-clusters.png" "$URL" || r=$?
[ "$r" -eq 77 ] && { echo "SKIP: no chromium"; exit 77; }
[ "$r" -eq 0 ] || fail "the page"
echo PASS
