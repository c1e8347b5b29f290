#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# GET /metrics of pvecg serve, read through rrdcached with rows the daemon
# still holds, checked against `rrdtool lastupdate` of the same files by
# metrics_points.py: the body in Prometheus' text format (promtool check
# metrics) and in OpenMetrics (prometheus_client's strict parser), and
# what a real Prometheus and a real VictoriaMetrics (-promscrape.config)
# store from scraping it.  Files: a node, a VM with two rows pending in
# the daemon, a container whose newest memhost is U, a guest without a
# configuration, a stale guest (a template: pve_up 0, its guest_info, no
# values) and a foreign file; KSM files beside VM 100's and the node's
# (their families under the same id, a negative profit, a U) and a stale
# one beside the template's; stall files (the kernel's PSI totals) beside
# VM 100's (an io full U) and the node's and a stale one beside the
# template's, their counters seconds in both formats (counter, OpenMetrics'
# family without _total); gzip when asked for.  The names of
# prometheus-pve-exporter's dashboards are read back exactly: pve_up,
# pve_node_info, pve_guest_info's template and tags, and the older counter
# names beside the _total ones.
# Then the same through a daemon over TCP (INFO and PENDING), and a 503
# once the daemon is gone.
set -euo pipefail

for tool in rrdtool rrdcached curl jq promtool python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null ||
  { echo "SKIP: python3-prometheus-client is not installed"; exit 77; }
: "${PVECG:?}" "${LAYOUT_DEFS:?}"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/fixture.sh"
. "$HERE/../cli/receivers.sh" # T, fail, the stores; stops what it started
POINTS=$HERE/metrics_points.py

NOW=$(date +%s)
LAST=$((NOW / 60 * 60)) # the newest minute
D=$T/data
mkdir -p "$T/journal" "$D/pve-vm-9.0" "$D/pve-node-9.0" "$D/pvecg-ksm-vm-1.0" "$D/pvecg-ksm-node-1.0" \
  "$D/pvecg-pressure-vm-1.0" "$D/pvecg-pressure-node-1.0" "$T/pve/nodes/pve1/qemu-server" "$T/pve/nodes/pve1/lxc"

# rows_until LAYOUT FILE NEWEST COUNT: COUNT rows a minute apart up to NEWEST.
rows_until() {
  local start=$(($3 - 60 * $4))
  make_file "$1" "$2" "$start"
  case $1 in
    pve-node-9.0) node_rows "$start" "$4" ;;
    pvecg-ksm-vm-1.0) ksm_vm_rows "$start" "$4" ;;
    pvecg-ksm-node-1.0) ksm_node_rows "$start" "$4" ;;
    pvecg-pressure-*) stall_rows "$start" "$4" ;;
    *) vm_rows "$start" "$4" ;;
  esac |
    xargs -n 500 rrdtool update "$2"
}
rows_until pve-node-9.0 "$D/pve-node-9.0/pve1" $((LAST - 60)) 60
rows_until pve-vm-9.0 "$D/pve-vm-9.0/100" $((LAST - 180)) 60
rows_until pve-vm-9.0 "$D/pve-vm-9.0/101" $((LAST - 60)) 65 # row 65: memhost U
rows_until pve-vm-9.0 "$D/pve-vm-9.0/102" $((LAST - 120)) 30
rows_until pve-vm-9.0 "$D/pve-vm-9.0/103" $((LAST - 3600)) 30 # stale
rows_until pve-node-9.0 "$D/pve-vm-9.0/104" $((LAST - 60)) 10 # foreign
rows_until pvecg-ksm-vm-1.0 "$D/pvecg-ksm-vm-1.0/100" $((LAST - 60)) 44 # row 44: saved U, profit < 0
rows_until pvecg-ksm-node-1.0 "$D/pvecg-ksm-node-1.0/pve1" "$LAST" 20
rows_until pvecg-ksm-vm-1.0 "$D/pvecg-ksm-vm-1.0/103" $((LAST - 3600)) 30 # stale
rows_until pvecg-pressure-vm-1.0 "$D/pvecg-pressure-vm-1.0/100" $((LAST - 60)) 14 # row 14: io full U
rows_until pvecg-pressure-node-1.0 "$D/pvecg-pressure-node-1.0/pve1" "$LAST" 20
rows_until pvecg-pressure-vm-1.0 "$D/pvecg-pressure-vm-1.0/103" $((LAST - 3600)) 30 # stale
printf 'name: web-1\nballoon: 1024\nmemory: 4096\ntags: prod;web\n' >"$T/pve/nodes/pve1/qemu-server/100.conf"
printf 'hostname: ct\n' >"$T/pve/nodes/pve1/lxc/101.conf"
printf 'name: old\ntemplate: 1\n' >"$T/pve/nodes/pve1/qemu-server/103.conf"
# the balloon minimum: 100's 1 GiB, none for the container, none for 103
# either: its file is stale, and the minimum is left out with its values
printf '%s\n' '100 qemu pve1 0 prod;web 1073741824 web-1' '101 lxc pve1 0 - - ct' \
  '103 qemu pve1 1 - - old' >"$T/guests"

