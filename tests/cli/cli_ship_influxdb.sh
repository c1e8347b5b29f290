#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg ship into a real InfluxDB 1.x (Debian's influxdb) while the files
# grow through a real rrdcached: the store stopped for hours of rows and
# started again, the shipper killed with -9 in the middle of a backlog and
# started again, a guest added and one removed during the run.  At the
# end every point the store holds equals, series, time and value, what
# Proxmox's names make of `pvecg export --format json` of the same files
# (counters included: they go on across the outage and the restart, with
# no reset), and each counter never decreases.  Also: the one line said
# when the store goes away and the one when it is back, a second shipper
# on the same state directory refused, --status, and a guest's cursor
# dropped with its file.  The VM's and the node's stall files go along:
# their counters in seconds, in `system`, 15 s a row for the VM's cpu
# some from 0 through the whole run.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${EXPORT_POINTS:?}"

. "$(dirname "$0")/receivers.sh" # T, fail, the stores
SHIP_STALL=1
. "$(dirname "$0")/ship_fixture.sh" # the files, SHIPPER stopped at exit

S=$T/state
ship() { # background, log to $T/ship.log
  "$PVECG" ship --format influx --to "$INFLUX_URL/write?db=pve" --data-dir "$D" \
    --pve-config-dir "$C" --state-dir "$S" --interval 1 --batch-bytes 4096 \
    --rows-per-round 40 "$@" 2>>"$T/ship.log" &
  SHIPPER=$!
}
points() { "$EXPORT_POINTS" influx "$INFLUX_URL" pve; }

ship_rows 300 # five hours before the shipper starts
start_influxdb
ship
ship_flush
ship_wait_caught_up "$S"

# A second shipper on the same state directory is refused.
set +e
"$PVECG" ship --format influx --to "$INFLUX_URL/write?db=pve" --data-dir "$D" \
  --state-dir "$S" --once 2>"$T/second"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "a second shipper: exit $rc"
grep -qx "pvecg ship: $S is in use by another pvecg ship (pid $SHIPPER)" "$T/second" ||
  fail "second shipper: $(cat "$T/second")"

# The store goes away for three hours of rows, then comes back.
stop_pid "$INFLUX_PID"
for _ in $(seq 6); do ship_rows 30; sleep 0.5; done
ship_flush
for _ in $(seq 100); do grep -q "the store is away" "$T/ship.log" && break; sleep 0.1; done
sleep 2 # more passes while it is away: still one line
grep -c "the store is away" "$T/ship.log" >"$T/n" || true
[ "$(cat "$T/n")" -eq 1 ] || fail "away lines: $(cat "$T/ship.log")"
restart_influxdb
ship_add_guest
ship_rows 20
ship_flush
ship_wait_caught_up "$S"
grep -Eq "^pvecg ship: http://127.0.0.1:[0-9]+/write: the store is back after [0-9]+ s; [0-9]+ rows caught up$" \
  "$T/ship.log" || fail "no line for the store's return: $(cat "$T/ship.log")"

