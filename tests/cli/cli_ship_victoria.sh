#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg ship into a real VictoriaMetrics (Debian's victoria-metrics, with
# -dedup.minScrapeInterval so that a row sent twice is one sample), in
# both of its write formats: Prometheus' text to /api/v1/import/prometheus
# (prometheus-pve-exporter's names) and InfluxDB line protocol to /write.
# The files grow through a real rrdcached while the shipper runs; the
# store is stopped for hours of rows and started again on its data, the
# shipper killed with -9 in a backlog and started again.  Every sample
# the store holds then equals what those names make of `pvecg export
# --format json` of the same files, to VictoriaMetrics' 12 significant
# digits, counters going on across the outage: the stall files' too,
# named as /metrics names them (so the alert rules work on shipped data),
# the VM's cpu some 15 s a row from 0 through the whole run.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${EXPORT_POINTS:?}"

. "$(dirname "$0")/receivers.sh" # T, fail, the stores
SHIP_STALL=1
. "$(dirname "$0")/ship_fixture.sh" # the files, SHIPPER stopped at exit

ship() { # FORMAT PATH STATE_DIR
  "$PVECG" ship --format "$1" --to "$VICTORIA_URL$2" --data-dir "$D" \
    --pve-config-dir "$C" --state-dir "$3" --interval 1 --batch-bytes 8192 \
    --rows-per-round 60 2>>"$T/ship.log" &
  SHIPPER=$!
}
stop_shipper() {
  kill "$SHIPPER"
  wait "$SHIPPER" || fail "the shipper's exit after SIGTERM: $?"
  SHIPPER=
}
read_back() {
  curl -sf "$VICTORIA_URL/internal/force_flush" >/dev/null
  "$EXPORT_POINTS" --significant 12 victoria "$VICTORIA_URL" >"$T/got"
}
cursor() { awk -v k="$2" '$1 == "file" && $2 == k { print $6 }' "$1"/*.state; }

# story FORMAT PATH FORM: the whole run into a fresh store.
story() {
  local state=$T/state-$1 before
  start_victoria
  ship "$1" "$2" "$state"
  ship_rows 100
  ship_flush
  ship_wait_caught_up "$state"
  stop_pid "$VICTORIA_PID"
  for _ in $(seq 4); do ship_rows 40; sleep 0.3; done
  ship_flush
  sleep 1
  restart_victoria
  ship_wait_caught_up "$state"
  kill -STOP "$SHIPPER"
  ship_rows 250
  ship_flush
  before=$(cursor "$state" pve-vm-9.0/100)
  kill -CONT "$SHIPPER"
  for _ in $(seq 500); do
    [ "$(cursor "$state" pve-vm-9.0/100)" != "$before" ] && break
    sleep 0.01
  done
  kill -KILL "$SHIPPER"
  wait "$SHIPPER" 2>/dev/null || true
  ship "$1" "$2" "$state"
  ship_wait_caught_up "$state"
  stop_shipper
  ship_expected "$3" >/dev/null
  "$EXPORT_POINTS" --significant 12 expect "$3" "$T/rows.json" "$GUESTS" >"$T/expected"
  read_back
  diff "$T/expected" "$T/got" >"$T/diff" || { head "$T/diff"; fail "$1 to $2: samples differ"; }
  [ "$(wc -l <"$T/expected")" -gt 10000 ] || fail "only $(wc -l <"$T/expected") samples"
  stop_receivers
}

story prometheus /api/v1/import/prometheus prometheus
grep -q '^pve_network_receive_bytes_total{id="lxc/101"}	' "$T/got" || fail "no counter"
grep -q '^pve_network_receive_bytes{id="lxc/101"}	' "$T/got" || fail "no deprecated gauge"
awk -F'\t' '$1 ~ /_total\{/ {
  if ($1 == s && $3 + 0 < v + 0) { print "decreases: " $0; bad = 1 }
  s = $1; v = $3 } END { exit bad }' "$T/got" || fail "a counter decreased"
ship_check_stall "$T/got" 'pve_pressure_cpu_waiting_seconds_total{id="qemu/100"}'
grep -q '^pve_pressure_memory_stalled_seconds_total{id="node/pve1"}	' "$T/got" ||
  fail "no node stall"
grep -q '^pve_guest_info{id="qemu/100",name="web",node="pve1",template="0",type="qemu"}	' "$T/got" ||
  fail "no pve_guest_info"
story influx /write victoria-influx
grep -q '^system_memhost{host=web,nodename=pve1,object=qemu,vmid=100}	' "$T/got" ||
  fail "no system_memhost of VM 100"
ship_check_stall "$T/got" "system_stallcpusome{host=web,nodename=pve1,object=qemu,vmid=100}"
echo PASS