# The daemon holds two newer rows of VM 100 (-w: not written for an hour).
SOCK=$T/rrdcached.sock
rrdcached -g -l "unix:$SOCK" -p "$T/rrdcached.pid" -w 3600 -j "$T/journal" \
  >"$T/rrdcached.log" 2>&1 &
RRDCACHED_PID=$!
RECEIVER_PIDS+=("$RRDCACHED_PID")
wait_until rrdcached test -S "$SOCK"
vm_rows $((LAST - 240)) 3 | tail -n 2 | while read -r row; do
  rrdtool update --daemon "unix:$SOCK" "$D/pve-vm-9.0/100" "$row"
done
pending=$(rrdtool lastupdate "$D/pve-vm-9.0/100" | tail -n 1 | cut -d: -f1)
[ "$pending" = $((LAST - 180)) ] || fail "the file holds the pending rows already ($pending)"

PORT=$(free_port)
"$PVECG" serve --listen "127.0.0.1:$PORT" --data-dir "$D" --daemon "unix:$SOCK" \
  --pve-config-dir "$T/pve" --now "$NOW" 2>"$T/serve.log" &
RECEIVER_PIDS+=($!)
URL=http://127.0.0.1:$PORT
wait_until "pvecg serve" curl -sf "$URL/api2/json/nodes"

# ---- the bodies ----------------------------------------------------------
curl -sS -D "$T/text.headers" -o "$T/text.body" "$URL/metrics"
grep -qi '^content-type: text/plain; version=0.0.4; charset=utf-8' "$T/text.headers" ||
  fail "text format: $(grep -i content-type "$T/text.headers")"
promtool check metrics <"$T/text.body" >"$T/promtool.out" 2>&1 ||
  fail "promtool check metrics: $(cat "$T/promtool.out")"
[ ! -s "$T/promtool.out" ] || fail "promtool check metrics: $(cat "$T/promtool.out")"
# gzip, as Prometheus and VictoriaMetrics ask for it: the same bytes
curl -sS -D "$T/gz.headers" -o "$T/text.gz" -H 'Accept-Encoding: gzip' "$URL/metrics"
grep -qi '^content-encoding: gzip' "$T/gz.headers" || fail "no gzip for Accept-Encoding: gzip"
gzip -dc "$T/text.gz" | cmp -s - "$T/text.body" || fail "the gzip body is not the text body"
[ "$(stat -c %s "$T/text.gz")" -lt "$(($(stat -c %s "$T/text.body") / 3))" ] ||
  fail "gzip: $(stat -c %s "$T/text.gz") of $(stat -c %s "$T/text.body") bytes"
grep -qi '^content-encoding' "$T/text.headers" && fail "gzip without Accept-Encoding"
curl -sS -D "$T/om.headers" -o "$T/om.body" \
  -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' "$URL/metrics"
