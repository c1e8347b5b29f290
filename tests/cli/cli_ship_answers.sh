#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What real stores answer every day, read for what it says, on files
# written through a real rrdcached (ship_fixture.sh), against Debian's
# InfluxDB 1.x, VictoriaMetrics and nginx:
# - a database whose retention policy keeps an hour: InfluxDB 1.x takes
#   the last hour's rows and answers "400 partial write: points beyond
#   retention policy dropped=N": the points dropped are counted exactly,
#   by reason, the cursors go to the end, the rest is in the store;
# - precision=s in the URL: the times are sent in seconds, and land at
#   the rows' times; precisions the stores read differently are refused
#   at start;
# - nginx with client_max_body_size 16k in front of InfluxDB and of
#   VictoriaMetrics: its 413 (an HTML page) halves the batches until they
#   pass, the size is kept, every point lands; --batch-bytes given later
#   wins over the size kept (said), and the 413 it meets is learned again;
# - VictoriaMetrics started with -maxInsertRequestSize=4096: it applies to
#   remote_write only, and the import takes larger bodies whole (no 413);
# - the shipper's own faults: a state it cannot save (said once, the rows
#   still go, said again when it works), and a clock stepped back or
#   forward, which moves no cursor.
# Skipped (77) where a store or nginx is not installed.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${EXPORT_POINTS:?}"

. "$(dirname "$0")/receivers.sh" # T, fail, the stores
. "$(dirname "$0")/ship_fixture.sh"
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || { echo "SKIP: nginx is not installed (Debian's nginx)"; exit 77; }
NGINX_PID=
stop_nginx() {
  [ -z "$NGINX_PID" ] || { kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; }
  NGINX_PID=
}
trap 'stop_nginx; ship_test_end' EXIT

