#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg ship against a stand-in HTTP store that misbehaves on purpose
# (http_standin.py), on files written through a real rrdcached that holds
# rows for an hour (-w 3600):
# - 503 for a while: nothing is acknowledged, the pass fails (exit 1 with
#   --once), one line says the store is away; the next pass sends it all;
# - a slow store (answers after 3 s, --timeout 1): the same;
# - InfluxDB's "400 partial write ... dropped=3": taken, the 3 points
#   counted and said once, the cursors move (and pvecg export says it);
# - through rrdcached: by default only the rows the daemon wrote to the
#   files go (they are the buffer; the rest waits for the daemon's own
#   write), with --daemon every row it holds (it writes them first);
# - a state file damaged: the previous version is used, with a message;
#   both damaged: the shipper refuses to start, saying what to do.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${EXPORT_POINTS:?}"

SHIP_WRITE_TIMEOUT=3600
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
ship_once() { # expected-exit [OPTIONS]: stderr in $T/err
  local want=$1 rc=0
  shift
  "$PVECG" ship --format influx --to "http://127.0.0.1:$PORT/write?db=pve" \
    --data-dir "$D" --pve-config-dir "$C" --state-dir "$S" --once "$@" \
    2>"$T/err" || rc=$?
  [ "$rc" -eq "$want" ] || fail "ship exit $rc, not $want: $(cat "$T/err")"
}
# Each stand-in listens on a port of its own: another target, whose
# state is the newest file.
state_file() { ls -t "$S"/*.state | head -1; }
stat_field() { awk -v n="$1" '$1 == "stats" { print $n }' "$(state_file)"; }
cursor() { awk -v k="$1" '$1 == "file" && $2 == k { print $6 }' "$(state_file)"; }
last_on_disk() { rrdtool lastupdate "$D/$1" | awk 'NR == 3 { sub(":", "", $1); print $1 / 60 * 60 }'; }

ship_rows 120
ship_flush
ship_rows 5 # held by the daemon, not in the files

# 503 twice (both tries of a batch), then 204: one pass fails, the next
# sends everything.
standin 503 503 204
ship_once 1
grep -Eqx "pvecg ship: http://127.0.0.1:$PORT/write: the store is away: a batch: the server answered HTTP 503: \(no message\) \(2 tries\); the rows wait behind the cursors and go when it is back" \
  "$T/err" || fail "503: $(cat "$T/err")"
[ "$(cursor pve-vm-9.0/100)" -eq 0 ] || fail "a cursor moved on a 503"
[ "$(stat_field 2)" -eq 0 ] || fail "rows counted as sent on a 503"
[ "$(stat_field 4)" -eq 1 ] || fail "failed batches: $(stat_field 4)"
ship_once 0
for f in pve-vm-9.0/100 pve-vm-9.0/101 pve-node-9.0/pve1; do
  [ "$(cursor $f)" -eq "$(last_on_disk $f)" ] || fail "$f: cursor $(cursor $f), not its last row"
done
# by default, the rows the daemon holds wait: the files are the buffer
[ "$(stat_field 2)" -eq 360 ] || fail "rows sent: $(stat_field 2), expected 3 x 120"

# --daemon: the daemon writes what it holds first, and every row goes.
ship_once 0 --daemon "$DAEMON"
[ "$(stat_field 2)" -eq 375 ] || fail "with --daemon, rows sent: $(stat_field 2), expected 375"
[ "$(cursor pve-vm-9.0/100)" -eq $((SIM)) ] || fail "--daemon: cursor $(cursor pve-vm-9.0/100), not $SIM"

# A slow store: both tries time out, then it answers.
ship_rows 10
ship_flush
standin slow slow 204
ship_once 1 --timeout 1
grep -q "the store is away: a batch: Timeout was reached (2 tries)" "$T/err" ||
  fail "slow: $(cat "$T/err")"
ship_once 0 --timeout 1
[ "$(cursor pve-vm-9.0/100)" -eq "$SIM" ] || fail "after a slow store: cursor $(cursor pve-vm-9.0/100), not $SIM"

# A partial write: the batch is taken, its dropped points counted and
# said once.
ship_rows 10
ship_flush
standin '400:{"error":"partial write: points beyond retention policy dropped=3"}'
ship_once 0 --batch-bytes 1024
n=$(wc -l <"$T/log")
[ "$n" -gt 1 ] || fail "one request only: the partial write is not exercised twice"
[ "$(stat_field 5)" -eq $((3 * n)) ] || fail "dropped: $(stat_field 5), expected $((3 * n))"
grep -c "dropped" "$T/err" >"$T/n" || true
[ "$(cat "$T/n")" -eq 1 ] || fail "partial write said $(cat "$T/n") times: $(cat "$T/err")"
grep -qx "pvecg ship: http://127.0.0.1:$PORT/write: the store dropped $((3 * n)) points of batches it took: partial write: points beyond retention policy dropped=3" \
  "$T/err" || fail "partial write: $(cat "$T/err")"
[ "$(cursor pve-vm-9.0/100)" -eq "$SIM" ] || fail "after a partial write: cursor $(cursor pve-vm-9.0/100)"
"$PVECG" export --format influx --vmid 100 --data-dir "$D" --pve-config-dir "$C" \
  --to "http://127.0.0.1:$PORT/write?db=pve" 2>"$T/err" || fail "export: $(cat "$T/err")"
grep -Eq '^pvecg export: the server dropped 3 points of 1 batches it took otherwise: partial write: points beyond retention policy dropped=3$' \
  "$T/err" || fail "export's partial write: $(cat "$T/err")"

# Files that change under the shipper, each said once: a file of another
# layout is skipped; an older copy put over a file (same inode, an older
# last update) and a file made anew (another inode) start over from their
# first rows, counters from 0.
standin 204
ship_once 0
cp "$D/pve-vm-9.0/101" "$T/101.older"
ship_rows 3
ship_flush
ship_once 0
rrdtool create "$D/pve-vm-9.0/300" --step 60 DS:x:GAUGE:120:0:U RRA:AVERAGE:0.5:1:10
printf 'name: other\n' >"$C/nodes/pve1/qemu-server/300.conf"
cp "$T/101.older" "$D/pve-vm-9.0/101" # in place: the same inode
old=$((SIM - 60 * 200)) # the new file's rows: older times, past the daemon
new=$T/pve1.new # made beside and renamed over it: another inode
rrdtool create "$new" --start "$old" --step 60 $("$LAYOUT_DEFS" pve-node-9.0)
for k in 1 2 3 4 5; do
  rrdtool update "$new" \
    "$((old + 60 * k)):0.5:8:U:U:U:U:U:U:U:U:$((600 * k)):$((300 * k)):U:U:U:U:U:U:U"
done
mv "$new" "$D/pve-node-9.0/pve1"
ship_once 0
grep -c "pve-vm-9.0/300" "$T/err" >"$T/n" || true
[ "$(cat "$T/n")" -eq 1 ] || fail "the foreign file: $(cat "$T/err")"
grep -q "^pvecg ship: pve-vm-9.0/300: not a pve-vm-9.0 file: .*; it is not shipped (a file of another layout)$" "$T/err" ||
  fail "the foreign file: $(cat "$T/err")"
grep -qx "pvecg ship: pve-vm-9.0/101: its last update is older than its cursor; shipping it from its first row" "$T/err" ||
  fail "an older copy: $(cat "$T/err")"
grep -qx "pvecg ship: pve-node-9.0/pve1: another file now (made anew or replaced); shipping it from its first row" "$T/err" ||
  fail "a file made anew: $(cat "$T/err")"
[ "$(cursor pve-node-9.0/pve1)" -eq $((old + 300)) ] ||
  fail "the new node file: cursor $(cursor pve-node-9.0/pve1), not $((old + 300))"
[ "$(cursor pve-vm-9.0/300)" -eq 0 ] || fail "the foreign file's cursor moved"
# 0 at the first known rate (10/s, 5/s), then three rows of 60 s
grep -q '^file pve-node-9.0/pve1 .* 10=1800,11=900$' "$(state_file)" ||
  fail "the new node file's counters: $(grep pve1 "$(state_file)")"

# A damaged state: the previous version, with a message; both: refused.
standin 204
ship_once 0
ship_rows 1
ship_flush
ship_once 0 # a state and the version before it
state=$(state_file)
head -c 100 "$state.prev" >"$state.cut" && mv "$state.cut" "$state"
ship_once 0
grep -q "^pvecg ship: $state: line [0-9]*: .*; went back to $state.prev, the version before it (the rows acknowledged since are sent again)$" \
  "$T/err" || fail "damaged state: $(cat "$T/err")"
printf 'garbage\n' >"$state"
printf 'garbage\n' >"$state.prev"
ship_once 1
grep -qx "pvecg ship: $state: line 1: not a pvecg ship state (or of another version), and $state.prev: line 1: not a pvecg ship state (or of another version).  Restore one, or remove both to start again from --since (the files' first rows when not given)" \
  "$T/err" || fail "both damaged: $(cat "$T/err")"
[ "$(cat "$state")" == garbage ] || fail "a refused state was overwritten"
echo PASS
