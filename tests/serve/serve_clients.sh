#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg serve while one client misbehaves: a client holding 2,000
# connections, each with half a request header, keeps only
# --connections-per-client of them (32 by default), while a second client
# (another loopback address) has every request answered within a second,
# and the server's memory stays where it was; once the first lets go, it
# is answered again.  With the limit off (0) the same client starves the
# second one: the check the limit exists for.
set -euo pipefail
: "${PVECG:?}"

T=$(mktemp -d)
SERVER=
stop_server() {
  [ -z "$SERVER" ] || { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; }
  SERVER=
}
trap 'stop_server; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir "$T/data"

serve() { # OPTIONS...: PORT
  PORT=$("$(dirname "$0")/../helpers/free_port")
  "$PVECG" serve --listen "127.0.0.1:$PORT" --data-dir "$T/data" --pve-config-dir "" \
    "$@" 2>"$T/serve.log" &
  SERVER=$!
  for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$PORT/api2/json/nodes" >/dev/null 2>&1 && return
    sleep 0.05
  done
  fail "pvecg serve does not answer: $(cat "$T/serve.log")"
}
hold() { # the holder's verdict, its report in $T/held
  set +e
  "$(dirname "$0")/hold_connections.py" "$PORT" "$SERVER" 2000 >"$T/held"
  HELD_RC=$?
  set -e
  [ "$HELD_RC" -ne 77 ] || { cat "$T/held"; exit 77; }
}

serve
hold
[ "$HELD_RC" -eq 0 ] || fail "with the limit: $(cat "$T/held")"
grep -qx "kept 32" "$T/held" || fail "$(cat "$T/held")"
grep -qx "answered 20 of 20, slowest 0\.[0-9]* s" "$T/held" || fail "$(cat "$T/held")"
awk '/^rss/ { if ($6 - $3 > 16384) exit 1 }' "$T/held" || fail "memory grew: $(cat "$T/held")"
stop_server

serve --connections-per-client 4
hold
grep -qx "kept 4" "$T/held" || fail "--connections-per-client 4: $(cat "$T/held")"
stop_server

serve --connections-per-client 0
hold
[ "$HELD_RC" -eq 1 ] || fail "without the limit the second client was answered: $(cat "$T/held")"
echo PASS
