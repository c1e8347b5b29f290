#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian's HAProxy (option forwardfor) in front of pvecg serve
# --trusted-proxy, on loopback: HAProxy adds an X-Forwarded-For line of
# its own after any the client sent, so the client is the right-most
# address of all the lines, never the first.  A client at 127.0.0.2 that
# forges a first line naming 127.0.0.3 and guesses tokens is logged and
# held off as 127.0.0.2 (Proxmox's words, rhost=127.0.0.2), while
# 127.0.0.3 with the right token still gets 200; a request without a
# forged line is 127.0.0.2's too.  Skipped (77) where haproxy is not
# installed or cannot run here.
set -euo pipefail

for tool in rrdtool curl; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
HAPROXY=$(command -v haproxy || echo /usr/sbin/haproxy)
[ -x "$HAPROXY" ] || { echo "SKIP: haproxy is not installed (Debian's haproxy)"; exit 77; }
: "${PVECG:?}" "${LAYOUT_DEFS:?}"

T=$(mktemp -d)
SERVE_PID=
HAPROXY_PID=
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/fixture.sh"
. "$HERE/tls_fixture.sh"
stop_haproxy() {
  [ -z "$HAPROXY_PID" ] || { kill "$HAPROXY_PID" 2>/dev/null || true; wait "$HAPROXY_PID" 2>/dev/null || true; }
  HAPROXY_PID=
}
trap 'stop_haproxy; stop_serve; rm -rf "$T"' EXIT

T0=1700002800
NOW=$((T0 + 300 * 60))
D=$T/data
mkdir -p "$D/pve-vm-9.0"
make_file pve-vm-9.0 "$D/pve-vm-9.0/100" "$T0"
vm_rows "$T0" 300 | xargs -n 500 rrdtool update "$D/pve-vm-9.0/100"
SECRET=$(new_secret)
WRONG=$(new_secret)
printf '%s\n' "$SECRET" >"$T/token"
chmod 600 "$T/token"
SPORT=$(loopback_port)
start_serve "$T/serve.log" --listen "127.0.0.1:$SPORT" --data-dir "$D" --pve-config-dir "" \
  --now "$NOW" --token-file "$T/token" --trusted-proxy 127.0.0.1

# HAProxy listens on 127.0.0.1 and reaches pvecg serve from 127.0.0.1 (the
# trusted proxy); the clients come from 127.0.0.2 and 127.0.0.3.
HPORT=$(loopback_port)
cat >"$T/haproxy.cfg" <<CFG
global
  log stdout format raw local0
defaults
  mode http
  timeout connect 5s
  timeout client 10s
  timeout server 10s
frontend in
  bind 127.0.0.1:$HPORT
  option forwardfor
  default_backend serve
backend serve
  server s1 127.0.0.1:$SPORT source 127.0.0.1
CFG
if ! "$HAPROXY" -c -f "$T/haproxy.cfg" >"$T/haproxy.check" 2>&1; then
  cat "$T/haproxy.check"
  echo "SKIP: haproxy cannot run here"
  exit 77
fi
"$HAPROXY" -db -f "$T/haproxy.cfg" >"$T/haproxy.log" 2>&1 &
HAPROXY_PID=$!
URL=http://127.0.0.1:$HPORT/api2/json/nodes/pve1/qemu/100/rrddata?timeframe=hour
for _ in $(seq 100); do
  curl -s -o /dev/null --interface 127.0.0.2 "$URL" && break
  sleep 0.05
done
kill -0 "$HAPROXY_PID" 2>/dev/null || { cat "$T/haproxy.log"; echo "FAIL - haproxy did not start"; exit 1; }
code() { # ADDRESS TOKEN [FORGED]: the status through HAProxy
  local forged=()
  [ -z "${3:-}" ] || forged=(-H "X-Forwarded-For: $3")
  curl -s -o /dev/null -w '%{http_code}' --interface "$1" \
    -H "Authorization: Bearer $2" "${forged[@]}" "$URL"
}

check "through HAProxy, the right token" 200 "$(code 127.0.0.2 "$SECRET")"
# a client forging a first line: its guesses are its own
statuses=""
for _ in $(seq 8); do statuses+="$(code 127.0.0.2 "$WRONG" 127.0.0.3) "; done
check "a forged first line: the guesser is refused, then held off" \
  "401 401 401 401 401 429 429 429 " "$statuses"
check "the forged address is not held off" 200 "$(code 127.0.0.3 "$SECRET")"
check "the guesser is held off without a forged line too" 429 \
  "$(code 127.0.0.2 "$SECRET")"
check "the log names the guesser, never the forged address" \
  "5 0" "$(grep -c 'authentication failure; rhost=127.0.0.2 ' "$T/serve.log") $(grep -c 'rhost=127.0.0.3' "$T/serve.log" || true)"

[ "$FAILURES" -eq 0 ] || { echo "$FAILURES failed"; exit 1; }
echo "all passed"
