#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg ship stops within 10 s of a SIGTERM whatever the store does, with
# the cursors of what the store acknowledged saved and nothing else: a
# stand-in store (http_standin.py) that
# - answers 503 to every try (the sender retrying, the shipper away),
# - answers 503 asking to wait 20 s (the sender in its pause),
# - reads the request and never answers (--timeout 30),
# - takes the first batch and never answers the second (--batch-bytes
#   1024): the first batch's cursors are saved, the second's are not.
# Before, each of the last three held the stop for 20 to 30 s.
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

standin() { # ANSWER...: PORT, and $T/log of its requests
  stop_standin
  rm -f "$T/port" "$T/log"
  "$(dirname "$0")/http_standin.py" "$T/port" "$T/log" "$@" &
  STANDIN=$!
  for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
  PORT=$(cat "$T/port")
  touch "$T/log"
}
S=$T/state
URL=
ship_args() { echo --format influx --to "$URL" --data-dir "$D" --pve-config-dir "$C" --state-dir "$S"; }
files() { awk '$1 == "file" { print $2, $6, $7 }' "$S"/*.state; } # key, cursor, counters

ship_rows 90
ship_flush
# One target (the URL decides the state's name), fed once to the end.
standin 204
URL="http://127.0.0.1:$PORT/write?db=pve"
# shellcheck disable=SC2046
"$PVECG" ship $(ship_args) --once 2>"$T/err" || fail "first pass: $(cat "$T/err")"
ship_cursors_at_end "$S" || fail "first pass: the cursors are not at the end"
files >"$T/acked"
ship_rows 30
ship_flush

# stop_at WHAT POSTS ANSWER... [-- OPTIONS]: a shipper against a stand-in
# on the same port (the same target, the same state) answering ANSWER...,
# SIGTERM once the stand-in logged POSTS requests and 0.5 s more: it
# exits 0 within 10 s.
stop_at() {
  local what=$1 posts=$2 answers=() opts=()
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do answers+=("$1"); shift; done
  [ $# -eq 0 ] || { shift; opts=("$@"); }
  STANDIN_PORT=$PORT standin "${answers[@]}"
  # shellcheck disable=SC2046
  "$PVECG" ship $(ship_args) --interval 1 "${opts[@]}" 2>"$T/err" &
  SHIPPER=$!
  for _ in $(seq 400); do
    [ "$(grep -c '^POST' "$T/log" || true)" -ge "$posts" ] && break
    sleep 0.05
  done
  [ "$(grep -c '^POST' "$T/log" || true)" -ge "$posts" ] || fail "$what: $posts requests not seen: $(cat "$T/err")"
  sleep 0.5
  local t0 t1 rc=0
  t0=$(date +%s%N)
  kill -TERM "$SHIPPER"
  wait "$SHIPPER" || rc=$?
  t1=$(date +%s%N)
  SHIPPER=
  [ "$rc" -eq 0 ] || fail "$what: exit $rc: $(cat "$T/err")"
  local ms=$(((t1 - t0) / 1000000))
  [ "$ms" -lt 10000 ] || fail "$what: the stop took $ms ms"
  echo "$what: stopped in $ms ms"
}

# Nothing acknowledged: the cursors stay where the store last took rows.
stop_at "503 on every try" 3 503
files | diff "$T/acked" - || fail "503: the cursors moved"
stop_at "503, wait 20 s" 1 retry:20
files | diff "$T/acked" - || fail "Retry-After: the cursors moved"
stop_at "no answer" 1 hang -- --timeout 30
files | diff "$T/acked" - || fail "no answer: the cursors moved"
grep -q "stopped" "$T/err" && fail "a stop said as the store's failure: $(cat "$T/err")"

# The first batch taken, the second never answered: the first's cursors
# are saved, the rest are not; the next run sends only the rest.
stop_at "the second batch unanswered" 2 204 hang -- --timeout 30 --batch-bytes 1024
files >"$T/after"
! diff -q "$T/acked" "$T/after" >/dev/null || fail "the first batch's cursors were not saved"
ship_cursors_at_end "$S" 2>/dev/null && fail "cursors at the end with a batch unanswered"
STANDIN_PORT=$PORT standin 204
# shellcheck disable=SC2046
"$PVECG" ship $(ship_args) --once --batch-bytes 1024 2>"$T/err" || fail "the rest: $(cat "$T/err")"
ship_cursors_at_end "$S" || fail "the rest: the cursors are not at the end"
echo PASS
