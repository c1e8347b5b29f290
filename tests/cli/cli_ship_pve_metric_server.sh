#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg ship --pve-metric-server ID: the target taken from an entry of
# Proxmox's status.cfg (Datacenter -> Metric Server), on files written
# through a real rrdcached (ship_fixture.sh):
# - an InfluxDB entry over HTTP (against influxdb2_standin.py, as
#   InfluxDB 2.x answers), its token from priv/metricserver/ID.pw, its
#   organization, bucket and api-path-prefix: Proxmox's live points are
#   written first, then the history lands in the very same series (one
#   series key per guest and measurement, the live points untouched), and
#   the history equals what Proxmox's names make of the files; an
#   organization and bucket holding '&', '%', a space and UTF-8 in the
#   very request path pve-manager's HTTP::Request sends;
# - a Graphite entry over TCP into a real carbon, its path as the prefix:
#   the live point and the history in one whisper file;
# - UDP entries over the transport the command line names beside them:
#   real InfluxDB 1.x's HTTP API (--http-port, --db) and real carbon's
#   TCP port (--tcp-port), every row under the entry's names and path;
# - refused at start, with what fixes it: UDP without such a transport
#   (the exact command line that works), the transport beside TCP or of
#   the other kind,
#   a disabled entry, an unknown one, a malformed one, a token that
#   cannot be read, and --to beside the option;
# - all: a child killed with -9 is said and started again (a new pid),
#   --status shows each entry's, a SIGTERM ends them all within 10 s.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${EXPORT_POINTS:?}"

. "$(dirname "$0")/receivers.sh" # T, fail, the stores
. "$(dirname "$0")/ship_fixture.sh"
STANDIN=
stop_standin() {
  [ -z "$STANDIN" ] || { kill "$STANDIN" 2>/dev/null || true; wait "$STANDIN" 2>/dev/null || true; }
  STANDIN=
}
trap 'stop_standin; ship_test_end' EXIT

ship_rows 90
ship_flush

"$(dirname "$0")/influxdb2_standin.py" "$T/port" "$T/log" "$T/points" \
  --org ops --bucket pve-live --token live-token &
STANDIN=$!
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
IPORT=$(cat "$T/port")
start_carbon

mkdir -p "$C/priv/metricserver"
printf 'live-token\n' >"$C/priv/metricserver/influx2.pw"
mkdir "$C/priv/metricserver/badtoken.pw" # a token that cannot be read
cat >"$C/status.cfg" <<CFG
influxdb: influx-udp
	server 127.0.0.1
	port 8089

influxdb: influx2
	server 127.0.0.1
	port $IPORT
	influxdbproto http
	organization ops
	bucket pve-live
	api-path-prefix /
	timeout 5

influxdb: off
	server 127.0.0.1
	port $IPORT
	influxdbproto http
	disable 1

influxdb: badtoken
	server 127.0.0.1
	port $IPORT
	influxdbproto http

influxdb: broken
	server 127.0.0.1
	port 70000
	influxdbproto http

graphite: carbon
	server 127.0.0.1
	port $CARBON_PORT
	proto tcp
	path proxmox.mycluster

graphite: carbon-udp
	server 127.0.0.1
CFG

ship() { # expected-exit ID [OPTIONS]: stderr in $T/err
  local want=$1 id=$2 rc=0
  shift 2
  "$PVECG" ship --pve-metric-server "$id" --data-dir "$D" --pve-config-dir "$C" \
    --state-dir "$T/state-$id" --once "$@" 2>"$T/err" || rc=$?
  [ "$rc" -eq "$want" ] || fail "ship $id: exit $rc, not $want: $(cat "$T/err")"
}
refused() { # ID WORDS: refused at start with a line holding WORDS
  ship 2 "$1"
  grep -qF "pvecg ship: --pve-metric-server $1: $2" "$T/err" || fail "$1: $(cat "$T/err")"
}

