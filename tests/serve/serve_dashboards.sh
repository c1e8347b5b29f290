#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Grafana dashboards over `pvecg serve`'s /metrics, run against real
# Prometheus servers that scrape them while their RRD files are written:
# a row a second per file through a real rrdcached (-w 3600: the servers
# read the rows with PENDING), for 12 seconds.  Server a is a single host
# (node pve1, a VM, a container, a guest without configuration, a stale
# template, KSM and stall-time files beside guests and the node); server
# b a collector with a node and guest 196 of its own and the cluster
# prod's (guest 196 again, told apart by `cluster`, with KSM and
# stall-time files).
# Prometheus "split" scrapes a as `instance: pve1` (as prometheus-pve-
# exporter's users label their nodes) and each cluster of b as a target of
# its own (`params: {cluster: [...]}`, an instance label each); Prometheus
# "whole" scrapes b as one target.  dashboard_queries.py then asks, at one
# instant:
# - Grafana.com dashboard 10347 ("Proxmox via Prometheus", on "split"):
#   its instance variable lists pve1, collector and prod; each of its 23
#   guest and node queries returns, for each instance, exactly the series
#   and values the rows written give (rate() with Prometheus' arithmetic
#   over the raw samples, each a row written), and for pve1 something;
#   its two storage panels return nothing (no RRD file holds a storage);
# - packaging/examples/pvecg-grafana-dashboard.json: Grafana's schema
#   basics (uid, title, schemaVersion, panels with id, type, gridPos and
#   targets with expr, the datasource and instance variables), and each of
#   its queries for every instance of both Prometheus servers, exactly
#   (its exact-stall panels: rate() of the stall counters as
#   Prometheus computes it); and the thresholds of those panels are the
#   alert rules' (packaging/examples/pvecg-alerts.yml, both files parsed:
#   dashboard_queries.py thresholds).
# The newest row written to each file is checked against `rrdtool
# lastupdate` first.
set -euo pipefail

for tool in rrdtool rrdcached curl python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
: "${PVECG:?}" "${LAYOUT_DEFS:?}"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../cli/receivers.sh" # T, fail, start_prometheus; stops what it started
need prometheus prometheus
QUERIES=$HERE/dashboard_queries.py
DASHBOARD=$HERE/../../packaging/examples/pvecg-grafana-dashboard.json
RULES=$HERE/../../packaging/examples/pvecg-alerts.yml
export LAYOUT_DEFS

"$QUERIES" thresholds "$DASHBOARD" "$RULES" || fail "the exact-stall panels' thresholds (above)"

"$QUERIES" setup "$T"
SOCK=$T/rrdcached.sock
mkdir -p "$T/journal"
rrdcached -g -l "unix:$SOCK" -p "$T/rrdcached.pid" -w 3600 -j "$T/journal" \
  >"$T/rrdcached.log" 2>&1 &
RECEIVER_PIDS+=($!)
wait_until rrdcached test -S "$SOCK"

# the first row of every live file, then the servers and Prometheus, then
# the rest of the rows while Prometheus scrapes
"$QUERIES" write "$T" "$SOCK" 1
PORT_A=$(free_port)
PORT_B=$(free_port)
for s in a:"$PORT_A" b:"$PORT_B"; do
  "$PVECG" serve --listen "127.0.0.1:${s#*:}" --data-dir "$T/${s%%:*}" --daemon "unix:$SOCK" \
    --pve-config-dir "$T/${s%%:*}-pve" 2>>"$T/serve.log" &
  RECEIVER_PIDS+=($!)
  wait_until "pvecg serve (${s%%:*})" curl -sf "http://127.0.0.1:${s#*:}/metrics"
done
# Prometheus "split" scrapes server a as pve1, and each cluster of server
# b as a target of its own with an instance label of its own, as
# prometheus-pve-exporter's dashboards need it (dashboard_queries.py SPLIT);
# Prometheus "whole" scrapes server b as one target, guest 196 twice.
scrape() { # FILE JOB...: JOB is "name target instance [cluster]", "-" for none/""
  local file=$1 job name target instance cluster
  shift
  printf 'global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n' >"$file"
  for job in "$@"; do
    read -r name target instance cluster <<<"$job"
    printf '  - job_name: %s\n' "$name" >>"$file"
    [ -z "$cluster" ] || printf '    params: {cluster: ["%s"]}\n' "${cluster#-}" >>"$file"
    printf '    static_configs:\n      - targets: ["%s"]\n' "$target" >>"$file"
    [ "$instance" = - ] || printf '        labels: {instance: %s}\n' "$instance" >>"$file"
  done
}
scrape "$T/split.yml" "pve 127.0.0.1:$PORT_A pve1" "collector 127.0.0.1:$PORT_B collector -" \
  "prod 127.0.0.1:$PORT_B prod prod"
scrape "$T/whole.yml" "collector 127.0.0.1:$PORT_B -"
start_prometheus "$T/prometheus-split" "$T/split.yml"
SPLIT_URL=$PROMETHEUS_URL
start_prometheus "$T/prometheus-whole" "$T/whole.yml"
WHOLE_URL=$PROMETHEUS_URL
"$QUERIES" write "$T" "$SOCK" 11 || fail "writing the rows"
wait_until "Prometheus' scrape of the newest rows" "$QUERIES" caught-up "$T" "$SPLIT_URL" ab
wait_until "Prometheus' scrape of the newest rows" "$QUERIES" caught-up "$T" "$WHOLE_URL" b

"$QUERIES" check "$T" "unix:$SOCK" "$DASHBOARD" "$SPLIT_URL" "$WHOLE_URL" "127.0.0.1:$PORT_B" ||
  fail "the dashboards' queries (above)"
echo "ok: dashboard 10347 and pvecg's dashboard return the rows written, through a real Prometheus"
