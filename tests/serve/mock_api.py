#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A stand-in for `pvecg serve` while working on the page (src/serve/web/).

Serves src/serve/web/ with the same Content-Security-Policy as the real server
and canned answers for cluster/resources and rrddata, so the page and
tests/serve/page_check.sh can be tried without RRD files:

    now=$(date +%s)
    tests/serve/mock_api.py --port 8099 --now "$now" &
    tests/serve/page_check.sh http://127.0.0.1:8099 qemu/100 /tmp/p.png \
        "$(tests/serve/mock_api.py --now "$now" --expect qemu/100)"

The rows are a pure function of (target, timeframe, cf) and the clock
(or --now) rounded to the row step: the first rows are empty (a file
created recently), a block in the middle is empty (the collector was down)
and every series misses a few rows of its own, so the page's gaps and the
data-points counts are exercised; lxc/103 has rows without any value and
qemu/104 has no file (an error).  --expect TARGET prints the page_check.sh
expectation for the rows this mock answers.  Not the real server: the real
test runs against `pvecg serve`.
"""

import argparse
import json
import math
import os
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; "
       "connect-src 'self'; img-src 'self' data:; base-uri 'none'; "
       "form-action 'none'; frame-ancestors 'none'")

WEB = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                   "..", "..", "src", "serve", "web")
STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
          "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/app.css": ("app.css", "text/css; charset=utf-8")}

GIB = 1024 ** 3
MIB = 1024 ** 2

RESOURCES = [
    {"id": "node/pve1", "type": "node", "node": "pve1"},
    {"id": "node/pve2", "type": "node", "node": "pve2"},
    {"id": "qemu/100", "type": "qemu", "vmid": 100, "name": "web",
     "node": "pve1"},
    {"id": "lxc/101", "type": "lxc", "vmid": 101, "name": "db",
     "node": "pve1"},
    {"id": "guest/102", "type": "guest", "vmid": 102},
    {"id": "lxc/103", "type": "lxc", "vmid": 103, "name": "new",
     "node": "pve2"},
    {"id": "qemu/104", "type": "qemu", "vmid": 104, "name": "no-file",
     "node": "pve2"},
]

# Row step (seconds) and row count per timeframe.
TIMEFRAMES = {"hour": (60, 70), "day": (60, 1440), "week": (1800, 336),
              "month": (1800, 1440), "year": (21600, 1440),
              "decade": (604800, 520)}

GUEST_KEYS = ["maxcpu", "cpu", "maxmem", "mem", "maxdisk", "disk", "netin",
              "netout", "diskread", "diskwrite", "memhost",
              "pressurecpusome", "pressurecpufull", "pressureiosome",
              "pressureiofull", "pressurememorysome", "pressurememoryfull"]
NODE_KEYS = ["loadavg", "maxcpu", "cpu", "iowait", "memtotal", "memused",
             "swaptotal", "swapused", "roottotal", "rootused", "netin",
             "netout", "memavailable", "arcsize", "pressurecpusome",
             "pressureiosome", "pressureiofull", "pressurememorysome",
             "pressurememoryfull"]

# The page's graphs (src/serve/web/app.js), for --expect.  arcsize is drawn only
# when some row has it.
GUEST_GRAPHS = {
    "cpu": ["cpu"],
    "memory": ["memhost", "mem", "maxmem"],
    "network": ["netin", "netout"],
    "disk": ["diskread", "diskwrite"],
    "pressure": ["pressurecpusome", "pressurecpufull", "pressureiosome",
                 "pressureiofull", "pressurememorysome",
                 "pressurememoryfull"],
}
NODE_GRAPHS = {
    "cpu": ["cpu", "iowait"],
    "load": ["loadavg"],
    "memory": ["memtotal", "memused", "memavailable", "arcsize"],
    "swap": ["swaptotal", "swapused"],
    "network": ["netin", "netout"],
    "root": ["roottotal", "rootused"],
    "pressure": ["pressurecpusome", "pressureiosome", "pressureiofull",
                 "pressurememorysome", "pressurememoryfull"],
}


def value(key, i, seed, cf):
    """A plausible, moving value for column key in row i."""
    s = math.sin(i / 9.0 + seed)
    c = math.cos(i / 23.0 + seed * 2)
    peak = 1.25 if cf == "MAX" else 1.0
    table = {
        "maxcpu": 2 + seed % 3 * 2,
        "cpu": (0.25 + 0.15 * s + 0.08 * c) * peak,
        "maxmem": 4 * GIB,
        "mem": (1.8 + 0.4 * s) * GIB * peak,
        "memhost": (2.1 + 0.5 * s + 0.1 * c) * GIB * peak,
        "maxdisk": 32 * GIB,
        "disk": 0,
        "netin": (600 + 500 * s) * 1024 * peak,
        "netout": (150 + 120 * c) * 1024 * peak,
        "diskread": (2 + 1.8 * c) * MIB * peak,
        "diskwrite": (0.8 + 0.7 * s) * MIB * peak,
        "pressurecpusome": (4 + 3 * s) * peak,
        "pressurecpufull": (1.5 + 1.2 * s) * peak,
        "pressureiosome": (2 + 1.8 * c) * peak,
        "pressureiofull": (1 + 0.9 * c) * peak,
        "pressurememorysome": (0.6 + 0.5 * s) * peak,
        "pressurememoryfull": (0.2 + 0.2 * s) * peak,
        "loadavg": (1.2 + 0.8 * s + 0.3 * c) * peak,
        "iowait": (0.03 + 0.025 * c) * peak,
        "memtotal": 64 * GIB,
        "memused": (30 + 6 * s) * GIB * peak,
        "memavailable": (30 - 6 * s) * GIB,
        "arcsize": (8 + 2 * c) * GIB,
        "swaptotal": 8 * GIB,
        "swapused": (0.5 + 0.3 * c) * GIB * peak,
        "roottotal": 100 * GIB,
        "rootused": (40 + 0.01 * (i % 1000)) * GIB,
    }
    v = table[key]
    return round(v, 4) if isinstance(v, float) else v


def rows(target, timeframe, cf, now=None):
    step, count = TIMEFRAMES[timeframe]
    now = int(time.time()) if now is None else now
    last = now - now % step
    is_node = target.startswith("node/")
    keys = list(NODE_KEYS if is_node else GUEST_KEYS)
    if target == "node/pve2":
        keys.remove("arcsize")          # a node without ZFS
    seed = sum(map(ord, target)) % 7
    # No data yet in the first rows; none at all for a guest just created.
    lead = count if target == "lxc/103" else 5
    down = range(count // 2, count // 2 + 4)   # collector down
    out = []
    for i in range(count):
        # Rows by index from the oldest, so a row's values stay the same
        # between two requests within one step.
        t = last - (count - 1 - i) * step
        n = t // step
        row = {"time": t}
        if i >= lead and i not in down:
            for k_index, key in enumerate(keys):
                if (n * 7 + k_index * 3) % 23 == 0:
                    continue            # this series misses this row
                row[key] = value(key, n, seed, cf)
        out.append(row)
    return out


def expect(target, timeframe="hour", cf="AVERAGE", now=None):
    data = rows(target, timeframe, cf, now)
    graphs = NODE_GRAPHS if target.startswith("node/") else GUEST_GRAPHS
    result = {}
    for graph, series in graphs.items():
        result[graph] = {}
        for key in series:
            n = sum(1 for r in data if key in r)
            if key == "arcsize" and n == 0:
                continue
            result[graph][key] = n
    return result


class Handler(BaseHTTPRequestHandler):
    server_version = "pvecg-mock"
    fail_after = None                   # rrddata answers before failing
    now = None                          # a fixed clock, or the real one
    answered = 0

    def log_message(self, fmt, *args):
        if self.server.verbose:
            super().log_message(fmt, *args)

    def send(self, status, body, ctype):
        if isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def json(self, status, obj):
        self.send(status, json.dumps(obj), "application/json;charset=UTF-8")

    def error(self, status, message):
        self.json(status, {"data": None, "message": message})

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        if url.path in STATIC:
            name, ctype = STATIC[url.path]
            try:
                with open(os.path.join(WEB, name), "rb") as f:
                    return self.send(200, f.read(), ctype)
            except OSError:
                return self.error(404, "not found")
        if url.path == "/api2/json/cluster/resources":
            return self.json(200, {"data": RESOURCES})
        m = re.fullmatch(r"/api2/json/nodes/([A-Za-z0-9.-]+)"
                         r"(?:/(qemu|lxc)/(\d+))?/rrddata", url.path)
        if not m:
            return self.error(404, "no such path: " + url.path)
        timeframe = query.get("timeframe")
        cf = query.get("cf", "AVERAGE")
        if timeframe not in TIMEFRAMES:
            return self.error(400, "timeframe: value '%s' does not have a "
                              "value in the enumeration 'hour, day, week, "
                              "month, year, decade'" % timeframe)
        if cf not in ("AVERAGE", "MAX"):
            return self.error(400, "cf: value '%s' does not have a value in "
                              "the enumeration 'AVERAGE, MAX'" % cf)
        node, kind, vmid = m.groups()
        if kind:
            known = {r["vmid"]: r for r in RESOURCES if "vmid" in r}
            res = known.get(int(vmid))
            if res is None or res.get("name") == "no-file":
                return self.error(404, "no RRD file for guest %s" % vmid)
            target = res["id"]
        else:
            target = "node/" + node
            if not any(r["id"] == target for r in RESOURCES):
                return self.error(404, "no RRD file for node %s" % node)
        cls = type(self)
        if cls.fail_after is not None and cls.answered >= cls.fail_after:
            return self.error(503, "rrddata unavailable (mock --fail-after)")
        cls.answered += 1
        self.json(200, {"data": rows(target, timeframe, cf, cls.now)})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=8099)
    ap.add_argument("--bind", default="127.0.0.1")
    ap.add_argument("--expect", metavar="TARGET",
                    help="print page_check.sh's EXPECT_JSON for TARGET")
    ap.add_argument("--timeframe", default="hour", choices=TIMEFRAMES)
    ap.add_argument("--cf", default="AVERAGE", choices=("AVERAGE", "MAX"))
    ap.add_argument("--fail-after", type=int, metavar="N",
                    help="answer rrddata with 503 after N answers, to see "
                         "the page keep its graphs when a refresh fails")
    ap.add_argument("--now", type=int, metavar="EPOCH",
                    help="answer rows as of this time rather than the "
                         "clock's, so that --expect stays right however "
                         "long a check takes")
    ap.add_argument("--verbose", action="store_true", help="log requests")
    args = ap.parse_args()
    if args.expect:
        print(json.dumps(expect(args.expect, args.timeframe, args.cf,
                                args.now)))
        return 0
    Handler.fail_after = args.fail_after
    Handler.now = args.now
    httpd = ThreadingHTTPServer((args.bind, args.port), Handler)
    httpd.verbose = args.verbose
    print("mock serving on http://%s:%d/" % httpd.server_address[:2],
          file=sys.stderr, flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
