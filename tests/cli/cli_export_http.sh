#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg export --to http://: what a write endpoint in trouble gets, against
# a stand-in that answers as told (http_standin.py): batches on one kept-
# alive connection; 503 answers retried until taken; a 400 that names no
# line not retried, named with the server's message and the fix, exit 1; a
# 400 for every line halved down to lines, then refused the same; a server that is slow, closes
# without answering or is not there: five tries, then a clear error; the
# token from --token-file as "Token" for /api/v2/ and "Bearer" elsewhere,
# never in a message; HTTPS with --ca-file, and a certificate that does
# not verify refused at once; the progress line on a terminal only.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}"

. "$(dirname "$0")/standin_fixture.sh" # T, fail, STANDIN, the files

standin() { # ANSWER...: PORT, and LOG of its requests
  stop_standin
  rm -f "$T/port" "$T/log"
  "$(dirname "$0")/http_standin.py" "$T/port" "$T/log" "$@" &
  STANDIN=$!
  for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
  PORT=$(cat "$T/port")
  touch "$T/log"
}
# The VM's last two hours: 120 rows, 122 lines of line protocol (up to
# its last row: the rows of its stall file come a day later).
UNTIL=$((T0 + 60 * 2160))
export_vm() { # PATH [OPTIONS]
  local path=$1
  shift
  "$PVECG" export --format influx --vmid 100 --data-dir "$D" --pve-config-dir "$C" \
    --since "$((T0 + 60 * 2040))" --until "$UNTIL" --to "http://127.0.0.1:$PORT$path" "$@"
}
run() { # expected-exit COMMAND...: stderr in $T/err
  local want=$1 rc
  shift
  set +e
  "$@" 2>"$T/err"
  rc=$?
  set -e
  [ "$rc" -eq "$want" ] || fail "$*: exit $rc, expected $want; $(cat "$T/err")"
}

"$PVECG" export --format influx --vmid 100 --data-dir "$D" \
  --pve-config-dir "$C" --since "$((T0 + 60 * 2040))" --until "$UNTIL" >"$T/all.txt"
lines=$(wc -l <"$T/all.txt")
all_bytes=$(wc -c <"$T/all.txt")

# Two 503s, then taken: every batch arrives, on one connection.
standin 503:busy 503:busy 204
run 0 export_vm /write --batch-bytes 4096
grep -qx "pvecg export: sent $lines lines ([0-9]* values) to http://127.0.0.1:$PORT/write" "$T/err" ||
  fail "503: $(cat "$T/err")"
# The first batch was refused twice; the taken ones are the whole text.
[ "$(awk 'NR > 2 { n += $4 } END { print n }' "$T/log")" -eq "$all_bytes" ] ||
  fail "503: the batches taken are not the whole export: $(cat "$T/log")"
requests=$(grep -c . "$T/log")
[ "$requests" -ge 7 ] || fail "only $requests requests (two refused) with 4 KiB batches"
awk '$4 > 4096 { exit 1 }' "$T/log" || fail "a batch over 4096 bytes: $(cat "$T/log")"
[ "$(awk '{ print $5 }' "$T/log" | sort -u | wc -l)" -le 2 ] ||
  fail "not kept alive: $(awk '{ print $5 }' "$T/log" | sort -u | tr '\n' ' ')"

# A 400 that names no line is the target's fault: refused at once, named
# with the server's message and what fixes it, not sent again.
standin '400:{"error":"database is required"}'
run 1 export_vm /write
grep -Eqx "pvecg export: sending to http://127.0.0.1:$PORT/write: batch 1 \([0-9]+ bytes, rows of qemu/100 to qemu/100\): the server answered HTTP 400: database is required; 0 of $lines lines sent before" "$T/err" ||
  fail "400: $(cat "$T/err")"
grep -qx "pvecg export: check the URL (its path and db=, bucket=, org=) and --format" "$T/err" ||
  fail "400's fix: $(cat "$T/err")"
[ "$(grep -c . "$T/log")" -eq 1 ] || fail "a 400 was sent again"

# A 400 naming a line, for every line: halved down to single lines, and
# when line after line is refused and none taken (here 8), the target is
# refused rather than every row skipped: 7 halvings to the first line,
# then 8 single lines and the halves between them.
standin "400:unable to parse 'x': bad timestamp"
run 1 export_vm /write
grep -Eqx "pvecg export: sending to http://127.0.0.1:$PORT/write: batch 1 \([0-9]+ bytes, rows of qemu/100 to qemu/100\): the server answered HTTP 400: unable to parse 'x': bad timestamp; 0 of $lines lines sent before" "$T/err" ||
  fail "400 of every line: $(cat "$T/err")"
grep -qx "pvecg export: the store refuses every line: check the URL's precision= and --format" "$T/err" ||
  fail "400 of every line, the fix: $(cat "$T/err")"
