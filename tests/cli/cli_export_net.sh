#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg export --to: Graphite plaintext over TCP and InfluxDB line protocol
# over UDP to a listener of the test (line_listener) that records what
# arrives; every line is compared with lines made independently from
# `rrdtool fetch`, UDP datagrams must hold whole lines and at most 1400
# bytes.  A listener that accepts and never reads makes export fail within
# its --timeout with the count of lines sent; a closed port fails at once.
set -euo pipefail

command -v rrdtool >/dev/null || { echo "SKIP: rrdtool is not installed"; exit 77; }
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${LINE_LISTENER:?}"

T=$(mktemp -d)
LISTENER=
cleanup() {
  if [ -n "$LISTENER" ]; then
    kill "$LISTENER" 2>/dev/null || true
    wait "$LISTENER" 2>/dev/null || true
  fi
  rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

D=$T/data
mkdir -p "$D/pve-vm-9.0"
T0=1700002800
N=300
F=$D/pve-vm-9.0/100
# shellcheck disable=SC2046 # one definition per line
rrdtool create "$F" --start "$T0" --step 60 $("$LAYOUT_DEFS" pve-vm-9.0)
awk -v t0="$T0" -v n="$N" 'BEGIN {
  for (i = 1; i <= n; i++)
    printf "%d:2:%s:4294967296:U:U:U:U:U:U:U:%d:%s:U:U:U:U:U\n", t0 + 60 * i,
      (i % 8) / 8, 4096 * i, (i % 7 == 0 ? "U" : (i % 5) / 4)
}' | xargs -n 500 rrdtool update "$F"

# fetched: "time ds=value ..." per row with a known value, from rrdtool.
rrdtool fetch "$F" AVERAGE -s "$T0" -e "$((T0 + 60 * N - 60))" | awk '
  NR == 1 { for (i = 1; i <= NF; i++) ds[i + 1] = $i; next }
  NR > 2 {
    t = $1; sub(":", "", t); line = t
    for (i = 2; i <= NF; i++)
      if ($i !~ /nan/) line = line " " ds[i] "=" sprintf("%.15g", $i)
    if (line != t) print line
  }' >"$T/fetched"
[ "$(wc -l <"$T/fetched")" -eq "$N" ] || fail "fetched $(wc -l <"$T/fetched") rows"

# start_listener MODE: runs line_listener, sets PORT.
start_listener() {
  rm -f "$T/port"
  "$LINE_LISTENER" "$1" "$T/port" "$T/received" &
  LISTENER=$!
  for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
  PORT=$(cat "$T/port") || fail "listener did not start"
}

# Graphite over TCP: one line per known value.
awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "=")
         print "pve.vm.100." kv[1] " " kv[2] " " $1 } }' "$T/fetched" >"$T/expected"
start_listener tcp
"$PVECG" export --format graphite --names pvecg --vmid 100 --data-dir "$D" \
  --to "tcp://127.0.0.1:$PORT" 2>"$T/err" || fail "tcp export: $(cat "$T/err")"
wait "$LISTENER" || fail "tcp listener failed"
LISTENER=
diff "$T/expected" "$T/received" >/dev/null || fail "tcp: lines differ"
lines=$(wc -l <"$T/expected")
grep -qx "pvecg export: sent $lines lines ($lines values) to tcp://127.0.0.1:$PORT" "$T/err" ||
  fail "tcp summary: $(cat "$T/err")"

# InfluxDB line protocol over UDP with another prefix: one line per row.
awk '{ line = "site_vm,vmid=100 "; for (i = 2; i <= NF; i++)
         line = line (i > 2 ? "," : "") $i
       print line " " $1 "000000000" }' "$T/fetched" >"$T/expected"
start_listener udp
"$PVECG" export --format influx --names pvecg --vmid 100 --data-dir "$D" --prefix site \
  --to "udp://127.0.0.1:$PORT" 2>"$T/err" || fail "udp export: $(cat "$T/err")"
size=$(wc -c <"$T/expected")
for _ in $(seq 100); do
  [ "$(awk '{ s += $1 } END { print s + 0 }' "$T/received.sizes")" -ge "$size" ] && break
  sleep 0.05
done
kill "$LISTENER"; wait "$LISTENER" 2>/dev/null || true; LISTENER=
diff "$T/expected" "$T/received" >/dev/null || fail "udp: lines differ"
[ "$(wc -l <"$T/received.sizes")" -gt 1 ] || fail "udp: one datagram only"
offset=0
while read -r n; do
  [ "$n" -le 1400 ] || fail "udp: a datagram of $n bytes"
  offset=$((offset + n))
  [ "$(tail -c +"$offset" "$T/received" | head -c 1 | od -An -tx1 | tr -d ' ')" == 0a ] ||
    fail "udp: a datagram ending mid-line at $offset"
done <"$T/received.sizes"

# A listener that never reads: export gives up after --timeout, exit 1,
# saying how many lines went out before.  Enough data to fill the buffers:
# 40 copies of the file.
for i in $(seq 101 140); do cp "$F" "$D/pve-vm-9.0/$i"; done
start_listener tcp-stall
start=$(date +%s)
set +e
"$PVECG" export --format graphite --names pvecg --all --data-dir "$D" --timeout 1 \
  --to "tcp://127.0.0.1:$PORT" >/dev/null 2>"$T/err"
rc=$?
set -e
took=$(($(date +%s) - start))
[ "$rc" -eq 1 ] || fail "stalled listener: exit $rc"
[ "$took" -le 10 ] || fail "stalled listener: took $took s"
grep -Eq "^pvecg export: sending to tcp://127.0.0.1:$PORT: the listener took no data for the timeout; [0-9]+ of [0-9]+ lines sent before$" "$T/err" ||
  fail "stalled listener: $(cat "$T/err")"
sent=$(sed -E 's/.*; ([0-9]+) of ([0-9]+) lines.*/\1/' "$T/err")
made=$(sed -E 's/.*; ([0-9]+) of ([0-9]+) lines.*/\2/' "$T/err")
[ "$sent" -lt "$made" ] || fail "stalled listener: $sent of $made sent"

# Nothing listening: refused at once.
kill "$LISTENER"; wait "$LISTENER" 2>/dev/null || true; LISTENER=
set +e
"$PVECG" export --format graphite --names pvecg --vmid 100 --data-dir "$D" \
  --to "tcp://127.0.0.1:$PORT" >/dev/null 2>"$T/err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "closed port: exit $rc"
grep -q "cannot connect to 127.0.0.1 port $PORT: Connection refused" "$T/err" ||
  fail "closed port: $(cat "$T/err")"
echo "PASS"
