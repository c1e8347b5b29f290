#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg ship --format remote-write into a real Prometheus (Debian's 2.42)
# started with --web.enable-remote-write-receiver and an out-of-order
# window over the files' history, with a tenant header.  The files grow
# through a real rrdcached while the shipper runs; new rows go on the next
# passes; the store is killed for hours of rows and started again on its
# data, the shipper killed with -9 in a backlog and started again.  Every
# sample the store holds then equals, series, time and value, what `pvecg
# export --format openmetrics` says of the same files, and what
# prometheus-pve-exporter's names make of `pvecg export --format json`
# (counters going on across the outage and the kill).
# Then a Prometheus without the window, whose head is at now (it scrapes
# the first one), refuses every sample as "out of bounds": each refused
# sample is counted as too_old in --status, the cursors go to the files'
# ends, the refusal is said once, and a second pass sends nothing again.
# A batch mixing old rows with new ones: the new ones are taken, each in
# the store with its value, the old ones counted as too_old, the cursors
# past both; the next pass ships new rows.
# Last, VictoriaMetrics' /api/v1/write (when installed) takes the same
# history in one pass.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${EXPORT_POINTS:?}"

. "$(dirname "$0")/receivers.sh" # T, fail, the stores
need prometheus prometheus
SHIP_STALL=1
. "$(dirname "$0")/ship_fixture.sh" # the files, SHIPPER stopped at exit

PROMETHEUS_FLAGS=("${PROMETHEUS_RECEIVER[@]}")
mkdir -p "$T/ooo"
printf 'global:\n  scrape_interval: 1h\nstorage:\n  tsdb:\n    out_of_order_time_window: 3d\n' \
  >"$T/ooo/prometheus.yml"
start_prometheus "$T/tsdb" "$T/ooo/prometheus.yml"
STATE=$T/state
TO=$PROMETHEUS_URL/api/v1/write

