#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A write endpoint that answers as told, for `pvecg export --to http://`:
what real stores do only when they are in trouble (5xx, slow answers,
closing the connection) or what a test wants to see (the headers).

usage: http_standin.py PORT_FILE LOG_FILE [--tls CERT KEY] ANSWER...
Each request takes the next ANSWER (the last one repeats):
  204, 503, 400:<message>   answer that status (and message)
  slow                      answer 204 after 3 s
  hang                      read the request, never answer
  retry:N                   503 asking to wait N s (Retry-After)
  close                     close the connection without an answer
  mark:V:400:<message>      a remote write request holding a series with a
                            label of value V: that status (and message);
                            any other: 204
  limit:N                   a body of more than N bytes: 413; else 204
The port it listens on (127.0.0.1; $STANDIN_PORT, or any free one) goes
to PORT_FILE; per request one
line to LOG_FILE: "<method> <path> <authorization> <body bytes>
<client port>" (one port: one kept-alive connection), then
" NAME=value" for each header named in $STANDIN_HEADERS (blanks as '_');
with $STANDIN_SAMPLES set (or a mark: answer), then " <status> <samples>
<marked samples>" of the remote write request (snappy, protobuf) as read.
"""
import http.server
import os
import socketserver
import ssl
import sys
import time

answers = sys.argv[3:]
tls = None
if answers[0] == "--tls":
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(answers[1], answers[2])
    answers = answers[3:]
count = 0


def varint(b, i):
    n = shift = 0
    while True:
        c = b[i]
        i += 1
        n |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return n, i


def unsnappy(b):
    """Snappy's block format, as the remote write spec sends it."""
    _, i = varint(b, 0)
    out = bytearray()
    while i < len(b):
        tag = b[i]
        i += 1
        kind = tag & 3
        if kind == 0:
            n = tag >> 2
            if n >= 60:
                size = n - 59
                n = int.from_bytes(b[i:i + size], "little")
                i += size
            out += b[i:i + n + 1]
            i += n + 1
            continue
        if kind == 1:
            n, off = ((tag >> 2) & 7) + 4, ((tag >> 5) << 8) | b[i]
            i += 1
        else:
            size = 2 if kind == 2 else 4
            n, off = (tag >> 2) + 1, int.from_bytes(b[i:i + size], "little")
            i += size
        for _ in range(n):
            out.append(out[-off])
    return bytes(out)


def fields(b):
    """(field number, bytes) of a message's length-delimited fields."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        if key & 7 == 2:
            n, i = varint(b, i)
            yield key >> 3, b[i:i + n]
            i += n
        elif key & 7 == 1:
            i += 8
        elif key & 7 == 0:
            _, i = varint(b, i)
        else:
            raise ValueError("wire type %d" % (key & 7))


def samples_of(body, mark):
    """The request's samples, and those of series labelled mark."""
    total = marked = 0
    for _, ts in fields(unsnappy(body)):
        n, hit = 0, False
        for number, value in fields(ts):
            if number == 2:
                n += 1
            elif mark is not None:
                hit |= dict(fields(value)).get(2) == mark.encode()
        total += n
        marked += n if hit else 0
    return total, marked


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as pvecg asks

    def log_message(self, *args):
        pass

    def do_POST(self):
        global count
        answer = answers[min(count, len(answers) - 1)]
        count += 1
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        mark = answer.split(":")[1] if answer.startswith("mark:") else None
        extra = ""
        if answer.startswith("limit:"):
            answer = "413:too large" if len(body) > int(answer[6:]) else "204"
        if os.environ.get("STANDIN_SAMPLES") or mark is not None:
            total, marked = samples_of(body, mark)
            if mark is not None:
                answer = answer.split(":", 2)[2] if marked else "204"
            extra = " %s %d %d" % (answer.split(":")[0], total, marked)
        with open(sys.argv[2], "a") as log:
            log.write("POST %s %s %d %d%s%s\n" % (
                self.path, self.headers.get("Authorization", "-")
                .replace(" ", "_"), len(body), self.client_address[1],
                "".join(" %s=%s" % (h, self.headers.get(h, "-")
                                    .replace(" ", "_"))
                        for h in os.environ.get("STANDIN_HEADERS", "")
                        .split()), extra))
        if answer == "close":
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if answer == "hang":
            time.sleep(3600)
            return
        if answer.startswith("retry:"):
            self.send_response(503)
            self.send_header("Retry-After", answer[6:])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if answer == "slow":
            time.sleep(3)
            answer = "204"
        status, _, message = answer.partition(":")
        data = message.encode()
        self.send_response(int(status))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", int(os.environ.get("STANDIN_PORT", "0"))),
                Handler)
if tls is not None:
    server.socket = tls.wrap_socket(server.socket, server_side=True)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])  # the port appears whole
server.serve_forever()