# ---- refused at start -------------------------------------------------------
refused influx-udp "the entry sends over UDP, which acknowledges nothing, so no row could be known to be in the store; InfluxDB 1.x's HTTP API beside it acknowledges; that works: pvecg ship --pve-metric-server influx-udp --data-dir $D --pve-config-dir $C --state-dir $T/state-influx-udp --once --http-port 8086 --db proxmox (the database its UDP listener writes to); or set its Protocol to HTTP or HTTPS in Datacenter -> Metric Server (the same InfluxDB's API)"
refused carbon-udp "the entry sends over UDP, which acknowledges nothing, so no row could be known to be in the store; carbon also listens on TCP (port 2003 by default), which acknowledges; that works: pvecg ship --pve-metric-server carbon-udp --data-dir $D --pve-config-dir $C --state-dir $T/state-carbon-udp --once --tcp-port 2003; or set its Protocol to TCP in Datacenter -> Metric Server"
refused off "the entry is disabled (disable 1); enable it in Datacenter -> Metric Server, or name another entry"
refused nosuch "no such entry in $C/status.cfg; influx-udp, influx2, off, badtoken, broken, carbon, carbon-udp"
refused broken "the entry does not read: "
refused badtoken "its token $C/priv/metricserver/badtoken.pw cannot be read"
ship 2 carbon --tcp-port 2003
grep -qF "pvecg ship: --pve-metric-server carbon: --tcp-port name a transport beside UDP, and the entry sends over tcp; leave it out" \
  "$T/err" || fail "--tcp-port beside TCP: $(cat "$T/err")"
ship 2 carbon-udp --http-port 8086 --db proxmox
grep -qF "pvecg ship: --pve-metric-server carbon-udp: --http-port and --db is not for a Graphite entry; give --tcp-port PORT" \
  "$T/err" || fail "--http-port beside Graphite: $(cat "$T/err")"
ship 2 influx2 --to "http://127.0.0.1:$IPORT/write"
grep -qF "pvecg ship: --pve-metric-server influx2: --to is the entry's to say; leave it out, or leave out --pve-metric-server" \
  "$T/err" || fail "--to beside: $(cat "$T/err")"
[ ! -s "$T/log" ] || fail "a refused entry sent: $(cat "$T/log")"

# ---- InfluxDB over HTTP: Proxmox's live points first, then the history ------
live=$((SIM + 3600)) # after the files' last row, as pvestatd writes now
live_ns=${live}000000000
curl -sf -H "Authorization: Token live-token" \
  "http://127.0.0.1:$IPORT/api/v2/write?org=ops&bucket=pve-live" --data-binary \
  "system,object=qemu,vmid=100,nodename=pve1,host=web cpu=0.125,mem=1048576 $live_ns
system,object=lxc,vmid=101,nodename=pve1,host=ct1 cpu=0.25 $live_ns" ||
  fail "the live points were not taken"
ship 0 influx2
[ "$(grep -c "^POST /api/v2/write?org=ops&bucket=pve-live 204 " "$T/log")" -ge 2 ] || fail "influx2: $(cat "$T/log")"
"$EXPORT_POINTS" influx2 "$T/points" >"$T/all"
grep -v "	$live	" "$T/all" >"$T/got" || true
ship_expected influx >"$T/want"
diff "$T/want" "$T/got" >"$T/diff" || fail "influx2: the history differs: $(head -5 "$T/diff")"
# one series per guest and measurement: the live one and the history's
for vm in 100 101; do
  keys=$(awk -F '\t' -v vm="vmid=$vm" 'index($1, vm) && $1 ~ /^system,/ { sub(/ [^ ]*$/, "", $1); print $1 }' "$T/all" | sort -u)
  [ "$(wc -l <<<"$keys")" -eq 1 ] || fail "VM $vm: more than one series: $keys"
done
check_live() { grep -qx "$1	$live	$2" "$T/all" || fail "the live point $1 changed: $(grep "	$live	" "$T/all")"; }
check_live "system,host=web,nodename=pve1,object=qemu,vmid=100 cpu" 0.125
check_live "system,host=ct1,nodename=pve1,object=lxc,vmid=101 cpu" 0.25

# ---- Graphite over TCP, the entry's path as the prefix ----------------------
exec 3<>"/dev/tcp/127.0.0.1/$CARBON_PORT"
printf 'proxmox.mycluster.qemu.100.cpu 0.125 %s\n' "$live" >&3
exec 3>&-
ship 0 carbon
ship_expected graphite | sed 's/^proxmox\./proxmox.mycluster./' >"$T/want"
read_back() {
  "$EXPORT_POINTS" graphite "$CARBON_WHISPER" "$((SIM - 60 * 91))" "$SIM" >"$T/got"
  [ "$(wc -l <"$T/got")" -eq "$(wc -l <"$T/want")" ]
}
wait_until "the history in whisper" read_back
diff "$T/want" "$T/got" >"$T/diff" || fail "carbon: the history differs: $(head -5 "$T/diff")"
"$EXPORT_POINTS" graphite "$CARBON_WHISPER" "$((live - 60))" "$live" >"$T/live"
grep -qx "proxmox.mycluster.qemu.100.cpu	$live	0.125" "$T/live" ||
  fail "carbon: the live point is not in the history's series: $(cat "$T/live")"