grep -qi '^content-type: application/openmetrics-text; version=1.0.0; charset=utf-8' "$T/om.headers" ||
  fail "OpenMetrics: $(grep -i content-type "$T/om.headers")"
[ "$(tail -n 1 "$T/om.body")" = "# EOF" ] || fail "OpenMetrics body does not end with # EOF"

# U is left out, not sent as 0; a stale or foreign file gives nothing
grep -q 'pve_memory_host_bytes{id="lxc/101"}' "$T/text.body" && fail "memhost U of lxc/101 was sent"
grep -q 'pve_memory_usage_bytes{id="lxc/101"}' "$T/text.body" || fail "lxc/101 is missing"
grep -v '^pve_up{\|^pve_guest_info{' "$T/text.body" | grep -q '/103"\|/104"' &&
  fail "a stale or foreign file's values were sent"
grep -q '/104"' "$T/text.body" && fail "a foreign file has pve_up"
# the KSM files: their families under the guest's and node's id, nothing
# of their own beside (one pve_up per id), the U left out
for line in "pve_ksm_profit_bytes{id=\"qemu/100\"} -180224 $((LAST - 60))000" \
  "pve_ksm_merging_pages{id=\"qemu/100\"} 44000 $((LAST - 60))000" \
  "pve_ksm_run_state{id=\"node/pve1\"} 1 ${LAST}000" \
  "pve_memory_ksm_saved_bytes{id=\"node/pve1\"} 409600000 ${LAST}000"; do
  grep -qxF "$line" "$T/text.body" || fail "missing: $line"
done
grep -q 'pve_memory_ksm_saved_bytes{id="qemu/100"}' "$T/text.body" && fail "ksmsaved U of qemu/100 was sent"
[ "$(grep -c '^pve_up{id="qemu/100"}' "$T/text.body")" = 1 ] || fail "qemu/100 has pve_up more than once"
[ "$(grep -c '^pve_node_info{' "$T/text.body")" = 1 ] || fail "pve_node_info more than once"
grep -q '^pve_ksm.*qemu/103' "$T/text.body" && fail "the stale KSM file's values were sent"
# the stall files: raw counters as seconds, some as node_exporter's
# waiting and full as its stalled, no other label, counters in both
# formats; the U and the stale file left out
for line in "pve_pressure_cpu_waiting_seconds_total{id=\"qemu/100\"} 123876.789026 $((LAST - 60))000" \
  "pve_pressure_memory_stalled_seconds_total{id=\"node/pve1\"} 2.50002 ${LAST}000" \
  "pve_pressure_io_stalled_seconds_total{id=\"node/pve1\"} 4.01998 ${LAST}000"; do
  grep -qxF "$line" "$T/text.body" || fail "missing: $line"
done
grep -q 'pve_pressure_io_stalled_seconds_total{id="qemu/100"}' "$T/text.body" &&
  fail "the stall file's U was sent"
grep -q 'kind=' "$T/text.body" "$T/om.body" && fail "a kind label"
grep -q '^pve_pressure_.*_seconds_total{id="qemu/103"' "$T/text.body" && fail "the stale stall file's values were sent"
grep -q '^pve_guest_balloon_min_bytes{id="lxc/101"' "$T/text.body" && fail "a container has a balloon minimum"
grep -q '^pve_guest_balloon_min_bytes{id="qemu/103"' "$T/text.body" && fail "a stale VM's balloon minimum was sent"
for res in cpu io memory; do
  for name in waiting stalled; do
    grep -qx "# TYPE pve_pressure_${res}_${name}_seconds_total counter" "$T/text.body" ||
      fail "pve_pressure_${res}_${name}_seconds_total is not a counter"
    grep -qx "# TYPE pve_pressure_${res}_${name}_seconds counter" "$T/om.body" ||
      fail "OpenMetrics: pve_pressure_${res}_${name}_seconds is not a counter"
  done
