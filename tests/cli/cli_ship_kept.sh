#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg ship as it runs for months: one process, a pass a second, its
# files kept open between passes and its directories not listed again
# while they are as they were.  Everything a fresh start (--once) sees of
# the files changing under it, it must see at its next pass too:
# - rows written into the files (through rrdcached): shipped, read through
#   the descriptors it keeps, exactly one per file;
# - a guest added: shipped from its first row, its file kept open too;
# - an older copy put over a file (the same inode): "its last update is
#   older than its cursor", shipped again from its first row;
# - a file made anew beside and renamed over one (another inode): "another
#   file now", its own rows shipped, the old file's descriptor closed;
# - a file removed: "gone", its descriptor closed.
# At the end every cursor is its file's newest row, and the shipper holds
# a descriptor for each file there is, none for a file gone.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}"

. "$(dirname "$0")/receivers.sh" # T, fail
SHIP_STALL=1
. "$(dirname "$0")/ship_fixture.sh" # the files, SHIPPER stopped at exit
STANDIN=
trap '[ -z "$STANDIN" ] || kill "$STANDIN" 2>/dev/null || true; ship_test_end' EXIT

"$(dirname "$0")/http_standin.py" "$T/port" "$T/requests" 204 &
STANDIN=$!
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
PORT=$(cat "$T/port")
S=$T/state

# The shipper's descriptors into the data directory: "<path>" per line,
# " (deleted)" after a file removed or replaced.
held() {
  find "/proc/$SHIPPER/fd" -type l -printf '%l\n' 2>/dev/null |
    grep "^$D/" | sort || true
}
files_there() {
  find "$D" -type f | sort
}
wait_line() { # LINE: said by the shipper within 10 s
  for _ in $(seq 100); do grep -qxF "$1" "$T/ship.log" && return 0; sleep 0.1; done
  fail "not said: $1: $(cat "$T/ship.log")"
}
check_held() {
  held >"$T/held"
  files_there >"$T/there"
  diff "$T/there" "$T/held" >"$T/diff" ||
    fail "descriptors held ($1): $(cat "$T/diff")"
}

ship_rows 60
ship_flush
"$PVECG" ship --format influx --to "http://127.0.0.1:$PORT/write?db=pve" \
  --data-dir "$D" --pve-config-dir "$C" --state-dir "$S" --interval 1 \
  2>"$T/ship.log" &
SHIPPER=$!
ship_wait_caught_up "$S"
check_held "after the first pass"

# Rows into the files, five times: read through the same descriptors.
for _ in 1 2 3 4 5; do
  ship_rows 2
  ship_flush
  ship_wait_caught_up "$S"
done
check_held "after rows"

ship_add_guest
ship_rows 3
ship_flush
ship_wait_caught_up "$S"
check_held "after a guest was added"

cp "$D/pve-vm-9.0/101" "$T/101.older"
ship_rows 3
ship_flush
ship_wait_caught_up "$S"
cp "$T/101.older" "$D/pve-vm-9.0/101" # in place: the same inode
wait_line "pvecg ship: pve-vm-9.0/101: its last update is older than its cursor; shipping it from its first row"

old=$((SIM - 60 * 200)) # made beside and renamed over: another inode
new=$T/pve1.new
# shellcheck disable=SC2046 # one definition per line
rrdtool create "$new" --start "$old" --step 60 $("$LAYOUT_DEFS" pve-node-9.0)
for k in 1 2 3 4 5; do
  rrdtool update "$new" \
    "$((old + 60 * k)):0.5:8:U:U:U:U:U:U:U:U:$((600 * k)):$((300 * k)):U:U:U:U:U:U:U"
done
rrdtool forget --daemon "$DAEMON" "$D/pve-node-9.0/pve1" 2>/dev/null || true
mv "$new" "$D/pve-node-9.0/pve1"
wait_line "pvecg ship: pve-node-9.0/pve1: another file now (made anew or replaced); shipping it from its first row"
cursor() { awk -v k="$1" '$1 == "file" && $2 == k { print $6 }' "$S"/*.state; }
for _ in $(seq 100); do [ "$(cursor pve-node-9.0/pve1)" == $((old + 300)) ] && break; sleep 0.1; done
[ "$(cursor pve-node-9.0/pve1)" == $((old + 300)) ] ||
  fail "the new node file: cursor $(cursor pve-node-9.0/pve1), not $((old + 300))"
check_held "after a file was replaced"

ship_remove_guest 102
wait_line "pvecg ship: pve-vm-9.0/102: gone; its cursor is dropped"
check_held "after a file was removed"
[ "$(wc -l <"$T/held")" -eq 5 ] || fail "$(wc -l <"$T/held") descriptors, not 5"

kill "$SHIPPER"
wait "$SHIPPER" || fail "the shipper's exit after SIGTERM: $?"
SHIPPER=
grep -v -e "^pvecg ship: shipping " -e "its last update is older" \
  -e "another file now" -e "gone; its cursor" "$T/ship.log" >"$T/other" || true
[ ! -s "$T/other" ] || fail "more said: $(cat "$T/other")"