# kill -9 in the middle of a backlog: a restart sends what was not
# acknowledged, from the saved cursors and counters.
cursor100() { awk '$1 == "file" && $2 == "pve-vm-9.0/100" { print $6 }' "$S"/*.state; }
kill -STOP "$SHIPPER"
ship_rows 400
ship_flush
before=$(cursor100)
kill -CONT "$SHIPPER"
for _ in $(seq 500); do [ "$(cursor100)" != "$before" ] && break; sleep 0.01; done
kill -KILL "$SHIPPER"
wait "$SHIPPER" 2>/dev/null || true
partial=$(cursor100)
[ "$partial" -gt "$before" ] || fail "the shipper made no progress before -9"
last=$(rrdtool lastupdate "$D/pve-vm-9.0/100" | awk 'NR == 3 { sub(":", "", $1); print $1 }')
[ "$partial" -lt "$last" ] || { tail -5 "$T/ship.log"; cat "$S"/*.state; fail "the shipper was not killed mid-backlog ($partial, $last, $before)"; }
ship
ship_rows 10
ship_flush
ship_wait_caught_up "$S"

# A guest goes: its points stay in the store, its cursor goes.
ship_expected influx | grep 'vmid=101 ' >"$T/expected101"
ship_remove_guest 101
ship_rows 10
ship_flush
ship_wait_caught_up "$S"
kill "$SHIPPER"
wait "$SHIPPER" || fail "the shipper's exit after SIGTERM: $?"
SHIPPER=
grep -qx "pvecg ship: pve-vm-9.0/101: gone; its cursor is dropped" "$T/ship.log" ||
  fail "no line for the removed guest: $(cat "$T/ship.log")"
grep -q "pve-vm-9.0/101" "$S"/*.state && fail "101 is still in the state"

ship_expected influx >"$T/expected"
points >"$T/all"
grep -v 'vmid=101 ' "$T/all" >"$T/got" || true
diff "$T/expected" "$T/got" >"$T/diff" || { head "$T/diff"; fail "points differ"; }
grep 'vmid=101 ' "$T/all" >"$T/got101" || true
diff "$T/expected101" "$T/got101" >/dev/null || fail "the removed guest's points differ"
[ "$(wc -l <"$T/expected")" -gt 20000 ] || fail "only $(wc -l <"$T/expected") points"
# Counters never go back, whatever happened on the way.
awk -F'\t' '$1 ~ / (netin|netout|diskread|diskwrite|receive|transmit|stall[a-z]+)$/ {
  if ($1 == s && $3 + 0 < v + 0) { print "decreases: " $0; bad = 1 }
  s = $1; v = $3 } END { exit bad }' "$T/all" || fail "a counter decreased"
ship_check_stall "$T/all" "system,host=web,nodename=pve1,object=qemu,vmid=100 stallcpusome"
grep -q '^system,host=pve1,object=nodes stallmemoryfull	' "$T/all" || fail "no node stall"

"$PVECG" ship --status --state-dir "$S" >"$T/status"
grep -Eqx "http://127.0.0.1:[0-9]+/write \(state [0-9a-f]{16}\)" "$T/status" ||
  fail "status: $(cat "$T/status")"
grep -qx "  lag            0 s" "$T/status" || fail "status: $(cat "$T/status")"
grep -qx "  files          5" "$T/status" || fail "status: $(cat "$T/status")"

# The same totals for Prometheus, in pvecg serve's /metrics.
port=$(free_port)
"$PVECG" serve --listen "127.0.0.1:$port" --data-dir "$D" --pve-config-dir "$C" \
  --ship-state-dir "$S" 2>"$T/serve.log" &
SERVE=$!
wait_until "pvecg serve" curl -sf "http://127.0.0.1:$port/metrics"
curl -sf "http://127.0.0.1:$port/metrics" >"$T/metrics"
curl -sf -H 'Accept: application/openmetrics-text; version=1.0.0' \
  "http://127.0.0.1:$port/metrics" >"$T/metrics.om"
kill "$SERVE"
wait "$SERVE" 2>/dev/null || true
id=$(basename "$S"/*.state .state)
target="http://127.0.0.1:${INFLUX_URL##*:}/write"
sent=$(awk '$1 == "stats" { print $2 }' "$S"/*.state)
grep -qx "pvecg_ship_lag_seconds{target=\"$target\",state=\"$id\"} 0" "$T/metrics" ||
  fail "no lag in /metrics: $(grep pvecg_ship "$T/metrics")"
grep -qx "pvecg_ship_rows_sent_total{target=\"$target\",state=\"$id\"} $sent" "$T/metrics" ||
  fail "rows sent in /metrics: $(grep pvecg_ship_rows "$T/metrics"), not $sent"
grep -qx "pvecg_ship_files{target=\"$target\",state=\"$id\"} 5" "$T/metrics" ||
  fail "files in /metrics"
if command -v promtool >/dev/null; then
  promtool check metrics <"$T/metrics" >"$T/promtool" 2>&1 || fail "promtool: $(cat "$T/promtool")"
  [ ! -s "$T/promtool" ] || fail "promtool: $(cat "$T/promtool")"
fi
grep -qx "# TYPE pvecg_ship_rows_sent counter" "$T/metrics.om" || fail "OpenMetrics counter family"
/usr/bin/python3 -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
families = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
samples = {s.name: s.value for s in families["pvecg_ship_rows_sent"].samples}
assert samples["pvecg_ship_rows_sent_total"] == float(sys.argv[2]), samples
' "$T/metrics.om" "$sent" || fail "OpenMetrics: prometheus_client refuses or differs"
echo PASS
