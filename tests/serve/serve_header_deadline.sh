#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The header deadline of pvecg serve (--header-timeout 2 here), from real
# sockets (python3):
#   - a client that sends half a header and goes silent, one that sends
#     nothing, and one that trickles a byte every half second (which an
#     inactivity timeout never closes) are all closed 2 s after they
#     connected;
#   - over TLS, a client that never starts the handshake, and one that
#     sends half a header after it, are closed after 2 s as well;
#   - a keep-alive connection left idle after a full answered request
#     outlives the header deadline: 4 s later its next request is
#     answered, and it is closed only after the 30 s idle time;
#   - after an answer, half of the next header is closed 2 s after its
#     request line;
#   - a GET or HEAD that announces a body (Content-Length: 100000, or
#     Transfer-Encoding: chunked) and then trickles it is answered 400 at
#     once and closed, without its body; Content-Length: 0 is answered;
#   - the closings are logged; --header-timeout takes 1..30.
set -euo pipefail

for tool in curl openssl python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
: "${PVECG:?}"

T=$(mktemp -d)
SERVE_PID=
PLAIN_PID=
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/fixture.sh"
. "$HERE/tls_fixture.sh"
trap 'stop_serve; [ -z "$PLAIN_PID" ] || { kill "$PLAIN_PID"; wait "$PLAIN_PID"; } 2>/dev/null || true; rm -rf "$T"' EXIT
mkdir "$T/data"
make_tls "$T"

PLAIN=$(loopback_port)
start_serve "$T/plain.log" --listen "127.0.0.1:$PLAIN" --data-dir "$T/data" --pve-config-dir "" \
  --header-timeout 2
PLAIN_PID=$SERVE_PID
TLS=$(loopback_port)
start_serve "$T/tls.log" --listen "127.0.0.1:$TLS" --data-dir "$T/data" --pve-config-dir "" \
  --header-timeout 2 --tls-cert "$T/server.pem" --tls-key "$T/server.key"

python3 - "$PLAIN" "$TLS" "$T/ca.pem" <<'EOF'
import socket, ssl, sys, threading, time

plain, tls, ca = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
REQUEST = b"GET /api2/json/nodes HTTP/1.1\r\nHost: x\r\n\r\n"
failures = []


def check(what, ok, detail):
    print("%s - %s: %s" % ("ok  " if ok else "FAIL", what, detail))
    if not ok:
        failures.append(what)


def closed_after(s, t0, trickle=None):
    """Seconds from t0 until the server closes s (trickle: bytes to send
    one every half second meanwhile)."""
    s.settimeout(0.5)
    while time.monotonic() - t0 < 40:
        try:
            if s.recv(4096) == b"":
                break
        except socket.timeout:
            if trickle:
                s.sendall(trickle[:1])
                trickle = trickle[1:]
        except (ConnectionResetError, ssl.SSLError, BrokenPipeError):
            break
    return time.monotonic() - t0