# 122 lines: 122 61 30 15 7 3 2 (1 1) 1 (... ), then the last line alone
# -- 21 requests in all, each
# the first half of the one before until single lines.
[ "$(grep -c . "$T/log")" -eq 21 ] || fail "400 of every line: $(grep -c . "$T/log") requests, not 21"
awk 'NR > 1 && NR <= 7 && $4 > prev / 2 + 400 { exit 1 } { prev = $4 }' "$T/log" ||
  fail "400 of every line: not halved: $(awk '{ print $4 }' "$T/log" | tr '\n' ' ')"
# Slow, closing, absent: five tries (0.5 + 1 + 2 + 4 s apart), then given up.
standin slow
run 1 export_vm /write --timeout 1
grep -Eq "batch 1 .*: Timeout was reached \(5 tries\); 0 of $lines lines sent before$" "$T/err" ||
  fail "slow: $(cat "$T/err")"
[ "$(grep -c . "$T/log")" -eq 5 ] || fail "slow: $(grep -c . "$T/log") tries"
standin close
run 1 export_vm /write
grep -Eq "batch 1 .*: Server returned nothing \(no headers, no data\) \(5 tries\)" "$T/err" ||
  fail "close: $(cat "$T/err")"
stop_standin
run 1 export_vm /write
grep -Eq "batch 1 .*: Couldn't connect to server \(5 tries\)" "$T/err" ||
  fail "absent: $(cat "$T/err")"

# The token: InfluxDB 2's scheme for /api/v2/, Bearer elsewhere; never said.
printf 'abc123secret\n' >"$T/token"
standin 204
run 0 export_vm "/api/v2/write?org=o&bucket=b" --token-file "$T/token"
run 0 export_vm /api/v1/import/prometheus --token-file "$T/token" --format prometheus
[ "$(awk '{ print $2, $3 }' "$T/log" | sort -u)" == "$(printf '%s\n' \
  "/api/v1/import/prometheus Bearer_abc123secret" \
  "/api/v2/write?org=o&bucket=b Token_abc123secret")" ] || fail "headers: $(cat "$T/log")"
standin 401:unauthorized
run 1 export_vm /write --token-file "$T/token"
grep -q abc123secret "$T/err" && fail "the token is in a message"
run 2 "$PVECG" export --format influx --vmid 100 --token-file "$T/token" --data-dir "$D"
run 2 export_vm /write --token-file "$T/nosuch"
: >"$T/empty"
run 2 export_vm /write --token-file "$T/empty"
run 2 export_vm /write --format graphite
run 2 export_vm /write --format csv

# HTTPS: a server whose certificate --ca-file vouches for; without it the
# certificate does not verify, which no retry changes (one try).
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$T/key.pem" -out "$T/cert.pem" \
  >/dev/null 2>&1 || fail "openssl"
standin --tls "$T/cert.pem" "$T/key.pem" 204
https_vm() {
  "$PVECG" export --format influx --vmid 100 --data-dir "$D" --pve-config-dir "$C" \
    --since "$((T0 + 60 * 2040))" --until "$UNTIL" --to "https://127.0.0.1:$PORT/api/v2/write?org=o&bucket=b" "$@"
}
run 0 https_vm --ca-file "$T/cert.pem" --token-file "$T/token"
grep -qx "pvecg export: sent $lines lines ([0-9]* values) to https://127.0.0.1:$PORT/api/v2/write?org=o&bucket=b" "$T/err" ||
  fail "https: $(cat "$T/err")"
[ "$(awk '{ print $3 }' "$T/log" | sort -u)" == Token_abc123secret ] || fail "https token: $(cat "$T/log")"
run 1 https_vm
grep -Eq "batch 1 .*: (SSL peer certificate or SSH remote key was not OK|Peer certificate cannot be authenticated with given CA certificates)" "$T/err" ||
  fail "unverified certificate: $(cat "$T/err")"
grep -q "tries" "$T/err" && fail "a certificate problem was tried again"
run 2 export_vm /write --format influx --ca-file "$T/cert.pem" --to tcp://127.0.0.1:1

# The progress line: on a terminal, not with --quiet, not into a file
# (8 files: three guests and a node, the KSM and stall files of 100 and pve1).
standin 204
script -qfec "$(printf '%q ' "$PVECG" export --format influx --all --unknown-guests lxc \
  --data-dir "$D" --pve-config-dir "$C" --to "http://127.0.0.1:$PORT/write")" \
  /dev/null >"$T/tty" || fail "on a terminal: $(cat "$T/tty")"
grep -Eq 'pvecg export: [0-9]+/8 files, [0-9]+ points, [0-9]+ points/s, [0-9]+ s left' "$T/tty" ||
  fail "no progress line: $(cat -v "$T/tty")"
script -qfec "$(printf '%q ' "$PVECG" export --format influx --all --unknown-guests lxc \
  --data-dir "$D" --pve-config-dir "$C" --to "http://127.0.0.1:$PORT/write" --quiet)" \
  /dev/null >"$T/tty"
grep -q 'points/s' "$T/tty" && fail "--quiet drew progress"
echo PASS
