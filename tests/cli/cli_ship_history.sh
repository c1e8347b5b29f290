#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg ship --format remote-write carries three days of history from
# real RRD files (export_fixture.sh: minute and 30-minute rows, a legacy
# file, pvecg's KSM and stall files) into each remote write engine of
# Debian: Prometheus 2.42 with a 30-day out-of-order window,
# VictoriaMetrics 1.79, and vmagent 1.79 relaying into a fresh
# VictoriaMetrics.  Each engine's query API then gives back, series, time
# and value (to the 12 digits VictoriaMetrics keeps), what `pvecg export
# --format json` says of the same files, counters included, and the
# shipper counts exactly those samples sent.  The shipper takes every
# file of the data directory: the guest no configuration names waits,
# as the export leaves it out.  Into VictoriaMetrics the shipper is
# killed with -9 in mid-history, the store stopped and started again on
# its data under a second shipper: the end is the same, every sample once.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${EXPORT_POINTS:?}"

. "$(dirname "$0")/receivers.sh" # T, fail, the stores
need prometheus prometheus
need victoria-metrics victoria-metrics
need vmagent victoria-metrics
. "$(dirname "$0")/export_fixture.sh"

SHIPPER=
trap '[ -z "$SHIPPER" ] || kill -KILL "$SHIPPER" 2>/dev/null; stop_receivers; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

ship() { # URL STATE_DIR [option...]: the shipper in place of the shell
  # that runs it, its stderr in $T/ship.log
  local url=$1 state=$2
  shift 2
  exec "$PVECG" ship --format remote-write --to "$url" --data-dir "$D" \
    --pve-config-dir "$C" --state-dir "$state" "$@" 2>>"$T/ship.log"
}
ship_once() { # URL STATE_DIR: one whole pass
  (ship "$1" "$2" --once --batch-bytes 65536) ||
    fail "ship --once to $1: $? $(cat "$T/ship.log")"
}
metric() { # STATE_DIR NAME: its value in --status --prometheus
  "$PVECG" ship --status --prometheus --state-dir "$1" |
    awk -v n="$2" 'index($1, n "{") == 1 || $1 == n { print $2 }'
}
sent_is() { # STATE_DIR SAMPLES: the shipper counted exactly SAMPLES taken
  local sent
  sent=$(metric "$1" pvecg_ship_samples_sent_total)
  [ "$sent" == "$2" ] || fail "$1: $sent samples sent, not $2"
  [ "$(metric "$1" pvecg_ship_samples_refused_total | sort -u)" == 0 ] ||
    fail "$1: samples refused: $(metric "$1" pvecg_ship_samples_refused_total)"
}
victoria_points() { # the store's samples, to 12 digits, in $T/got
  curl -sf "$VICTORIA_URL/internal/force_flush" >/dev/null
  "$EXPORT_POINTS" --significant 12 victoria "$VICTORIA_URL" >"$T/got"
}
same() { # WHAT EXPECTED: $T/got holds EXPECTED's samples, each once
  [ -z "$(cut -f1,2 "$T/got" | sort | uniq -d | head -1)" ] ||
    fail "$1: a sample twice: $(cut -f1,2 "$T/got" | sort | uniq -d | head -1)"
  diff "$2" "$T/got" >"$T/diff" || { head "$T/diff"; fail "$1: samples differ"; }
}

# What every engine must hold: the JSON rows of the guests 100, 101 and
# the node, in prometheus-pve-exporter's names.
expected_points prometheus >"$T/expected"
"$EXPORT_POINTS" --significant 12 expect prometheus "$T/rows.json" "$GUESTS" >"$T/expected12"
samples=$(wc -l <"$T/expected")
[ "$samples" -gt 20000 ] || fail "only $samples samples expected"

