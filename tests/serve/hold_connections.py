#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""One client that holds connections with half a request header each, and
a second one, from another loopback address, whose requests must still be
answered within a second: what `pvecg serve` owes its other users when a
client misbehaves.

usage: hold_connections.py PORT SERVER_PID HOLD
Prints "kept N" (connections the server still holds from the first
client), "answered N of M, slowest S s", "rss before/held KB"; exits 1 on
a request that was not answered in time."""
import resource
import socket
import sys
import time

port, pid, hold = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if hard != resource.RLIM_INFINITY and hard < hold + 100:
    print("SKIP: RLIMIT_NOFILE %d is below %d" % (hard, hold + 100))
    sys.exit(77)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def rss_kb():
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def ask(source):
    """One request from source; its time, or None when not answered."""
    t0 = time.monotonic()
    s = socket.create_connection(("127.0.0.1", port), timeout=1,
                                 source_address=(source, 0))
    try:
        s.sendall(b"GET /api2/json/nodes HTTP/1.1\r\nHost: x\r\n"
                  b"Connection: close\r\n\r\n")
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        ok = data.startswith(b"HTTP/1.1 200")
    except OSError:
        ok = False
    finally:
        s.close()
    return time.monotonic() - t0 if ok else None


before = rss_kb()
held = []
for _ in range(hold):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=1)
        s.sendall(b"GET /api2/json/nodes HTTP/1.1\r\nHost: ")
        held.append(s)
    except OSError:
        pass
time.sleep(1)
# Which ones the server kept: a closed one reads as end of file.
kept = 0
for s in held:
    s.setblocking(False)
    try:
        kept += s.recv(1) != b""
    except BlockingIOError:
        kept += 1
    except OSError:
        pass
print("kept %d" % kept)
times = [ask("127.0.0.2") for _ in range(20)]
answered = [t for t in times if t is not None]
print("answered %d of %d, slowest %.3f s"
      % (len(answered), len(times), max(answered) if answered else -1))
print("rss before %d KB, held %d KB" % (before, rss_kb()))
for s in held:
    s.close()
time.sleep(0.5)
again = ask("127.0.0.1")
print("the first client again: %s" % ("answered" if again else "refused"))
sys.exit(0 if len(answered) == len(times) and max(answered) < 1.0
         and again is not None else 1)