ship_once() { # expected-exit STATE_DIR URL [OPTIONS]: stderr in $T/err
  local want=$1 dir=$2 url=$3 rc=0
  shift 3
  "$PVECG" ship --to "$url" --data-dir "$D" --pve-config-dir "$C" \
    --state-dir "$dir" --once "$@" 2>"$T/err" || rc=$?
  [ "$rc" -eq "$want" ] || fail "ship exit $rc, not $want: $(cat "$T/err")"
}
answers() { awk -v n="$2" '$1 == "answers" { print $n }' "$1"/*.state; }
at_end() { ship_cursors_at_end "$1" || fail "$2: cursors not at the files' last rows: $(cat "$1"/*.state)"; }
influx_query() { curl -sf -XPOST "$INFLUX_URL/query" --data-urlencode "q=$1" >/dev/null || fail "influxdb: $1"; }

# 22 h of rows (to 20 minutes ago): the last hour is in a retention
# policy of an hour.
ship_rows 1300
ship_flush
start_influxdb
influx_query 'CREATE DATABASE "hour" WITH DURATION 1h NAME "hour"'

# ---- a retention policy: 400 partial write ------------------------------
before=$(date +%s)
ship_once 0 "$T/s-rp" "$INFLUX_URL/write?db=hour" --format influx
at_end "$T/s-rp" "retention"
"$EXPORT_POINTS" influx "$INFLUX_URL" hour >"$T/got"
first=$(awk -F '\t' 'NR == 1 || $2 < m { m = $2 } END { print m }' "$T/got")
# InfluxDB 1.6 drops what is older than an hour ago, cut down to its
# shard group's start (an hour)
now=$(date +%s)
[ "$first" -ge $(((before - 3600) / 3600 * 3600)) ] && [ "$first" -le $((now - 3600 + 60)) ] ||
  fail "retention: the first point kept is at $first, an hour ago is $((now - 3600))"
ship_expected influx | awk -F '\t' -v f="$first" '$2 >= f' >"$T/want"
diff "$T/want" "$T/got" >"$T/diff" || fail "retention: the store differs: $(head -5 "$T/diff")"
"$PVECG" export --format influx --vmid 100 --vmid 101 --node pve1 --data-dir "$D" \
  --pve-config-dir "$C" >"$T/lines"
dropped=$(awk -v f="$first" '$NF / 1000000000 < f' "$T/lines" | wc -l)
[ "$dropped" -gt 3000 ] || fail "retention: only $dropped points were old enough to drop"
[ "$(answers "$T/s-rp" 3)" -eq "$dropped" ] ||
  fail "retention: $(answers "$T/s-rp" 3) points counted as dropped, not $dropped"
grep -qx "pvecg ship: $INFLUX_URL/write: the store dropped $dropped points of batches it took: partial write: points beyond retention policy dropped=[0-9]*" \
  "$T/err" || fail "retention not said: $(cat "$T/err")"
grep -q "away" "$T/err" && fail "a partial write called away: $(cat "$T/err")"

# ---- precision= ---------------------------------------------------------
ship_once 0 "$T/s-prec" "$INFLUX_URL/write?db=pve&precision=s" --format influx
at_end "$T/s-prec" "precision=s"
"$EXPORT_POINTS" influx "$INFLUX_URL" pve >"$T/got"
ship_expected influx >"$T/want"
diff "$T/want" "$T/got" >"$T/diff" || fail "precision=s: the store differs: $(head -5 "$T/diff")"
for p in us h; do
  ship_once 2 "$T/s-bad" "$INFLUX_URL/write?db=pve&precision=$p" --format influx
  grep -q "^pvecg ship: precision=$p: this URL takes n, u, ms or s (InfluxDB 1.x reads \"us\" as nanoseconds; m and h would round the rows' times)$" \
    "$T/err" || fail "precision=$p: $(cat "$T/err")"
done
[ ! -e "$T/s-bad" ] || fail "a refused URL made a state"

# ---- nginx's 413 in front of InfluxDB and VictoriaMetrics ----------------
start_victoria -maxInsertRequestSize=4096
N=$T/nginx
mkdir -p "$N/tmp"
NPORT=$(free_port)
user_line="user $(id -un);"
[ "$(id -u)" -eq 0 ] || user_line=
cat >"$N/nginx.conf" <<CONF
$user_line
worker_processes 1;
pid $N/nginx.pid;
error_log $N/error.log;
events { worker_connections 64; }
http {
  log_format answers '\$status \$request_length \$uri';
  access_log $N/access.log answers;
  client_body_temp_path $N/tmp/body;
  proxy_temp_path $N/tmp/proxy;
  fastcgi_temp_path $N/tmp/fastcgi;
  uwsgi_temp_path $N/tmp/uwsgi;
  scgi_temp_path $N/tmp/scgi;
  client_max_body_size 16k;
  client_body_buffer_size 16k;
  server {
    listen 127.0.0.1:$NPORT;
    location /influx/ { proxy_pass ${INFLUX_URL}/; }
    location /victoria/ { proxy_pass ${VICTORIA_URL}/; }
  }
}
CONF
"$NGINX" -p "$N" -c "$N/nginx.conf" -e "$N/error.log" -g 'daemon off;' 2>"$N/stderr.log" &
NGINX_PID=$!
wait_until nginx curl -sf "http://127.0.0.1:$NPORT/influx/ping"
influx_query 'CREATE DATABASE "proxied"'
PROXY=http://127.0.0.1:$NPORT
ship_once 0 "$T/s-413" "$PROXY/influx/write?db=proxied" --format influx
at_end "$T/s-413" "nginx's 413"
"$EXPORT_POINTS" influx "$INFLUX_URL" proxied >"$T/got"
ship_expected influx >"$T/want"
diff "$T/want" "$T/got" >"$T/diff" || fail "nginx's 413: the store differs: $(head -5 "$T/diff")"
cap=$(answers "$T/s-413" 2)
[ "$cap" -gt 0 ] && [ "$cap" -le 16384 ] || fail "nginx's 413: the size kept is $cap"
grep -q "^pvecg ship: $PROXY/influx/write: the store (or a proxy in front of it) refused a request as too large (HTTP 413): batches are cut to $cap bytes" \
  "$T/err" || fail "nginx's 413 not said: $(cat "$T/err")"
n413=$(grep -c "^413 .* /influx/write" "$N/access.log" || true)
[ "$n413" -ge 1 ] && [ "$n413" -le 8 ] || fail "nginx's 413: $n413 refused requests: $(grep -c . "$N/access.log")"
# a new shipper on that state: nothing too large is sent again
ship_rows 5
ship_flush
: >"$N/access.log"
ship_once 0 "$T/s-413" "$PROXY/influx/write?db=proxied" --format influx
[ "$(grep -c "^413 " "$N/access.log" || true)" -eq 0 ] || fail "413 again with the size kept: $(cat "$N/access.log")"
at_end "$T/s-413" "nginx's 413, again"
# --batch-bytes on the command line wins over the size kept: said, the
# larger batches meet nginx's 413 again, which is said and learned again
# (the state without its cursors: every row is sent again).
f=$(ls "$T"/s-413/*.state)
awk '$1 == "end" { print "end 0"; next } $1 != "file"' "$f" >"$f.new"
mv "$f.new" "$f"
: >"$N/access.log"
ship_once 0 "$T/s-413" "$PROXY/influx/write?db=proxied" --format influx --batch-bytes 65536
grep -qx "pvecg ship: --batch-bytes 65536 is used, not the $cap bytes the state kept from a 413; a 413 lowers it again" \
  "$T/err" || fail "--batch-bytes over the size kept: not said: $(cat "$T/err")"
[ "$(grep -c "^413 " "$N/access.log" || true)" -ge 1 ] || fail "--batch-bytes 65536: no larger request: $(cat "$N/access.log")"
[ "$(grep -c "refused a request as too large (HTTP 413): batches are cut to" "$T/err")" -eq 1 ] ||
  fail "--batch-bytes 65536: the 413 not said once: $(cat "$T/err")"
cap2=$(answers "$T/s-413" 2)
[ "$cap2" -gt 0 ] && [ "$cap2" -le 16384 ] || fail "--batch-bytes 65536: the size kept is $cap2"
at_end "$T/s-413" "nginx's 413, --batch-bytes"
"$EXPORT_POINTS" influx "$INFLUX_URL" proxied >"$T/got"
ship_expected influx >"$T/want"
diff "$T/want" "$T/got" >"$T/diff" || fail "--batch-bytes 65536: the store differs: $(head -5 "$T/diff")"

ship_once 0 "$T/s-vm413" "$PROXY/victoria/api/v1/import/prometheus" --format prometheus
at_end "$T/s-vm413" "nginx's 413 before VictoriaMetrics"
[ "$(answers "$T/s-vm413" 2)" -gt 0 ] || fail "nginx's 413 before VictoriaMetrics: no size kept"
curl -sf "$VICTORIA_URL/internal/force_flush" >/dev/null
"$EXPORT_POINTS" --significant 12 victoria "$VICTORIA_URL" >"$T/got"
ship_expected prometheus >/dev/null # rows.json
"$EXPORT_POINTS" --significant 12 expect prometheus "$T/rows.json" "$GUESTS" >"$T/want"
diff "$T/want" "$T/got" >"$T/diff" || fail "VictoriaMetrics behind nginx: the store differs: $(head -5 "$T/diff")"

# VictoriaMetrics' own -maxInsertRequestSize=4096: the import takes a
# 64 KiB request whole (the limit is remote_write's).
: >"$N/access.log"
ship_once 0 "$T/s-vm" "$VICTORIA_URL/api/v1/import/prometheus" --format prometheus --batch-bytes 65536
at_end "$T/s-vm" "VictoriaMetrics"
[ "$(answers "$T/s-vm" 2)" -eq 0 ] || fail "VictoriaMetrics refused a request as too large"

# ---- the shipper's own faults ---------------------------------------------
# A state it cannot save (its temporary file's name taken by a
# directory): said once, the rows still go; said again when it works.
id=$(basename "$T"/s-prec/*.state .state)
mkdir "$T/s-prec/$id.state.tmp"
ship_rows 3
ship_flush
"$PVECG" ship --to "$INFLUX_URL/write?db=pve&precision=s" --format influx --data-dir "$D" \
  --pve-config-dir "$C" --state-dir "$T/s-prec" --interval 1 2>"$T/running" &
SHIPPER=$!
for _ in $(seq 50); do grep -q "shipping goes on" "$T/running" && break; sleep 0.1; done
ship_rows 2
ship_flush
ship_expected influx >"$T/want"
all_in() { "$EXPORT_POINTS" influx "$INFLUX_URL" pve >"$T/got" && diff -q "$T/want" "$T/got"; }
wait_until "the rows going on while the state is not saved" all_in
sleep 1.5 # more passes that cannot save: still one line
[ "$(grep -c "shipping goes on with the state in memory" "$T/running")" -eq 1 ] ||
  fail "a state not saved: $(cat "$T/running")"
rmdir "$T/s-prec/$id.state.tmp"
ship_rows 1
ship_flush
for _ in $(seq 50); do grep -q "is saved again" "$T/running" && break; sleep 0.1; done
grep -qx "pvecg ship: $T/s-prec/$id.state is saved again" "$T/running" || fail "saved again: $(cat "$T/running")"
# the first save that works may come from a pass before the last row was
# flushed: the next pass ships it
wait_until "the last row's cursor" ship_cursors_at_end "$T/s-prec"
kill "$SHIPPER"
wait "$SHIPPER" || true
SHIPPER=
at_end "$T/s-prec" "after the state was saved again"

# A clock stepped back a day, or forward a year: no cursor moves.
command -v faketime >/dev/null || fail "faketime is not installed (Debian's faketime)"
cp "$T"/s-prec/*.state "$T/before"
for step in -1d +365d; do
  faketime -f "$step" "$PVECG" ship --to "$INFLUX_URL/write?db=pve&precision=s" --format influx \
    --data-dir "$D" --pve-config-dir "$C" --state-dir "$T/s-prec" --once 2>"$T/err" ||
    fail "clock $step: $(cat "$T/err")"
  diff <(grep '^file' "$T/before") <(grep '^file' "$T"/s-prec/*.state) >/dev/null ||
    fail "clock $step moved a cursor: $(grep '^file' "$T"/s-prec/*.state)"
done
echo PASS