ship() { # [option...]: the shipper in place of the shell that runs it
  exec "$PVECG" ship --format remote-write --to "$TO" \
    --header 'X-Scope-OrgID: pve' --data-dir "$D" --pve-config-dir "$C" \
    --state-dir "$STATE" --interval 1 --batch-bytes 8192 \
    --rows-per-round 60 "$@" 2>>"$T/ship.log"
}
start_shipper() {
  ship &
  SHIPPER=$!
}
stop_shipper() {
  kill "$SHIPPER"
  wait "$SHIPPER" || fail "the shipper's exit after SIGTERM: $?"
  SHIPPER=
}
cursor() { awk -v k="$1" '$1 == "file" && $2 == k { print $6 }' "$STATE"/*.state; }
metric() { # NAME: its value in --status --prometheus (the one target)
  "$PVECG" ship --status --prometheus --state-dir "$STATE" |
    awk -v n="$1" 'index($1, n "{") == 1 || $1 == n { print $2 }'
}

# What the store must hold: the OpenMetrics export of the same files, and
# the names' own statement from the JSON rows; both the same.
expected() {
  "$PVECG" export --format openmetrics --all --data-dir "$D" \
    --pve-config-dir "$C" >"$T/om" 2>"$T/om.err" || fail "export: $(cat "$T/om.err")"
  "$EXPORT_POINTS" openmetrics "$T/om" >"$T/expected"
  ship_expected prometheus >"$T/stated"
  diff "$T/stated" "$T/expected" >"$T/diff" ||
    { head "$T/diff"; fail "the OpenMetrics export is not the names' statement"; }
}
read_back() { # URL
  "$EXPORT_POINTS" prometheus "$1" "$(date +%s)" >"$T/got"
}

# The first rows, then new ones: each shipped on a later pass.
start_shipper
ship_rows 100
ship_flush
ship_wait_caught_up "$STATE"
ship_rows 30
ship_flush
ship_wait_caught_up "$STATE"
expected
read_back "$PROMETHEUS_URL"
diff "$T/expected" "$T/got" >"$T/diff" || { head "$T/diff"; fail "after new rows: samples differ"; }

# The store killed while rows come, started again on its data and port.
kill -KILL "$PROMETHEUS_PID"
wait "$PROMETHEUS_PID" 2>/dev/null || true
for _ in $(seq 4); do ship_rows 40; sleep 0.3; done
ship_flush
ship_wait_away "$STATE" "the store"
restart_prometheus
ship_wait_caught_up "$STATE"

# The shipper killed with -9 in a backlog, started again: it goes on from
# its saved cursors.
kill -STOP "$SHIPPER"
ship_rows 250
ship_flush
before=$(cursor pve-vm-9.0/100)
kill -CONT "$SHIPPER"
for _ in $(seq 500); do
  [ "$(cursor pve-vm-9.0/100)" != "$before" ] && break
  sleep 0.01
done
kill -KILL "$SHIPPER"
wait "$SHIPPER" 2>/dev/null || true
after_kill=$(cursor pve-vm-9.0/100)
[ "$after_kill" -gt "$before" ] || fail "no cursor saved before the kill"
start_shipper
ship_wait_caught_up "$STATE"
stop_shipper

expected
read_back "$PROMETHEUS_URL"
diff "$T/expected" "$T/got" >"$T/diff" || { head "$T/diff"; fail "samples differ"; }
samples=$(wc -l <"$T/expected")
[ "$samples" -gt 10000 ] || fail "only $samples samples"
[ -z "$(cut -f1,2 "$T/got" | sort | uniq -d | head -1)" ] || fail "a sample twice"
grep -q '^pve_network_receive_bytes_total{id="lxc/101"}	' "$T/got" || fail "no counter"
grep -q '^pve_guest_info{id="qemu/100",name="web",node="pve1",template="0",type="qemu"}	' "$T/got" ||
  fail "no pve_guest_info"
ship_check_stall "$T/got" 'pve_pressure_cpu_waiting_seconds_total{id="qemu/100"}'
# Every sample went in a request the store took (those of the batch in
# flight at the kill perhaps twice); none was refused.
sent=$(metric pvecg_ship_samples_sent_total)
[ "$sent" -ge "$samples" ] || fail "$sent samples sent, fewer than $samples"
[ "$(metric pvecg_ship_samples_refused_total | sort -u)" == 0 ] ||
  fail "samples refused: $(metric pvecg_ship_samples_refused_total)"
"$PVECG" ship --status --state-dir "$STATE" >"$T/status"
grep -q "^  samples  *$sent taken, 0 refused: too_old 0, out_of_order 0, duplicate 0, other 0" "$T/status" ||
  fail "--status: $(cat "$T/status")"

# A Prometheus without the window, its head at now: it scrapes the first
# one every second.  Every sample of the history is refused.
FIRST=${PROMETHEUS_URL#http://}
mkdir -p "$T/plain"
printf 'global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: first\n    static_configs:\n      - targets: ["%s"]\n' \
  "$FIRST" >"$T/plain/prometheus.yml"
PROMETHEUS_FLAGS=(--web.enable-remote-write-receiver) # 2-hour blocks
start_prometheus "$T/tsdb-plain" "$T/plain/prometheus.yml"
wait_until "a scrape" sh -c "curl -sf '$PROMETHEUS_URL/api/v1/query?query=up' | grep -q '\"value\"'"
STATE=$T/state-plain
TO=$PROMETHEUS_URL/api/v1/write
: >"$T/ship.log"
(ship --once) || fail "the refusing pass: $? $(cat "$T/ship.log")"
[ "$(metric pvecg_ship_samples_sent_total)" == 0 ] || fail "samples taken by the refusing store"
refused=$("$PVECG" ship --status --prometheus --state-dir "$STATE" |
  sed -n 's/^pvecg_ship_samples_refused_total{.*reason="too_old"} //p')
[ "$refused" == "$samples" ] || fail "$refused samples refused as too_old, not $samples"
ship_cursors_at_end "$STATE" || fail "the cursors did not pass the refused rows: $(cat "$STATE"/*.state)"
[ "$(grep -c 'the store refused requests of' "$T/ship.log")" == 1 ] ||
  fail "the refusal not said once: $(cat "$T/ship.log")"
grep -q "the store refused requests of $samples samples: .*out of bounds" "$T/ship.log" ||
  fail "the refusal's line: $(cat "$T/ship.log")"
"$PVECG" ship --status --state-dir "$STATE" >"$T/status"
grep -q "^  samples  *0 taken, $samples refused: too_old $samples, out_of_order 0, duplicate 0, other 0" "$T/status" ||
  fail "--status: $(cat "$T/status")"
# Nothing is sent again.
(ship --once) || fail "the second pass: $?"
[ "$(metric pvecg_ship_samples_refused_total | sort -rn | head -1)" == "$samples" ] ||
  fail "refused rows sent again"
[ "$(grep -c 'the store refused requests of' "$T/ship.log")" == 1 ] || fail "said again"

# One batch of a VM's rows older than the head's hour (refused: out of
# bounds) and a container's new rows: the request goes again in halves (a
# unit per file: 3 requests, by the store's own count), the old rows
# counted as too_old, every new sample is in the store with its value,
# both cursors pass their rows; the next pass ships the container's next
# rows in one request.
MIX=$T/mix
mkdir -p "$MIX/pve-vm-9.0"
NOW_MIN=$(($(date +%s) / 60 * 60))
mix_rows() { # VMID FROM ROWS: ROWS minute rows from FROM on
  awk -v t0="$2" -v n="$3" 'BEGIN {
    for (k = 0; k < n; k++)
      printf "%d:2:%.3f:4294967296:%.1f:U:U:U:U:U:U:U:%.2f:0:U:U:U:U\n",
        t0 + 60 * k, (k % 8) / 8, 1048576 * k + 0.5, (k % 9) * 1.25
  }' | xargs -n 20 rrdtool update "$MIX/pve-vm-9.0/$1"
}
for vm in 100 101; do
  # shellcheck disable=SC2046 # one definition per line
  rrdtool create "$MIX/pve-vm-9.0/$vm" --start $((NOW_MIN - 4 * 3600)) \
    --step 60 $("$LAYOUT_DEFS" pve-vm-9.0)
done
mix_rows 100 $((NOW_MIN - 3 * 3600)) 30
mix_rows 101 $((NOW_MIN - 40 * 60)) 25
mix_ship() {
  "$PVECG" ship --once --format remote-write --to "$TO" --data-dir "$MIX" \
    --pve-config-dir "$C" --state-dir "$STATE" --since $((NOW_MIN - 4 * 3600)) \
    --batch-bytes 4000000 2>>"$T/ship.log"
}
mix_expected() { # the samples of the files, by VM: $T/mix-100, $T/mix-101
  "$PVECG" export --format openmetrics --all --data-dir "$MIX" \
    --pve-config-dir "$C" >"$T/mix.om" 2>"$T/om.err" || fail "export: $(cat "$T/om.err")"
  "$EXPORT_POINTS" openmetrics "$T/mix.om" >"$T/mix.points"
  grep 'id="qemu/100"' "$T/mix.points" >"$T/mix-100" || fail "no old rows"
  grep -v 'id="qemu/100"' "$T/mix.points" >"$T/mix-101" || fail "no new rows"
}
mix_cursors_at_end() {
  local vm last
  for vm in 100 101; do
    last=$(rrdtool lastupdate "$MIX/pve-vm-9.0/$vm" | awk 'NR == 3 { sub(":", "", $1); print $1 }')
    [ "$(cursor "pve-vm-9.0/$vm")" == "$last" ] ||
      fail "pve-vm-9.0/$vm: cursor $(cursor "pve-vm-9.0/$vm"), not $last"
  done
}
write_requests() { # answered by the store so far, by its own count
  curl -sf "$PROMETHEUS_URL/metrics" |
    awk '/^prometheus_http_requests_total\{.*handler="\/api\/v1\/write"/ { n += $2 } END { print n + 0 }'
}
mix_pass() { # REQUESTS: a pass costing that many, the new rows read back
  local before
  mix_expected
  before=$(write_requests)
  mix_ship || fail "a mixed pass: $? $(cat "$T/ship.log")"
  [ $(($(write_requests) - before)) == "$1" ] ||
    fail "$(($(write_requests) - before)) requests, not $1"
  read_back "$PROMETHEUS_URL"
  diff "$T/mix-101" "$T/got" >"$T/diff" || { head "$T/diff"; fail "the new rows differ"; }
  [ "$(metric pvecg_ship_samples_sent_total)" == "$(wc -l <"$T/mix-101")" ] ||
    fail "$(metric pvecg_ship_samples_sent_total) samples sent, not $(wc -l <"$T/mix-101")"
  mix_cursors_at_end
}
STATE=$T/state-mix
: >"$T/ship.log"
# the whole request, the old file's rows alone, the new file's rows
mix_pass 3
old=$(wc -l <"$T/mix-100")
new=$(wc -l <"$T/mix-101")
"$PVECG" ship --status --state-dir "$STATE" >"$T/status"
grep -q "^  samples  *$new taken, $old refused: too_old $old, out_of_order 0, duplicate 0, other 0" "$T/status" ||
  fail "--status: $(cat "$T/status")"
refused=$("$PVECG" ship --status --prometheus --state-dir "$STATE" |
  sed -n 's/^pvecg_ship_samples_refused_total{.*reason="too_old"} //p')
[ "$refused" == "$old" ] || fail "$refused samples refused as too_old, not $old"
grep -q "pve-vm-9.0/100: $old samples of its rows were refused: out of bounds" "$T/ship.log" ||
  fail "the old file not named: $(cat "$T/ship.log")"
mix_rows 101 $((NOW_MIN - 15 * 60)) 5
mix_pass 1
[ "$(metric pvecg_ship_samples_refused_total | sort -rn | head -1)" == "$old" ] ||
  fail "old rows sent again"
stop_receivers

# The same history into VictoriaMetrics' /api/v1/write in one pass: every
# sample taken once, as the export says it (to its 12 digits).
if command -v victoria-metrics >/dev/null; then
  start_victoria
  STATE=$T/state-victoria
  TO=$VICTORIA_URL/api/v1/write
  (ship --once) || fail "into VictoriaMetrics: $? $(cat "$T/ship.log")"
  [ "$(metric pvecg_ship_samples_sent_total)" == "$samples" ] ||
    fail "$(metric pvecg_ship_samples_sent_total) samples sent, not $samples"
  curl -sf "$VICTORIA_URL/internal/force_flush" >/dev/null
  "$EXPORT_POINTS" --significant 12 victoria "$VICTORIA_URL" >"$T/got"
  "$EXPORT_POINTS" --significant 12 openmetrics "$T/om" >"$T/expected"
  diff "$T/expected" "$T/got" >"$T/diff" ||
    { head "$T/diff"; fail "VictoriaMetrics: samples differ"; }
fi
echo PASS
