#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg ship into a real carbon-cache (Debian's graphite-carbon) over TCP,
# which acknowledges nothing: what the shipper guarantees there is that
# every new connection sends again the rows of the last --resend seconds.
# The case it is for: carbon stops reading (SIGSTOP), the shipper's lines
# fill the kernel's buffers and count as sent, carbon is killed with -9 and
# those lines are gone.  With --resend 30 the shipper sees the connection
# end, connects anew once carbon is back, and every point of the files is
# in whisper, equal to what Proxmox's Graphite names make of `pvecg
# export --format json`, counters going on; with --resend 0 the lost
# points stay lost (the window is what brings them back).
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${EXPORT_POINTS:?}"

. "$(dirname "$0")/receivers.sh" # T, fail, the stores
. "$(dirname "$0")/ship_fixture.sh" # the files, SHIPPER stopped at exit

FIRST=$((SIM + 60))
ship() { # STATE_DIR RESEND
  "$PVECG" ship --format graphite --to "tcp://127.0.0.1:$CARBON_PORT" \
    --data-dir "$D" --pve-config-dir "$C" --state-dir "$1" --interval 1 \
    --resend "$2" 2>>"$T/ship.log" &
  SHIPPER=$!
}
read_back() {
  "$EXPORT_POINTS" graphite "$CARBON_WHISPER" "$((FIRST - 60))" "$SIM" >"$T/got"
  [ "$(wc -l <"$T/got")" -eq "$(wc -l <"$T/expected")" ]
}
rows_sent() { awk '$1 == "stats" { print $2 }' "$1"/*.state 2>/dev/null || echo 0; }

# run RESEND: the whole story on a fresh carbon; leaves $T/got.
run() {
  local resend=$1 state=$T/state-$1 sent
  rm -rf "$T/carbon"
  start_carbon
  ship "$state" "$resend"
  ship_rows 60
  ship_flush
  ship_expected graphite >"$T/expected"
  wait_until "every point in whisper" read_back
  # carbon stops reading; the lines it does not read count as sent
  kill -STOP "$CARBON_PID"
  sent=$(rows_sent "$state")
  ship_rows 60
  ship_flush
  for _ in $(seq 100); do
    [ "$(rows_sent "$state")" -ge $((sent + 180)) ] && break
    sleep 0.1
  done
  [ "$(rows_sent "$state")" -ge $((sent + 180)) ] ||
    fail "the shipper did not send to a stopped carbon"
  kill -KILL "$CARBON_PID"
  wait "$CARBON_PID" 2>/dev/null || true
  ship_rows 5
  ship_flush
  sleep 2
  restart_carbon
  ship_expected graphite >"$T/expected"
  local until=$((SECONDS + 20))
  until read_back || [ "$SECONDS" -ge "$until" ]; do sleep 0.5; done
  kill "$SHIPPER"
  wait "$SHIPPER" || fail "the shipper's exit after SIGTERM: $?"
  SHIPPER=
  stop_receivers
}

run 30
diff "$T/expected" "$T/got" >"$T/diff" || { head "$T/diff"; fail "--resend 30: points differ"; }
grep -q '^proxmox\.qemu\.100\.memhost	' "$T/got" || fail "no proxmox.qemu.100.memhost"
grep -q '^proxmox\.nodes\.pve1\.nics\.physical\.receive	' "$T/got" || fail "no node traffic"
grep -Eq "^pvecg ship: tcp://127.0.0.1:[0-9]+: the store is back after [0-9]+ s; [0-9]+ rows caught up$" \
  "$T/ship.log" || fail "no line for carbon's return: $(cat "$T/ship.log")"
awk -F'\t' '$1 ~ /\.(netin|netout|diskread|diskwrite|receive|transmit)$/ {
  if ($1 == s && $3 + 0 < v + 0) { print "decreases: " $0; bad = 1 }
  s = $1; v = $3 } END { exit bad }' "$T/got" || fail "a counter decreased"

run 0
missing=$(diff "$T/expected" "$T/got" | grep -c '^<' || true)
[ "$missing" -gt 0 ] || fail "--resend 0: no point was lost, so the test shows nothing"
echo PASS