[ ! -e "$CARBON_WHISPER/proxmox/qemu" ] || fail "carbon: a series outside the entry's path"

# ---- organization and bucket escaped as pve-manager's URL has them -----------
# InfluxDB.pm puts them into the URL as they are and HTTP::Request's URI
# escapes what is not a URI character: a space and UTF-8 become %XX, '&'
# and '%' stay (and split the query as they do for Proxmox's own points).
rm -f "$T/hport" "$T/hlog"
"$(dirname "$0")/http_standin.py" "$T/hport" "$T/hlog" 204 &
HSTANDIN=$!
for _ in $(seq 100); do [ -s "$T/hport" ] && break; sleep 0.05; done
HPORT=$(cat "$T/hport")
cp "$C/status.cfg" "$T/status.cfg.kept"
cat >>"$C/status.cfg" <<CFG

influxdb: names
	server 127.0.0.1
	port $HPORT
	influxdbproto http
	organization ops & dev 100%
	bucket pve-été
	api-path-prefix influx/
CFG
ship 0 names
kill "$HSTANDIN"; wait "$HSTANDIN" 2>/dev/null || true
want='/influx//api/v2/write?org=ops%20&%20dev%20100%&bucket=pve-%C3%A9t%C3%A9'
got=$(awk 'NR == 1 { print $2 }' "$T/hlog")
[ "$got" = "$want" ] || fail "names: the request went to $got, not $want"
[ "$(awk '$2 != w' w="$want" "$T/hlog" | wc -l)" -eq 0 ] || fail "names: $(cat "$T/hlog")"
if perl -MHTTP::Request -e 1 2>/dev/null; then # pve-manager's own modules
  pve=$(perl -MHTTP::Request -e 'print HTTP::Request->new(POST => $ARGV[0])->uri->path_query' \
    "http://127.0.0.1:$HPORT/influx//api/v2/write?org=ops & dev 100%&bucket=pve-été")
  [ "$pve" = "$want" ] || fail "names: HTTP::Request makes $pve"
fi
mv "$T/status.cfg.kept" "$C/status.cfg"

# ---- UDP entries over the acknowledging transport beside them -------------
# InfluxDB 1.x's HTTP API next to its UDP listener, into the database that
# listener writes to; carbon's TCP listener next to its UDP one, under the
# entry's path.  Every row lands under the entry's names.
start_influxdb
influx_db() { curl -sf -XPOST "$INFLUX_URL/query" --data-urlencode "q=CREATE DATABASE $1" >/dev/null; }
influx_db pveudp || fail "influxdb: CREATE DATABASE"
ship 0 influx-udp --http-port "${INFLUX_URL##*:}" --db pveudp
"$EXPORT_POINTS" influx "$INFLUX_URL" pveudp >"$T/got"
ship_expected influx >"$T/want"
diff "$T/want" "$T/got" >"$T/diff" || fail "influx-udp: the store differs: $(head -5 "$T/diff")"
cp "$C/status.cfg" "$T/status.cfg.kept"
cat >>"$C/status.cfg" <<CFG

graphite: carbon-udp-here
	server 127.0.0.1
	port $CARBON_PORT
	path proxmox.viaudp
CFG
ship 0 carbon-udp-here --tcp-port "$CARBON_PORT"
ship_expected graphite | sed 's/^proxmox\./proxmox.viaudp./' >"$T/want"
read_udp() {
  "$EXPORT_POINTS" graphite "$CARBON_WHISPER" "$((SIM - 60 * 91))" "$SIM" | grep '^proxmox\.viaudp\.' >"$T/got" || true
  [ "$(wc -l <"$T/got")" -eq "$(wc -l <"$T/want")" ]
}
wait_until "the UDP entry's rows in whisper" read_udp
diff "$T/want" "$T/got" >"$T/diff" || fail "carbon-udp-here: the history differs: $(head -5 "$T/diff")"
mv "$T/status.cfg.kept" "$C/status.cfg"

# ---- all: a shipper for each entry that acknowledges -------------------------
ship_rows 5
ship_flush
rc=0
"$PVECG" ship --pve-metric-server all --data-dir "$D" --pve-config-dir "$C" \
  --state-dir "$T/state-all" --once 2>"$T/err" || rc=$?
