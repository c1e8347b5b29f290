#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg ship and pvecg export into InfluxDB 2.x's write API, which Debian
# does not have: influxdb2_standin.py answers /api/v2/write as InfluxDB
# 2.7's documentation and source say, and keeps what it takes.  Every
# answer is read for what it says, on files written through a real
# rrdcached (ship_fixture.sh):
# - 401 (a wrong token), 404 (no such bucket): the target is refused, said
#   once with its fix, the cursors stay, --once exits 1, --status and its
#   metrics say so; a running shipper backs off (no request storm);
# - 429 with Retry-After: waited for, then taken;
# - 413: halved down to what passes; the size is kept in the state, so the
#   next start sends no request too large;
# - 422 (points beyond the bucket's retention): the rest is in the store,
#   the dropped points counted exactly, by reason, the cursors at the end;
# - 400 naming a line, nothing written: the line is found by halves and
#   skipped alone, named by its file and time; every other point lands;
# - the export takes the same path (--to http://...).
# In each case the store holds exactly once what Proxmox's names make of
# `pvecg export --format json` of the same files, and nothing else.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${EXPORT_POINTS:?}"

. "$(dirname "$0")/receivers.sh" # T, fail
. "$(dirname "$0")/ship_fixture.sh"
STANDIN=
stop_standin() {
  [ -z "$STANDIN" ] || { kill "$STANDIN" 2>/dev/null || true; wait "$STANDIN" 2>/dev/null || true; }
  STANDIN=
}
trap 'stop_standin; ship_test_end' EXIT