def answered(s):
    """Reads one answer to REQUEST; its status line."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += s.recv(4096)
    head, body = data.split(b"\r\n\r\n", 1)
    length = [int(l.split(b":")[1]) for l in head.split(b"\r\n")
              if l.lower().startswith(b"content-length:")][0]
    while len(body) < length:
        body += s.recv(4096)
    return head.split(b"\r\n")[0].decode()


def within(what, seconds, low, high):
    check(what, low <= seconds <= high, "closed after %.2f s" % seconds)


def idle_keep_alive(result):
    s = socket.create_connection(("127.0.0.1", plain))
    s.sendall(REQUEST)
    result["first"] = answered(s)
    time.sleep(4)
    s.sendall(REQUEST)
    result["second"] = answered(s)
    result["closed"] = closed_after(s, time.monotonic())


keep = {}
keeper = threading.Thread(target=idle_keep_alive, args=(keep,))
keeper.start()

t0 = time.monotonic()
s = socket.create_connection(("127.0.0.1", plain))
s.sendall(b"GET /api2/json/nodes HTTP/1.1\r\nHost: x\r\n")
within("half a header, then silence", closed_after(s, t0), 1.9, 3.0)

t0 = time.monotonic()
s = socket.create_connection(("127.0.0.1", plain))
within("nothing sent", closed_after(s, t0), 1.9, 3.0)

t0 = time.monotonic()
s = socket.create_connection(("127.0.0.1", plain))
within("a byte every half second", closed_after(s, t0, REQUEST * 4), 1.9, 3.0)

t0 = time.monotonic()
s = socket.create_connection(("127.0.0.1", tls))
within("TLS: no handshake", closed_after(s, t0), 1.9, 3.0)

context = ssl.create_default_context(cafile=ca)
t0 = time.monotonic()
s = context.wrap_socket(socket.create_connection(("127.0.0.1", tls)),
                        server_hostname="localhost")
s.sendall(b"GET /api2/json/nodes HTTP/1.1\r\nHost: x\r\n")
within("TLS: half a header after the handshake", closed_after(s, t0), 1.9, 3.0)

s = socket.create_connection(("127.0.0.1", plain))
s.sendall(REQUEST)
answered(s)
time.sleep(1)
t0 = time.monotonic()
s.sendall(b"GET /api2/json/nodes HTTP/1.1\r\nHost: x\r\n")
within("after an answer: half of the next header", closed_after(s, t0), 1.9, 3.0)

def body_announced(what, head, want):
    """Sends head, then a byte of body every half second: the status line,
    within 0.5 s, and (for a 400) the connection closed soon after."""
    t0 = time.monotonic()
    s = socket.create_connection(("127.0.0.1", plain))
    s.sendall(head)
    s.settimeout(5)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    took = time.monotonic() - t0
    status = data.split(b"\r\n")[0].decode()
    check(what, status == want and took < 0.5,
          "%s after %.2f s" % (status, took))
    if want.endswith("400 Bad Request"):
        if head.startswith(b"GET"):
            check(what + ": the answer says why", data.endswith(
                b'{"data":null,"message":"a GET or HEAD request has no body"}'),
                repr(data[-60:]))
        within(what + ": then closed",
               closed_after(s, time.monotonic(), b"x" * 40), 0, 1.0)


body_announced("GET with Content-Length: 100000",
               b"GET /api2/json/nodes HTTP/1.1\r\nHost: x\r\n"
               b"Content-Length: 100000\r\n\r\nx", "HTTP/1.1 400 Bad Request")
body_announced("GET with Transfer-Encoding: chunked",
               b"GET /api2/json/nodes HTTP/1.1\r\nHost: x\r\n"
               b"Transfer-Encoding: chunked\r\n\r\n1\r\nx",
               "HTTP/1.1 400 Bad Request")
body_announced("HEAD with Content-Length: 5",
               b"HEAD /api2/json/nodes HTTP/1.1\r\nHost: x\r\n"
               b"Content-Length: 5\r\n\r\n", "HTTP/1.1 400 Bad Request")
body_announced("GET with Content-Length: 0", b"GET /api2/json/nodes HTTP/1.1"
               b"\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
               "HTTP/1.1 200 OK")

keeper.join()
check("keep-alive: the first request", keep.get("first") == "HTTP/1.1 200 OK",
      keep.get("first"))
check("keep-alive: a request 4 s later on the same connection",
      keep.get("second") == "HTTP/1.1 200 OK", keep.get("second"))
within("keep-alive: idle after the answer", keep.get("closed", 0), 29.5, 32)
sys.exit(1 if failures else 0)
EOF

fail() { echo "FAIL - $*"; exit 1; }
grep -q "^pvecg serve: closed a connection from 127.0.0.1: no whole request header within 2 s$" "$T/plain.log" ||
  fail "the closing is not logged: $(cat "$T/plain.log")"
echo "ok   - the closing is logged"
grep -q "^pvecg serve: GET /api2/json/nodes: 400 a GET or HEAD request has no body$" "$T/plain.log" ||
  fail "the refused body is not logged: $(cat "$T/plain.log")"
echo "ok   - the refused body is logged"
for bad in 0 31 x; do
  rc=0
  "$PVECG" serve --header-timeout "$bad" --data-dir "$T/data" 2>/dev/null || rc=$?
  [ "$rc" -eq 2 ] || fail "--header-timeout $bad: exit $rc, not 2"
done
echo "ok   - --header-timeout 0, 31 and x are usage errors"
echo PASS