done
# what prometheus-pve-exporter's dashboards join on and select by
for line in 'pve_up{id="node/pve1"} 1' 'pve_up{id="qemu/100"} 1' 'pve_up{id="lxc/101"} 1' \
  'pve_up{id="qemu/103"} 0' 'pve_node_info{id="node/pve1",level="",name="pve1",nodeid=""} 1' \
  'pve_guest_info{id="qemu/100",node="pve1",name="web-1",type="qemu",template="0",tags="prod;web"} 1' \
  'pve_guest_info{id="qemu/103",node="pve1",name="old",type="qemu",template="1",tags=""} 1' \
  'pve_guest_balloon_min_bytes{id="qemu/100"} 1073741824'; do
  grep -qxF "$line" "$T/text.body" || fail "missing: $line"
done
# the older counter names: gauges of the same values, in both formats,
# with prometheus-pve-exporter 3.8's HELP (the counter's, then DEPRECATED)
grep -qxF "# HELP pve_network_receive_bytes_total The amount of traffic in bytes that was sent to the guest over the network since it was started. (for types 'qemu' and 'lxc')" "$T/text.body" ||
  fail "pve_network_receive_bytes_total: not the exporter's HELP"
for old in network_receive_bytes network_transmit_bytes disk_read_bytes disk_write_bytes; do
  new=${old/disk_write/disk_written}_total
  grep -q "^# HELP pve_$old The amount of .* DEPRECATED: Use pve_$new instead\.$" "$T/text.body" ||
    fail "pve_$old: not the exporter's deprecated HELP"
  grep -qx "# TYPE pve_$old gauge" "$T/text.body" || fail "pve_$old is not a gauge"
  grep -qx "# TYPE pve_$old gauge" "$T/om.body" || fail "OpenMetrics: pve_$old is not a gauge"
  grep -qx "# TYPE pve_$new unknown" "$T/om.body" || fail "OpenMetrics: pve_$new is not unknown"
  [ "$(grep "^pve_$new{" "$T/text.body" | sed "s/^pve_$new//")" = \
    "$(grep "^pve_$old{" "$T/text.body" | sed "s/^pve_$old//")" ] || fail "pve_$old differs from pve_$new"
done
grep -qx 'pvecg_metrics_files{state="fresh"} 8' "$T/text.body" || fail "fresh files: $(grep pvecg_ "$T/text.body")"
grep -qx 'pvecg_metrics_files{state="stale"} 3' "$T/text.body" || fail "stale files"
grep -qx 'pvecg_metrics_files{state="unreadable"} 1' "$T/text.body" || fail "unreadable files"
# the pending rows, not the file's header
grep -qx "pve_memory_host_bytes{id=\"qemu/100\"} [0-9.e+]* $((LAST - 60))000" "$T/text.body" ||
  fail "VM 100 is not at its pending row: $(grep 'host_bytes{id="qemu/100"' "$T/text.body")"

# ---- Prometheus and VictoriaMetrics scrape it -----------------------------
cat >"$T/scrape.yml" <<CONF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: pvecg
    honor_timestamps: true
    static_configs:
      - targets: ["127.0.0.1:$PORT"]
CONF
start_prometheus "$T/prometheus-data" "$T/scrape.yml"
start_victoria -promscrape.config="$T/scrape.yml"
want=$(grep -c '^pve_' "$T/text.body")
stored() { [ "$("$POINTS" "$@" | grep -c .)" -eq "$want" ]; }
wait_until "Prometheus' scrape" stored prometheus "$PROMETHEUS_URL"
wait_until "VictoriaMetrics' scrape" stored victoria "$VICTORIA_URL"
"$POINTS" prometheus "$PROMETHEUS_URL" >"$T/got.prometheus"
"$POINTS" --significant 12 victoria "$VICTORIA_URL" >"$T/got.victoria"
"$POINTS" text "$T/text.body" >"$T/got.text"
"$POINTS" openmetrics "$T/om.body" >"$T/got.openmetrics"
stop_receivers

# ---- against rrdtool lastupdate (which makes the daemon write the rows) ---
rrdcached -g -l "unix:$SOCK" -p "$T/rrdcached.pid" -w 3600 -j "$T/journal" \
  >>"$T/rrdcached.log" 2>&1 &
RECEIVER_PIDS+=($!)
wait_until rrdcached rrdtool lastupdate --daemon "unix:$SOCK" "$D/pve-node-9.0/pve1"
"$POINTS" expect "$D" "$NOW" "$T/guests" "unix:$SOCK" >"$T/expected"
[ "$(grep -c . "$T/expected")" -eq "$want" ] || fail "expected $(grep -c . "$T/expected") samples, the body has $want"
for got in text openmetrics prometheus; do
  diff -u "$T/expected" "$T/got.$got" >&2 || fail "$got differs from rrdtool lastupdate"
done
"$POINTS" --significant 12 expect "$D" "$NOW" "$T/guests" "unix:$SOCK" >"$T/expected.12"
diff -u "$T/expected.12" "$T/got.victoria" >&2 || fail "VictoriaMetrics differs from rrdtool lastupdate"
[ "$("$POINTS" states "$D" "$NOW")" = "fresh=8 stale=3 unreadable=1" ] || fail "the oracle's states differ"
stop_receivers

# ---- through a daemon over TCP: the header from INFO, then PENDING ---------
DPORT=$(free_port)
rrdcached -g -l "127.0.0.1:$DPORT" -b "$D" -p "$T/rrdcached.pid" -w 3600 \
  -j "$T/journal" >>"$T/rrdcached.log" 2>&1 &
RECEIVER_PIDS+=($!)
cd "$D" # over TCP paths are relative to the daemon's -b: the same dir here
wait_until "rrdcached on TCP" rrdtool lastupdate --daemon "127.0.0.1:$DPORT" pve-node-9.0/pve1
vm_rows $((LAST - 60)) 1 | while read -r row; do
  rrdtool update --daemon "127.0.0.1:$DPORT" pve-vm-9.0/101 "$row"
done
PORT=$(free_port)
"$PVECG" serve --listen "127.0.0.1:$PORT" --daemon "127.0.0.1:$DPORT" --data-dir . \
  --pve-config-dir "$T/pve" --now "$NOW" 2>>"$T/serve.log" &
SERVE_PID=$!
RECEIVER_PIDS+=("$SERVE_PID")
wait_until "pvecg serve" curl -sf "http://127.0.0.1:$PORT/metrics"
curl -sS -o "$T/tcp.body" "http://127.0.0.1:$PORT/metrics"
"$POINTS" text "$T/tcp.body" >"$T/got.tcp"
grep -q "pve_memory_host_bytes{id=\"lxc/101\"}.$LAST" "$T/got.tcp" ||
  fail "the row pending over TCP is not served: $(grep 'lxc/101' "$T/got.tcp" | head -3)"
"$POINTS" expect . "$NOW" "$T/guests" "127.0.0.1:$DPORT" >"$T/expected.tcp"
diff -u "$T/expected.tcp" "$T/got.tcp" >&2 || fail "over TCP: differs from rrdtool lastupdate"

# ---- the daemon gone: 503, the scrape fails as a whole --------------------
kill "${RECEIVER_PIDS[0]}"
wait "${RECEIVER_PIDS[0]}" 2>/dev/null || true
status=$(curl -s -o "$T/gone.body" -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")
[ "$status" = 503 ] || fail "without the daemon: $status $(cat "$T/gone.body")"
[ "$(cat "$T/gone.body")" = '{"data":null,"message":"the daemon cannot be reached"}' ] ||
  fail "without the daemon: $(cat "$T/gone.body")"
grep -q 'GET /metrics: 503' "$T/serve.log" || fail "the 503 was not logged"
echo "ok: /metrics ($want samples) equals rrdtool lastupdate in both formats, in Prometheus and in VictoriaMetrics"