standin() { # OPTION...: PORT, URL; $T/log (requests), $T/points (kept)
  stop_standin
  rm -f "$T/port" "$T/log" "$T/points"
  "$(dirname "$0")/influxdb2_standin.py" "$T/port" "$T/log" "$T/points" "$@" &
  STANDIN=$!
  for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
  PORT=$(cat "$T/port")
  URL="http://127.0.0.1:$PORT/api/v2/write?org=pve&bucket=proxmox&precision=s"
  S=$T/state-$PORT # a state directory each: one target's cursors
  touch "$T/log"
}
printf 'secret-token\n' >"$T/token"
ship_once() { # expected-exit [OPTIONS]: stderr in $T/err
  local want=$1 rc=0
  shift
  "$PVECG" ship --format influx --to "$URL" --token-file "$T/token" \
    --data-dir "$D" --pve-config-dir "$C" --state-dir "$S" --once "$@" \
    2>"$T/err" || rc=$?
  [ "$rc" -eq "$want" ] || fail "ship exit $rc, not $want: $(cat "$T/err")"
}
state_file() { ls -t "$S"/*.state | head -1; }
# The answers line: 2 cap, 3..7 dropped by reason, 8 9 skipped (too large,
# unparsable), 10 refused batches, 11 condition.
answers() { awk -v n="$1" '$1 == "answers" { print $n }' "$(state_file)"; }
cursor() { awk -v k="$1" '$1 == "file" && $2 == k { print $6 }' "$(state_file)"; }
requests() { grep -c . "$T/log" || true; }
status_count() { awk -v s="$1" '$3 == s { n++ } END { print n + 0 }' "$T/log"; }
held() { "$EXPORT_POINTS" influx2 "$T/points"; }
at_end() { ship_cursors_at_end "$S" || fail "$1: cursors not at the files' last rows: $(cat "$(state_file)")"; }
same_points() { # WHAT: the store holds exactly the expected points
  ship_expected influx >"$T/want"
  held >"$T/got"
  diff "$T/want" "$T/got" >"$T/diff" ||
    fail "$1: the store differs from the files ($(wc -l <"$T/diff") lines): $(head -5 "$T/diff")"
}

ship_rows 120
ship_flush
SIM0=$((SIM - 60 * 120)) # the time before the first row

# 401: refused at once, said with its fix, nothing moves.
standin --token another-token
ship_once 1
grep -qx "pvecg ship: http://127.0.0.1:$PORT/api/v2/write: the store refuses the rows: a batch: the server answered HTTP 401: unauthorized access; the store refused the token: check --token-file (InfluxDB 2.x: an API token that may write to the bucket); the rows wait behind the cursors, next try in 60 s" \
  "$T/err" || fail "401: $(cat "$T/err")"
grep -q "away" "$T/err" && fail "401 called away: $(cat "$T/err")"
[ "$(requests)" -eq 1 ] || fail "401: $(requests) requests, not 1"
[ "$(cursor pve-vm-9.0/100)" -eq 0 ] || fail "401: a cursor moved"
[ "$(answers 10)" -eq 1 ] && [ "$(answers 11)" -eq 2 ] || fail "401: $(grep answers "$(state_file)")"
grep -qx "refusal [0-9]* 401 unauthorized access" "$(state_file)" || fail "401: $(grep refusal "$(state_file)")"
"$PVECG" ship --status --state-dir "$S" >"$T/status"
grep -q "^  store          refuses the target (the rows wait: see the refusal)$" "$T/status" ||
  fail "401 in --status: $(cat "$T/status")"
grep -q "^                 HTTP 401: unauthorized access$" "$T/status" || fail "401 in --status: $(cat "$T/status")"
"$PVECG" ship --status --prometheus --state-dir "$S" >"$T/metrics"
id=$(basename "$(state_file)" .state)
grep -qx "pvecg_ship_store_condition{target=\"[^\"]*\",state=\"$id\",condition=\"refused\"} 1" "$T/metrics" ||
  fail "401 in the metrics: $(grep condition "$T/metrics")"
grep -qx "pvecg_ship_batches_refused_total{target=\"[^\"]*\",state=\"$id\"} 1" "$T/metrics" ||
  fail "401 in the metrics: $(grep refused "$T/metrics")"

# A running shipper against the same refusal: said once, and backed off
# (1, 2, 4 s...): not a request every pass.
: >"$T/log"
"$PVECG" ship --format influx --to "$URL" --token-file "$T/token" --data-dir "$D" \
  --pve-config-dir "$C" --state-dir "$S" --interval 1 2>"$T/running" &
SHIPPER=$!
sleep 6.5
kill "$SHIPPER"
wait "$SHIPPER" || true
SHIPPER=
[ "$(grep -c "refuses the rows" "$T/running")" -eq 1 ] || fail "refusal said $(grep -c "refuses the rows" "$T/running") times: $(cat "$T/running")"
n=$(requests)
[ "$n" -ge 1 ] && [ "$n" -le 3 ] || fail "a refused target: $n requests in 6.5 s (backed off 1, 2, 4 s: at most 3)"

# 404: no such bucket, with its fix.
standin
URL=${URL/bucket=proxmox/bucket=nosuch}
ship_once 1
grep -q "the server answered HTTP 404: bucket \"nosuch\" not found; nothing to write to at that URL: check its path and the database or bucket and organization it names (db=, bucket=, org=); " \
  "$T/err" || fail "404: $(cat "$T/err")"
[ "$(requests)" -eq 1 ] || fail "404: $(requests) requests"

# 429 with Retry-After: 1, then taken: everything, in one pass.
standin --busy 1
ship_once 0
[ "$(status_count 429)" -eq 1 ] && [ "$(status_count 204)" -ge 1 ] || fail "429: $(cat "$T/log")"
[ "$(awk '$3 != 429 && $3 != 204' "$T/log" | wc -l)" -eq 0 ] || fail "429: $(cat "$T/log")"
at_end 429
same_points 429
[ "$(answers 11)" -eq 0 ] || fail "429: the condition is $(answers 11), not taking"

# 413: halved until it passes; the size is kept, and the next start sends
# nothing too large.
standin --max-body 20000
ship_once 0
at_end 413
same_points 413
cap=$(answers 2)
[ "$cap" -gt 0 ] && [ "$cap" -le 20000 ] || fail "413: the size kept is $cap"
grep -qx "pvecg ship: http://127.0.0.1:$PORT/api/v2/write: the store (or a proxy in front of it) refused a request as too large (HTTP 413): batches are cut to $cap bytes; larger ones (up to 1048576) are tried again after an hour without a 413" \
  "$T/err" || fail "413 not said: $(cat "$T/err")"
n413=$(status_count 413)
[ "$n413" -ge 1 ] && [ "$n413" -le 8 ] || fail "413: $n413 refusals: $(cat "$T/log")"
awk -v cap="$cap" '$3 == 204 && $4 > 20000 { exit 1 }' "$T/log" || fail "413: a body over the limit taken"
[ "$(answers 8)" -eq 0 ] && [ "$(answers 9)" -eq 0 ] || fail "413: points skipped: $(grep answers "$(state_file)")"
ship_rows 30
ship_flush
: >"$T/log"
ship_once 0
[ "$(status_count 413)" -eq 0 ] || fail "413 again after a restart: $(cat "$T/log")"
awk -v cap="$cap" '$4 > cap { exit 1 }' "$T/log" || fail "a request over the size kept: $(cat "$T/log")"
at_end "413, again"
same_points "413, again"

# 422: a bucket that keeps the rows of the last 21 h 10 min; those older
# are dropped, counted by reason, the rest taken.
keep=$(($(date +%s) - SIM0 - 3000))
standin --retention "$keep"
ship_once 0
at_end 422
held >"$T/got"
first=$(awk -F '\t' 'NR == 1 || $2 < m { m = $2 } END { print m }' "$T/got")
now=$(date +%s)
[ "$first" -ge $((now - keep - 120)) ] && [ "$first" -le $((now - keep + 60)) ] ||
  fail "422: the first point kept is at $first, the bound at $((now - keep))"
ship_expected influx | awk -F '\t' -v f="$first" '$2 >= f' >"$T/want"
diff "$T/want" "$T/got" >/dev/null || fail "422: the store holds other points than the files' after $first"
# the points dropped: the lines of the rows before it
args=()
for vm in $SHIP_VMS; do args+=(--vmid "$vm"); done
"$PVECG" export --format influx "${args[@]}" --node pve1 --data-dir "$D" \
  --pve-config-dir "$C" >"$T/lines"
dropped=$(awk -v f="$first" '$NF / 1000000000 < f' "$T/lines" | wc -l)
[ "$dropped" -gt 0 ] || fail "422: nothing was old enough to drop"
[ "$(answers 3)" -eq "$dropped" ] || fail "422: $(answers 3) points counted as dropped (retention), not $dropped"
[ "$(answers 4)" -eq 0 ] && [ "$(answers 7)" -eq 0 ] || fail "422: other reasons: $(grep answers "$(state_file)")"
grep -q "^pvecg ship: http://127.0.0.1:$PORT/api/v2/write: the store dropped $dropped points of batches it took: failure writing points to database: partial write: dropped [0-9]* points outside retention policy of duration " \
  "$T/err" || fail "422 not said: $(cat "$T/err")"

# 400 naming a line, nothing written: that line alone is skipped, named
# by its file and time; everything else lands.
bad=$((SIM0 + 60 * 50))
standin --unparsable "vmid=100,.* $bad\$"
ship_once 0
at_end 400
ship_expected influx | grep -v "vmid=100 [^	]*	$bad	" >"$T/want" || true
held >"$T/got"
diff "$T/want" "$T/got" >/dev/null || fail "400: the store differs: $(diff "$T/want" "$T/got" | head -5)"
[ "$(answers 9)" -eq 1 ] || fail "400: $(answers 9) points skipped, not 1"
when=$(date -u -d "@$bad" '+%Y-%m-%d %H:%M:%S UTC')
grep -q "^pvecg ship: pve-vm-9.0/100: the point of $when ($bad) was skipped: the store cannot parse it: unable to parse 'system,object=qemu,vmid=100,nodename=pve1,host=web cpus=2," \
  "$T/err" || fail "400: the skipped point not named: $(cat "$T/err")"
n=$(requests)
[ "$n" -le 40 ] || fail "400: $n requests to find one line"

# The export takes the same path: a 413 halved, a line skipped.
standin --max-body 20000 --unparsable "vmid=101,.* $bad\$"
"$PVECG" export --format influx --all --data-dir "$D" --pve-config-dir "$C" \
  --token-file "$T/token" --to "$URL" 2>"$T/err" || fail "export: $(cat "$T/err")"
grep -Eq "^pvecg export: the server refused larger requests \(HTTP 413\): batches were cut to [0-9]+ bytes; --batch-bytes [0-9]+ does so from the start$" \
  "$T/err" || fail "export's 413: $(cat "$T/err")"
grep -q "^pvecg export: batch 1: a line the server cannot parse was skipped (time $bad): system,object=lxc,vmid=101,nodename=pve1,host=ct1 .*: unable to parse 'system,object=lxc,vmid=101," \
  "$T/err" || fail "export's skipped line: $(cat "$T/err")"
ship_expected influx | grep -v "vmid=101 [^	]*	$bad	" >"$T/want" || true
held >"$T/got"
diff "$T/want" "$T/got" >/dev/null || fail "export: the store differs: $(diff "$T/want" "$T/got" | head -5)"
echo PASS