# badtoken is enabled and over HTTP, so it is tried, and refused
[ "$rc" -eq 2 ] || fail "all: exit $rc, not 2: $(cat "$T/err")"
for left in "influx-udp: it sends over UDP, which acknowledges nothing" \
  "off: disabled" "broken: line " "carbon-udp: it sends over UDP, which acknowledges nothing"; do
  grep -qF "pvecg ship: --pve-metric-server all: leaving out $left" "$T/err" ||
    fail "all: $left not said: $(cat "$T/err")"
done
grep -qF "pvecg ship: --pve-metric-server badtoken: its token" "$T/err" || fail "all: badtoken: $(cat "$T/err")"
ship_cursors_at_end "$T/state-all/influx2" || fail "all: influx2's cursors: $(cat "$T"/state-all/influx2/*.state)"
ls "$T"/state-all/carbon/*.state >/dev/null || fail "all: no state for carbon"
[ ! -e "$T/state-all/off" ] && [ ! -e "$T/state-all/influx-udp" ] || fail "all: a state for an entry left out"
# running: a child that dies is started again; a SIGTERM to the shipper
# ends every entry's shipper within 10 s
"$PVECG" ship --pve-metric-server all --data-dir "$D" --pve-config-dir "$C" \
  --state-dir "$T/state-run" --interval 1 2>"$T/err" &
all=$!
for _ in $(seq 100); do
  [ "$(pgrep -c -f "state-dir $T/state-run")" -ge 3 ] && break
  sleep 0.05
done
# the entries' first passes done (a loaded machine takes its time)
for _ in $(seq 200); do
  ship_cursors_at_end "$T/state-run/influx2" 2>/dev/null && break
  sleep 0.1
done
# a child killed with -9 is said and started again, with a new pid
old=$(cat "$T/state-run/influx2/lock")
kill -KILL "$old"
for _ in $(seq 100); do
  grep -qF "pvecg ship: --pve-metric-server all: influx2's shipper started again" "$T/err" && break
  sleep 0.05
done
grep -qx "pvecg ship: --pve-metric-server all: influx2's shipper (pid $old) was killed by signal 9 (Killed); starting it again in 1 s" \
  "$T/err" || fail "all: the killed child not said: $(cat "$T/err")"
new=$(sed -n "s/^pvecg ship: --pve-metric-server all: influx2's shipper started again (pid \([0-9]*\))$/\1/p" "$T/err")
[ -n "$new" ] && [ "$new" != "$old" ] && kill -0 "$new" || fail "all: influx2 not started again: $(cat "$T/err")"
for _ in $(seq 100); do [ "$(cat "$T/state-run/influx2/lock")" = "$new" ] && break; sleep 0.05; done
# --status shows each entry, and which one a shipper feeds now
"$PVECG" ship --status --pve-metric-server all --pve-config-dir "$C" \
  --state-dir "$T/state-run" >"$T/status" 2>/dev/null || true
grep -qx "entry influx2: shipping (pid $new)" "$T/status" || fail "all: --status: $(cat "$T/status")"
grep -qx "entry carbon: shipping (pid [0-9]*)" "$T/status" || fail "all: --status, carbon: $(cat "$T/status")"
grep -qx "entry badtoken: no shipper running" "$T/status" || fail "all: --status, badtoken: $(cat "$T/status")"
# badtoken's child, refused at every start, is started again with a back-off
grep -qx "pvecg ship: --pve-metric-server all: badtoken's shipper (pid [0-9]*) exited with status 2; starting it again in 1 s" \
  "$T/err" || fail "all: badtoken's exit not said: $(cat "$T/err")"
kids=$(pgrep -P "$all" | sort)
t0=$(date +%s%N)
kill -TERM "$all"
rc=0
wait "$all" || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -lt 10000 ] || fail "all: the stop took $ms ms"
for k in $kids; do ! kill -0 "$k" 2>/dev/null || fail "all: child $k left running"; done
[ "$rc" -eq 2 ] || fail "all, stopped: exit $rc, not 2 (badtoken's): $(cat "$T/err")"
[ "$(pgrep -c -f "state-dir $T/state-run" || true)" -eq 0 ] || fail "all: a shipper left running"
ship_cursors_at_end "$T/state-run/influx2" || fail "all, running: influx2's cursors"
echo PASS
