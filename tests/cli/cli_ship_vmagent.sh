#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg ship --format remote-write through vmagent (Debian's, from the
# victoria-metrics package) into VictoriaMetrics: the shape of a fleet,
# agents in front of a store.  vmagent takes remote write at /api/v1/write
# and relays it with its own on-disk queue.  The files grow through a real
# rrdcached while the shipper runs; VictoriaMetrics is stopped for hours of
# rows (vmagent keeps taking them) and started again on its data; then
# vmagent is stopped (the shipper finds it away and waits) and started again
# on its queue.  Stopped, not killed: both keep what they took in memory
# for a second or more before it is on disk, so a kill -9 loses samples
# they had acknowledged -- their limit, not one a sender can see.  In the end the store holds every sample, each
# once, equal (to 12 digits) to what `pvecg export --format openmetrics`
# says of the same files, and the shipper counted none refused.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${EXPORT_POINTS:?}"

. "$(dirname "$0")/receivers.sh" # T, fail, the stores
need vmagent victoria-metrics
SHIP_STALL=1
. "$(dirname "$0")/ship_fixture.sh" # the files, SHIPPER stopped at exit

start_victoria
AGENT_PORT=$(free_port)
AGENT_URL=http://127.0.0.1:$AGENT_PORT
start_vmagent() {
  vmagent -httpListenAddr="127.0.0.1:$AGENT_PORT" \
    -remoteWrite.url="$VICTORIA_URL/api/v1/write" \
    -remoteWrite.tmpDataPath="$T/vmagent-queue" -loggerLevel=ERROR \
    >>"$T/vmagent.log" 2>&1 &
  AGENT_PID=$!
  RECEIVER_PIDS+=($!)
  wait_until vmagent curl -sf "$AGENT_URL/health"
}
start_vmagent
STATE=$T/state

start_shipper() {
  "$PVECG" ship --format remote-write --to "$AGENT_URL/api/v1/write" \
    --data-dir "$D" --pve-config-dir "$C" --state-dir "$STATE" \
    --interval 1 --batch-bytes 8192 --rows-per-round 60 2>>"$T/ship.log" &
  SHIPPER=$!
}
metric() { # NAME: its value in --status --prometheus (the one target)
  "$PVECG" ship --status --prometheus --state-dir "$STATE" |
    awk -v n="$1" 'index($1, n "{") == 1 || $1 == n { print $2 }'
}
# Until VictoriaMetrics holds every sample the export names (vmagent
# relays within a second or two of taking them, and again after an outage).
read_back_all() {
  local want
  "$PVECG" export --format openmetrics --all --data-dir "$D" \
    --pve-config-dir "$C" >"$T/om" 2>"$T/om.err" || fail "export: $(cat "$T/om.err")"
  "$EXPORT_POINTS" --significant 12 openmetrics "$T/om" >"$T/expected"
  want=$(wc -l <"$T/expected")
  for _ in $(seq 120); do
    curl -sf "$VICTORIA_URL/internal/force_flush" >/dev/null
    "$EXPORT_POINTS" --significant 12 victoria "$VICTORIA_URL" >"$T/got"
    [ "$(wc -l <"$T/got")" -ge "$want" ] && break
    sleep 0.5
  done
  diff "$T/expected" "$T/got" >"$T/diff" || { head "$T/diff"; fail "$1: samples differ"; }
}

start_shipper
ship_rows 100
ship_flush
ship_wait_caught_up "$STATE"
read_back_all "first rows"

# The store stopped while rows come: vmagent takes them all the same.
stop_pid "$VICTORIA_PID"
for _ in $(seq 4); do ship_rows 40; sleep 0.3; done
ship_flush
ship_wait_caught_up "$STATE"
[ "$(metric pvecg_ship_store_condition | sed -n 2p)" == 0 ] ||
  fail "the shipper saw the store behind vmagent away"
restart_victoria

# vmagent stopped: the shipper finds its target away, then goes on.
stop_pid "$AGENT_PID"
ship_rows 60
ship_flush
ship_wait_away "$STATE" vmagent
start_vmagent
ship_wait_caught_up "$STATE"
kill "$SHIPPER"
wait "$SHIPPER" || fail "the shipper's exit after SIGTERM: $?"
SHIPPER=

read_back_all "after the outages"
samples=$(wc -l <"$T/expected")
[ "$samples" -gt 5000 ] || fail "only $samples samples"
[ -z "$(cut -f1,2 "$T/got" | sort | uniq -d | head -1)" ] || fail "a sample twice"
ship_check_stall "$T/got" 'pve_pressure_cpu_waiting_seconds_total{id="qemu/100"}'
sent=$(metric pvecg_ship_samples_sent_total)
[ "$sent" -ge "$samples" ] || fail "$sent samples sent, fewer than $samples"
[ "$(metric pvecg_ship_samples_refused_total | sort -u)" == 0 ] ||
  fail "samples refused: $(metric pvecg_ship_samples_refused_total)"
echo PASS