# The shipper takes every file of the data directory, which is the same
# set: the legacy file of 101 goes first under the cursor of its 9.0 file
# (as the export reads it), and guest 102, which no configuration names,
# waits at cursor 0, said once by each shipper.
files_are() { # STATE_DIR: the files of the state, 102 not shipped
  printf '%s\n' pve-node-9.0/pve1 pve-vm-9.0/100 pve-vm-9.0/101 pve-vm-9.0/102 \
    pvecg-ksm-node-1.0/pve1 pvecg-ksm-vm-1.0/100 pvecg-pressure-node-1.0/pve1 \
    pvecg-pressure-vm-1.0/100 >"$T/files"
  awk '$1 == "file" { print $2 }' "$1"/*.state | sort | diff "$T/files" - >"$T/diff" ||
    fail "$1: the files shipped: $(cat "$T/diff")"
  [ "$(awk '$1 == "file" && $2 == "pve-vm-9.0/102" { print $5, $6 }' "$1"/*.state)" == "0 0" ] ||
    fail "$1: guest 102 shipped: $(cat "$1"/*.state)"
}
said_102() { # SHIPPERS: the ship log names 102 once for each
  [ "$(grep -c '^pvecg ship: pve-vm-9.0/102: no guest configuration says whether 102 is a VM or a container' "$T/ship.log")" == "$1" ] ||
    fail "102 not said $1 times: $(cat "$T/ship.log")"
}

# Prometheus, with an out-of-order window over the history.
PROMETHEUS_FLAGS=("${PROMETHEUS_RECEIVER[@]}")
mkdir -p "$T/ooo"
printf 'global:\n  scrape_interval: 1h\nstorage:\n  tsdb:\n    out_of_order_time_window: 30d\n' \
  >"$T/ooo/prometheus.yml"
start_prometheus "$T/tsdb" "$T/ooo/prometheus.yml"
: >"$T/ship.log"
ship_once "$PROMETHEUS_URL/api/v1/write" "$T/state-prometheus"
said_102 1
files_are "$T/state-prometheus"
"$EXPORT_POINTS" prometheus "$PROMETHEUS_URL" "$NOW" >"$T/got"
same Prometheus "$T/expected"
sent_is "$T/state-prometheus" "$samples"
# KSM of the VM: row 50's profit is 4096 * 50 - 300000 bytes; its zero
# pages unknown at every tenth row, so none there.
grep -qx 'pve_ksm_profit_bytes{id="qemu/100"}	'"$((TK + 60 * 50))"'	-95200.0' "$T/got" ||
  fail "no KSM profit of VM 100 at row 50"
grep -qx 'pve_ksm_merging_pages{id="qemu/100"}	'"$((TK + 60 * 120))"'	120000.0' "$T/got" ||
  fail "no KSM merging pages of VM 100 at row 120"
grep -q '^pve_ksm_zero_pages{id="qemu/100"}	'"$((TK + 60 * 40))"'	' "$T/got" &&
  fail "KSM zero pages of VM 100 where its row is unknown"
grep -qx 'pve_ksm_zero_pages{id="qemu/100"}	'"$((TK + 60 * 41))"'	41.0' "$T/got" ||
  fail "no KSM zero pages of VM 100 at row 41"
check_stall "$T/got" 'pve_pressure_cpu_waiting_seconds_total{id="qemu/100"}' \
  'pve_pressure_memory_waiting_seconds_total{id="node/pve1"}' \
  'pve_pressure_io_stalled_seconds_total{id="qemu/100"}'
grep -q '^pve_guest_info{id="lxc/101",name="ct1",node="pve2",template="0",type="lxc"}	'"$((TL + 60))"'	1.0$' "$T/got" ||
  fail "no pve_guest_info of container 101 at its legacy file's first row"
stop_pid "$PROMETHEUS_PID"

# VictoriaMetrics: a shipper of small batches killed with -9 once it has
# acknowledged some of the history, the store stopped and started again
# on its data under a second shipper (away, then taking), that one
# stopped with SIGTERM once it took more, the rest in one pass.  A
# shipper runs 5 ms at a time (SIGSTOP, SIGCONT) and is looked at while
# stopped, so the history is not all sent when it is told to end.
# shellcheck disable=SC2119 # a store of the default arguments
start_victoria
STATE=$T/state-victoria
TO=$VICTORIA_URL/api/v1/write
start_shipper() { # stopped at once
  ship "$TO" "$STATE" --interval 1 --batch-bytes 2048 --rows-per-round 60 &
  SHIPPER=$!
  kill -STOP "$SHIPPER"
}
step_until() { # MORE: SENT, once more than MORE samples are sent, stopped
  for _ in $(seq 3000); do
    kill -CONT "$SHIPPER"
    sleep 0.005
    kill -STOP "$SHIPPER" 2>/dev/null || fail "the shipper ended: $(cat "$T/ship.log")"
    SENT=$(metric "$STATE" pvecg_ship_samples_sent_total 2>/dev/null || true)
    [ "${SENT:-0}" -gt "$1" ] && return
  done
  fail "no more than $1 samples sent in 3000 steps"
}
end_shipper() { # SIGNAL: STATUS, SENT
  kill "-$1" "$SHIPPER"
  kill -CONT "$SHIPPER" 2>/dev/null || true # after -9: gone, may be reaped
  STATUS=0
  wait "$SHIPPER" 2>/dev/null || STATUS=$?
  SHIPPER=
  SENT=$(metric "$STATE" pvecg_ship_samples_sent_total)
}
: >"$T/ship.log"
start_shipper
step_until 0
[ "$SENT" -lt "$samples" ] || fail "all $SENT samples sent in the first steps"
end_shipper KILL
[ "$STATUS" == 137 ] || fail "the shipper's exit after -9: $STATUS"
killed_at=$SENT
stop_pid "$VICTORIA_PID"
start_shipper
kill -CONT "$SHIPPER"
for _ in $(seq 100); do
  [ "$(metric "$STATE" pvecg_ship_store_condition | sed -n 2p)" == 1 ] && break
  sleep 0.1
done
kill -STOP "$SHIPPER"
status=$("$PVECG" ship --status --state-dir "$STATE")
grep -q 'store *away' <<<"$status" || fail "VictoriaMetrics not away in --status: $status"
[ "$(metric "$STATE" pvecg_ship_samples_sent_total)" == "$killed_at" ] ||
  fail "samples sent while the store was away"
restart_victoria
step_until "$killed_at"
[ "$SENT" -lt "$samples" ] || fail "all $SENT samples sent in the steps after the restart"
end_shipper TERM
[ "$STATUS" == 0 ] || fail "the shipper's exit after SIGTERM: $STATUS"
echo "# -9 after $killed_at samples, SIGTERM after $SENT, of $samples"
: >"$T/ship.log" # the others may have been stopped before they came to 102
ship_once "$TO" "$STATE"
[ "$(metric "$STATE" pvecg_ship_samples_sent_total)" -gt "$SENT" ] ||
  fail "nothing left for the last pass"
said_102 1
files_are "$STATE"
victoria_points
same VictoriaMetrics "$T/expected12"
sent_is "$STATE" "$samples"
check_stall "$T/got" 'pve_pressure_cpu_waiting_seconds_total{id="qemu/100"}' \
  'pve_pressure_memory_waiting_seconds_total{id="node/pve1"}' \
  'pve_pressure_io_stalled_seconds_total{id="qemu/100"}'
stop_pid "$VICTORIA_PID"

# vmagent in front of a fresh VictoriaMetrics: the shipper's pass is
# acknowledged by vmagent, which relays it within seconds.
# shellcheck disable=SC2119 # a store of the default arguments
start_victoria
AGENT_PORT=$(free_port)
AGENT_URL=http://127.0.0.1:$AGENT_PORT
vmagent -httpListenAddr="127.0.0.1:$AGENT_PORT" \
  -remoteWrite.url="$VICTORIA_URL/api/v1/write" \
  -remoteWrite.tmpDataPath="$T/vmagent-queue" -loggerLevel=ERROR \
  >>"$T/vmagent.log" 2>&1 &
RECEIVER_PIDS+=($!)
wait_until vmagent curl -sf "$AGENT_URL/health"
: >"$T/ship.log"
ship_once "$AGENT_URL/api/v1/write" "$T/state-vmagent"
sent_is "$T/state-vmagent" "$samples"
for _ in $(seq 120); do
  victoria_points
  [ "$(wc -l <"$T/got")" -ge "$samples" ] && break
  sleep 0.5
done
same vmagent "$T/expected12"
said_102 1
files_are "$T/state-vmagent"
echo PASS
