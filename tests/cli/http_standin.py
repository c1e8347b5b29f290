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
The port it listens on (127.0.0.1; $STANDIN_PORT, or any free one) goes
to PORT_FILE; per request one
line to LOG_FILE: "<method> <path> <authorization> <body bytes>
<client port>" (one port: one kept-alive connection), then
" NAME=value" for each header named in $STANDIN_HEADERS (blanks as '_').
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


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as pvecg asks

    def log_message(self, *args):
        pass

    def do_POST(self):
        global count
        answer = answers[min(count, len(answers) - 1)]
        count += 1
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(sys.argv[2], "a") as log:
            log.write("POST %s %s %d %d%s\n" % (
                self.path, self.headers.get("Authorization", "-")
                .replace(" ", "_"), len(body), self.client_address[1],
                "".join(" %s=%s" % (h, self.headers.get(h, "-")
                                    .replace(" ", "_"))
                        for h in os.environ.get("STANDIN_HEADERS", "")
                        .split())))
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
