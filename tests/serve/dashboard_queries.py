#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The queries of Grafana dashboards over `pvecg serve`'s /metrics, run
against a real Prometheus by serve_dashboards.sh, with the answer each must
give computed here from the rows written to the RRD files.

Grafana.com dashboard 10347, "Proxmox via Prometheus" (uid Dp7Cd57Zza,
revision 4, schemaVersion 37), built on prometheus-pve-exporter's names: its
`instance` variable and the 25 PromQL expressions of its panels are
restated below (DASHBOARD_10347) as they stand in the published JSON, each
with the series and values it must return.  Grafana substitutes $instance
(a single value, not a regex) before it sends a query; 10347 writes its
rate() windows as [5m] and has no other variables.  Its two storage panels
(ids 11 and 15) read pve_storage_info and storage/ ids, which no RRD file
holds: they must stay empty.

packaging/examples/pvecg-grafana-dashboard.json, pvecg's own dashboard:
every target of every panel is read from the file, $instance and
$__range (3600s, its default range of an hour, as Grafana renders it)
substituted, and run for every instance; OURS states what each must
return.  Its joins are on (id, instance, cluster).  Its exact-stall
panels (rate() of pve_pressure_*_waiting_seconds_total, PSI's some, and
pve_pressure_*_stalled_seconds_total, its full) must draw the
thresholds of packaging/examples/pvecg-alerts.yml: both files are parsed
(`thresholds`), and each simple stall rule (a rate() of one counter over
a window, compared with a number) must be the threshold step of the one
panel of its scope, resource and kind, in its severity's colour, over the
same window, named in the panel's description; a panel no rule watches
has no step, and no rule is left without its panel.

Two Prometheus servers scrape: "split" takes server a (a single host) and
each cluster of server b (a collector with its own files and the cluster
prod, guest 196 in both) as targets of their own, each with an instance
label of its own (SPLIT), as 10347's joins on (id, instance) need them:
10347 runs there for every instance.  "whole" takes server b as one
target, where guest 196 is there twice under one instance (told apart by
`cluster`): 10347's group_left fails on that for every instance of the
Prometheus, so only pvecg's dashboard runs there.

The files (FILES) are written as the test goes: one row a second per live
file through rrdcached (`write`), each row logged; the answers use the
rows as logged, `check` first making sure that the newest logged row of
every file is what `rrdtool lastupdate` prints for it, and that every raw
sample a rate() or max_over_time() takes is a logged row of its file at
that time.  A
rate() is computed from the raw samples in its window with Prometheus'
own arithmetic (extrapolatedRate of promql/functions.go, 2.x: the same
operations in the same order on IEEE doubles), so every value is compared
exactly.

usage:
  dashboard_queries.py setup DIR              the files and configurations
  dashboard_queries.py write DIR SOCKET ROWS  ROWS rows a second per live file
  dashboard_queries.py caught-up DIR URL SERVERS
      whether Prometheus holds the newest row of every file of SERVERS
      ("ab": both, "b": server b)
  dashboard_queries.py thresholds DASHBOARD RULES
      the exact-stall panels' thresholds against the alert rules (RULES:
      pvecg-alerts.yml)
  dashboard_queries.py check DIR SOCKET DASHBOARD SPLIT_URL WHOLE_URL WHOLE_INSTANCE
      SPLIT_URL: the Prometheus that scrapes server a and each cluster of
      server b as targets of their own (SPLIT), WHOLE_URL: the one that
      scrapes server b as one target, labelled WHOLE_INSTANCE
"""
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metrics_points  # noqa: E402  (the columns and prometheus-pve-exporter's names)
from metrics_points import export_points  # noqa: E402

# (server, cluster, kind, file name, k, configuration, live): server a is a
# single host (the data directory's own files only), b a collector that
# keeps the cluster prod apart from its own files, each with a guest 196.
# configuration: (type, node, name, template, tags), None for none.  k
# makes each file's values its own.  A file that is not live has one row an
# hour old: stale.
FILES = [
    ("a", "", "node", "pve1", 0, None, True),
    ("a", "", "guest", "100", 1, ("qemu", "pve1", "web-1", "0", "prod;web"), True),
    ("a", "", "guest", "101", 2, ("lxc", "pve1", "ct-1", "0", ""), True),
    ("a", "", "guest", "102", 3, None, True),
    ("a", "", "guest", "103", 4, ("qemu", "pve1", "old", "1", ""), False),
    ("b", "", "node", "pve0", 5, None, True),
    ("b", "", "guest", "196", 6, ("qemu", "pve0", "plain-196", "0", ""), True),
    ("b", "prod", "node", "pve1", 7, None, True),
    ("b", "prod", "guest", "196", 8, ("qemu", "pve1", "prod-web", "0", "web"), True),
    # KSM files beside a guest's and a node's own (configuration: the
    # guest's, for its id and name), a guest without configuration's, a
    # stale one beside the template's, and prod's guest 196's
    ("a", "", "ksm-guest", "100", 9, ("qemu", "pve1", "web-1", "0", "prod;web"), True),
    ("a", "", "ksm-guest", "102", 10, None, True),
    ("a", "", "ksm-guest", "103", 11, ("qemu", "pve1", "old", "1", ""), False),
    ("a", "", "ksm-node", "pve1", 12, None, True),
    ("b", "prod", "ksm-guest", "196", 13, ("qemu", "pve1", "prod-web", "0", "web"), True),
    ("b", "prod", "ksm-node", "pve1", 14, None, True),
    # stall-time files the same way: beside a configured guest, a guest
    # without configuration, a stale one beside the template's, each
    # node of server a and b, and prod's guest 196 (server b's own 196
    # has none)
    ("a", "", "stall-guest", "100", 15, ("qemu", "pve1", "web-1", "0", "prod;web"), True),
    ("a", "", "stall-guest", "102", 16, None, True),
    ("a", "", "stall-guest", "103", 17, ("qemu", "pve1", "old", "1", ""), False),
    ("a", "", "stall-node", "pve1", 18, None, True),
    ("b", "", "stall-node", "pve0", 19, None, True),
    ("b", "prod", "stall-guest", "196", 20, ("qemu", "pve1", "prod-web", "0", "web"), True),
]
LAYOUT = {"node": "pve-node-9.0", "guest": "pve-vm-9.0",
          "ksm-node": "pvecg-ksm-node-1.0", "ksm-guest": "pvecg-ksm-vm-1.0",
          "stall-node": "pvecg-pressure-node-1.0", "stall-guest": "pvecg-pressure-vm-1.0"}
RANGE = "3600s"
# The instance label of each (server, cluster) in the Prometheus that
# scrapes each cluster of server b as a target of its own
# (serve_dashboards.sh's scrape configuration says the same).
SPLIT = {("a", ""): "pve1", ("b", ""): "collector", ("b", "prod"): "prod"}  # $__range for the dashboard's default "now-1h"
GIB, MIB = 1 << 30, 1 << 20


def path_of(top, server, cluster, kind, name):
    return os.path.join(top, server, cluster, LAYOUT[kind], name)


def config_dir(top, server):
    return os.path.join(top, server + "-pve")


def guest_row(k, u):
    """A pve-vm-9.0 row u seconds after the start, as rrdtool update takes
    it: counters grow, gauges move, pressure in percent (avg10)."""
    pressure = [repr(((u + 5 * j + 7 * k) % 40) * 0.25) for j in range(6)]
    return [str(2 + k % 3), repr(((u + 3 * k) % 16) / 32), str(GIB * (2 + k)),
            str(GIB + MIB * ((7 * u + 13 * k) % 700)), str(1 << 35),
            str((1 << 33) + 4096 * ((u + k) % 1000)),
            str(10**6 * k + 1500 * (k + 1) * u), str(2000 * (k + 2) * u + 7),
            str(4096 * (k + 3) * u), str(8192 * (k + 1) * u + 4096),
            str(GIB // 2 * (1 + k % 4) + MIB * ((5 * u + k) % 256))] + pressure


def node_row(k, u):
    pressure = [repr(((u + 3 * j + k) % 40) * 0.25) for j in range(5)]
    return [repr(((u + k) % 20) / 8), str(8 + k), repr(((3 * u + k) % 32) / 64),
            repr(((u + k) % 8) / 256), str(1 << 36),
            str((1 << 34) + MIB * ((3 * u + k) % 4096)), str(1 << 33),
            str((1 << 28) + 4096 * u), str(1 << 37), str((1 << 35) + 4096 * u),
            str(10**4 * (u + 1) * (k + 1)), str(2 * 10**4 * u),
            str((1 << 35) - MIB * (u % 64)), str((1 << 32) + MIB * (u % 16))] + pressure


def ksm_guest_row(k, u):
    """A pvecg-ksm-vm-1.0 row: merging and zero pages, profit (negative
    now and then), saved bytes."""
    merging = 1000 * (k + 1) + 7 * u
    profit = 4096 * merging - 272 * (k + 1) * (u % 9) * 10**4
    return [str(merging), str(u % 5), str(profit), str(4096 * (merging // 2 + u % 3))]


def ksm_node_row(k, u):
    """A pvecg-ksm-node-1.0 row: run, shared, sharing, zero, profit, saved."""
    sharing = 5000 * (k + 1) + 11 * u
    return ["1", str(sharing // 3), str(sharing), str(u % 4),
            str(4096 * sharing - 10**5), str(4096 * (sharing + u % 4))]


def stall_row(k, u):
    """A pvecg-pressure row: the kernel's six totals in microseconds, from
    far above 2^32, each growing by 20000 to 160000 µs a second (2 % to
    16 % of the time) with a few µs of jitter that never turns them back."""
    return [str(10**10 * (k + 1) + 10**9 * j + (20000 * (j + 1) + 1000 * k) * u +
                997 * ((u * (j + 3)) % 7)) for j in range(6)]


def row_of(kind, k, u):
    return {"guest": guest_row, "node": node_row, "ksm-guest": ksm_guest_row,
            "ksm-node": ksm_node_row, "stall-guest": stall_row,
            "stall-node": stall_row}[kind](k, u)


def setup(top):
    layout_defs = os.environ["LAYOUT_DEFS"]
    start = int(time.time())
    with open(os.path.join(top, "t0"), "w") as f:
        f.write("%d\n" % start)
    for server, cluster, kind, name, k, conf, live in FILES:
        path = path_of(top, server, cluster, kind, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        defs = subprocess.run([layout_defs, LAYOUT[kind]], check=True,
                              capture_output=True, text=True).stdout.split()
        first = start - 600 if live else start - 4000
        subprocess.run(["rrdtool", "create", path, "--start", str(first),
                        "--step", "60"] + defs, check=True)
        if not live:
            row = "%d:%s" % (start - 3600, ":".join(row_of(kind, k, 0)))
            subprocess.run(["rrdtool", "update", path, row], check=True)
        if conf is not None:
            kind_, node, title, template, tags = conf
            d = os.path.join(config_dir(top, server), cluster, "nodes", node,
                             "qemu-server" if kind_ == "qemu" else "lxc")
            os.makedirs(d, exist_ok=True)
            text = ("name: %s\n" if kind_ == "qemu" else "hostname: %s\n") % title
            text += "tags: %s\n" % tags if tags else ""
            text += "template: 1\n" if template == "1" else ""
            with open(os.path.join(d, name + ".conf"), "w") as f:
                f.write(text)


def write(top, sock_path, count):
    """count rows a second per live file through the daemon (UPDATE), the
    first at once; each logged as {"file": i, "t": t, "row": [...]} once
    the daemon took it."""
    t0 = int(open(os.path.join(top, "t0")).read())
    sock = socket.socket(socket.AF_UNIX)
    sock.connect(sock_path)
    answers = sock.makefile("r")
    log_path = os.path.join(top, "rows.jsonl")
    last = 0  # the time of the rows written before, if any: times must grow
    if os.path.exists(log_path):
        last = max(json.loads(line)["t"] for line in open(log_path))
    log = open(log_path, "a")
    for _ in range(count):
        t = int(time.time())
        if t <= last:
            time.sleep(last + 1 - time.time())
            t = last + 1
        for i, (server, cluster, kind, name, k, _, live) in enumerate(FILES):
            if not live:
                continue
            row = row_of(kind, k, t - t0)
            path = path_of(top, server, cluster, kind, name)
            sock.sendall(("UPDATE %s %d:%s\n" % (path, t, ":".join(row))).encode())
            answer = answers.readline()
            if not answer.startswith("0 "):
                raise SystemExit("rrdcached: UPDATE %s: %s" % (path, answer))
            log.write(json.dumps({"file": i, "t": t, "row": row}) + "\n")
        log.flush()
        last = t
    sock.sendall(b"QUIT\n")


def get(url, path, **params):
    q = urllib.parse.urlencode(params, doseq=True)
    try:
        with urllib.request.urlopen("%s%s?%s" % (url, path, q), timeout=30) as a:
            answer = json.load(a)
    except urllib.error.HTTPError as e:  # Prometheus says why in the body
        answer = json.load(e)
    if answer.get("status") != "success":
        raise SystemExit("%s %s: %s" % (path, params, answer))
    return answer["data"]


class File:
    """One RRD file as the dashboards see it: its labels and the rows
    written to it."""

    def __init__(self, i, instance, rows):
        _, cluster, kind, name, _, conf, live = FILES[i]
        self.instance, self.cluster, self.kind = instance, cluster, kind
        self.live, self.rows = live, rows  # {t: [value strings]}
        self.columns = {"node": metrics_points.NODE_COLUMNS,
                        "guest": metrics_points.GUEST_COLUMNS,
                        "ksm-node": metrics_points.KSM_NODE_COLUMNS,
                        "ksm-guest": metrics_points.KSM_GUEST_COLUMNS,
                        "stall-node": metrics_points.STALL_COLUMNS,
                        "stall-guest": metrics_points.STALL_COLUMNS}[kind]
        self.info = None
        if kind.endswith("node"):
            self.id = "node/" + name
        elif conf is None:
            self.id = "guest/" + name
        else:
            self.id = "%s/%s" % (conf[0], name)
            self.info = dict(zip(("type", "node", "name", "template", "tags"), conf))
        table = export_points.PROM_NODE if kind == "node" else export_points.PROM_GUEST
        if kind.startswith("ksm-"):
            table = {c: metrics_points.KSM_PROM[c] for c in self.columns}
        if kind.startswith("stall-"):  # some as waiting, full as stalled
            table = {c: stall_metric(c[5:-4], c[-4:]) for c in self.columns}
        self.metric_column = {}
        for column, metric in table.items():
            if column not in self.columns:
                continue
            self.metric_column[metric] = column
            if metric in metrics_points.OLDER:
                self.metric_column[metrics_points.OLDER[metric]] = column

    def labels(self, **extra):
        """The series' labels: id, instance and cluster (none when
        empty, as Prometheus stores it), and extra."""
        out = {"id": self.id, "instance": self.instance, "cluster": self.cluster}
        out.update(extra)
        return {k: v for k, v in out.items() if v != ""}

    def info_labels(self, *names):
        return {n: self.info[n] for n in names}

    def value_at(self, metric, t):
        """The value /metrics serves for metric from the row of time t."""
        column = self.metric_column.get(metric)
        if column is None or t not in self.rows:
            return None
        v = self.rows[t][self.columns.index(column)]
        if column.startswith("stall"):  # µs as seconds, as /metrics has it
            return int(v) / 1e6
        return float(v) / 100 if column.startswith("pressure") else float(v)

    def val(self, metric):
        """The newest row's value: what an instant query sees."""
        return self.value_at(metric, max(self.rows)) if self.live else None


def key(labels):
    return tuple(sorted((k, v) for k, v in labels.items() if k != "job"))


class Check:
    def __init__(self, top, url, sock, instances, t_eval):
        self.url, self.t_eval = url, t_eval
        rows = {}
        for line in open(os.path.join(top, "rows.jsonl")):
            r = json.loads(line)
            rows.setdefault(r["file"], {})[r["t"]] = r["row"]
        self.files = []
        for i, (server, cluster, kind, name, k, _, live) in enumerate(FILES):
            logged = rows.get(i, {})
            path = path_of(top, server, cluster, kind, name)
            out = subprocess.run(["rrdtool", "lastupdate", "--daemon", sock, path],
                                 check=True, capture_output=True, text=True).stdout
            stamp, values = out.strip().splitlines()[-1].split(":", 1)
            if live:
                newest = max(logged)
                if (int(stamp), values.split()) != (newest, logged[newest]):
                    raise SystemExit("%s: rrdtool lastupdate says %s, the last row "
                                     "written was %d:%s" % (path, out, newest, logged[newest]))
            else:
                logged = {int(stamp): values.split()}
            if (server, cluster) in instances:
                self.files.append(File(i, instances[(server, cluster)], logged))
        self.failures = 0

    def of(self, instance):
        return [f for f in self.files if f.instance == instance]

    def samples(self, f, metric, window):
        """The raw samples Prometheus holds of f's metric in the window
        that ends at t_eval, each checked against the row of its time."""
        sel = 'id="%s",instance="%s",cluster="%s"' % (f.id, f.instance, f.cluster)
        data = get(self.url, "/api/v1/query", query="%s{%s}[%s]" % (metric, sel, window),
                   time=self.t_eval)
        if len(data["result"]) != 1:
            raise SystemExit("%s{%s}[%s]: %d series" % (metric, sel, window, len(data["result"])))
        out = []
        for t, v in data["result"][0]["values"]:
            t_ms = round(float(t) * 1000)
            want = f.value_at(metric, t_ms // 1000) if t_ms % 1000 == 0 else None
            if want != float(v):
                raise SystemExit("%s{%s} at %s: Prometheus holds %s, the row %s" %
                                 (metric, sel, t, v, want))
            out.append((t_ms, float(v)))
        return out

    def rate(self, f, metric, window_s):
        """rate(metric[window]) of f at t_eval, with Prometheus'
        extrapolatedRate: its operations in its order."""
        s = self.samples(f, metric, "%ds" % window_s)
        if len(s) < 2:
            raise SystemExit("%s of %s: %d samples in the window" % (metric, f.id, len(s)))
        range_start, range_end = self.t_eval * 1000 - window_s * 1000, self.t_eval * 1000
        result = s[-1][1] - s[0][1]
        last = 0.0
        for _, v in s:
            if v < last:
                result += last
            last = v
        to_start = (s[0][0] - range_start) / 1000
        to_end = (range_end - s[-1][0]) / 1000
        sampled = (s[-1][0] - s[0][0]) / 1000
        average = sampled / (len(s) - 1)
        if result > 0 and s[0][1] >= 0:
            to_zero = sampled * (s[0][1] / result)
            if to_zero < to_start:
                to_start = to_zero
        threshold = average * 1.1
        extrapolated = sampled
        extrapolated += to_start if to_start < threshold else average / 2
        extrapolated += to_end if to_end < threshold else average / 2
        factor = extrapolated / sampled
        factor /= float(window_s)
        return result * factor

    def max_over(self, f, metric):
        return max(v for _, v in self.samples(f, metric, RANGE))

    def run(self, what, expr, want):
        data = get(self.url, "/api/v1/query", query=expr, time=self.t_eval)
        got = {key(s["metric"]): float(s["value"][1]) for s in data["result"]}
        if len(got) != len(data["result"]):
            self.fail(what, expr, "two series with the same labels")
        want = {key(k): v for k, v in want}
        if not want:
            if got:
                self.fail(what, expr, "returns %s, wants nothing" % got)
            else:
                print("ok - %s: nothing, as it must" % what)
            return
        if got != want:
            lines = ["  got  %s %r" % kv for kv in sorted(got.items())]
            lines += ["  want %s %r" % kv for kv in sorted(want.items())]
            self.fail(what, expr, "\n" + "\n".join(lines))
        else:
            print("ok - %s: %d series" % (what, len(got)))

    def fail(self, what, expr, why):
        self.failures += 1
        print("FAIL - %s\n  %s\n  %s" % (what, expr, why))


# ---- dashboard 10347 ----------------------------------------------------
# (panel id, title, refId, expression, answer(check, files of $instance,
# every file)); the answer is a list of (labels, value).


# node_exporter's words for PSI's lines, in the stall counters' names
STALL_WORD = {"some": "waiting", "full": "stalled"}
STALL_LINE = {w: k for k, w in STALL_WORD.items()}


def stall_metric(resource, kind):
    """The stall counter of a PSI line (some, full)."""
    return "pve_pressure_%s_%s_seconds_total" % (resource, STALL_WORD[kind])


def guests(fs, configured=None, live=None, kind=None):
    return [f for f in fs if f.kind == "guest" and
            (configured is None or (f.info is not None) == configured) and
            (live is None or f.live == live) and
            (kind is None or (f.info or {}).get("type") == kind)]


def nodes(fs):
    return [f for f in fs if f.kind == "node"]


def by_id(fs, value, *info):
    """sum by (id[, info labels]) over one series per guest."""
    out = []
    for f in fs:
        v = value(f)
        if v is not None:
            labels = {"id": f.id}
            labels.update(f.info_labels(*info))
            out.append((labels, v))
    return out


def named(fs, value):
    """A value joined with group_left(name, type) pve_guest_info."""
    return [(f.labels(**f.info_labels("name", "type")), value(f)) for f in fs
            if value(f) is not None]


def kept(fs, metric):
    """A vector selector's series kept by `and`: the name stays."""
    return [(f.labels(__name__=metric), f.val(metric)) for f in fs if f.val(metric) is not None]


def div(a, b):
    return lambda f: None if f.val(a) is None else f.val(a) / f.val(b)


DASHBOARD_10347 = [
    (19, "Resource allocation summary", "id, name and type",
     'sum by (id, name, type) (pve_guest_info{instance="$instance"})',
     lambda c, fs, every: by_id(guests(fs, True), lambda f: 1.0, "name", "type")),
    (19, "Resource allocation summary", "status",
     'sum by (id) (pve_up{instance="$instance"} and on (id, instance) pve_guest_info)',
     lambda c, fs, every: by_id(guests(fs, True), lambda f: 1.0 if f.live else 0.0)),
    (19, "Resource allocation summary", "vcpus",
     'sum by (id) (pve_cpu_usage_limit{instance="$instance"} and on (id, instance) pve_guest_info)',
     lambda c, fs, every: by_id(guests(fs, True), lambda f: f.val("pve_cpu_usage_limit"))),
    (19, "Resource allocation summary", "memsize",
     'sum by (id) (pve_memory_size_bytes{instance="$instance"} and on (id, instance) pve_guest_info)',
     lambda c, fs, every: by_id(guests(fs, True), lambda f: f.val("pve_memory_size_bytes"))),
    (19, "Resource allocation summary", "memusg_percent",
     'sum by (id) (pve_memory_usage_bytes{instance="$instance",template!="1"} / pve_memory_size_bytes'
     ' and on (id, instance) pve_guest_info and on (id) pve_up==1)',
     lambda c, fs, every: by_id(guests(fs, True, True),
                                div("pve_memory_usage_bytes", "pve_memory_size_bytes"))),
    (19, "Resource allocation summary", "disksize",
     'sum by (id) (pve_disk_size_bytes{instance="$instance"} and on (id, instance) pve_guest_info)',
     lambda c, fs, every: by_id(guests(fs, True), lambda f: f.val("pve_disk_size_bytes"))),
    (19, "Resource allocation summary", "diskusg_percent",
     'sum by (id) (pve_disk_usage_bytes{instance="$instance"} / pve_disk_size_bytes'
     ' and on (id, instance) pve_guest_info{type="lxc"})',
     lambda c, fs, every: by_id(guests(fs, True, kind="lxc"),
                                div("pve_disk_usage_bytes", "pve_disk_size_bytes"))),
    (23, "CPU history", "usage", 'pve_cpu_usage_ratio{instance="$instance"} and on(id) pve_node_info',
     lambda c, fs, every: kept(nodes(fs), "pve_cpu_usage_ratio")),
    (23, "CPU history", "total", 'pve_cpu_usage_limit{instance="$instance"} and on(id) pve_node_info',
     lambda c, fs, every: kept(nodes(fs), "pve_cpu_usage_limit")),
    (7, "Current CPU", "A",
     'pve_cpu_usage_ratio{instance="$instance"} / pve_cpu_usage_limit and on(id) pve_node_info',
     lambda c, fs, every: [(f.labels(), div("pve_cpu_usage_ratio", "pve_cpu_usage_limit")(f))
                           for f in nodes(fs)]),
    # no $instance: every scraped node
    (22, "(CPU limit stat)", "A", 'pve_cpu_usage_limit and on(id) pve_node_info',
     lambda c, fs, every: kept(nodes(every), "pve_cpu_usage_limit")),
    (24, "Memory history", "usage",
     'pve_memory_usage_bytes{instance="$instance"} and on(id) pve_node_info',
     lambda c, fs, every: kept(nodes(fs), "pve_memory_usage_bytes")),
    (24, "Memory history", "total",
     'pve_memory_size_bytes{instance="$instance"} and on(id) pve_node_info',
     lambda c, fs, every: kept(nodes(fs), "pve_memory_size_bytes")),
    (8, "Current memory", "A",
     'pve_memory_usage_bytes{instance="$instance"} / pve_memory_size_bytes and on(id) pve_node_info',
     lambda c, fs, every: [(f.labels(), div("pve_memory_usage_bytes", "pve_memory_size_bytes")(f))
                           for f in nodes(fs)]),
    (20, "(memory stat)", "used",
     'pve_memory_usage_bytes{instance="$instance"} and on(id) pve_node_info',
     lambda c, fs, every: kept(nodes(fs), "pve_memory_usage_bytes")),
    (20, "(memory stat)", "total",
     'pve_memory_size_bytes{instance="$instance"} and on(id) pve_node_info',
     lambda c, fs, every: kept(nodes(fs), "pve_memory_size_bytes")),
    (20, "(memory stat)", "total_for_max",
     'pve_memory_size_bytes{instance="$instance"} and on(id) pve_node_info',
     lambda c, fs, every: kept(nodes(fs), "pve_memory_size_bytes")),
    (2, "Guests CPU usage", "A",
     '((pve_cpu_usage_ratio{instance="$instance"} / pve_cpu_usage_limit) * on(id, instance)'
     ' group_left(name, type) pve_guest_info) and on(id, instance) pve_up == 1',
     lambda c, fs, every: named(guests(fs, True, True),
                                div("pve_cpu_usage_ratio", "pve_cpu_usage_limit"))),
    (5, "Guests memory usage", "A",
     '(pve_memory_usage_bytes{instance="$instance"} / pve_memory_size_bytes * on(id, instance)'
     ' group_left(name, type) pve_guest_info) and on(id, instance) pve_up == 1',
     lambda c, fs, every: named(guests(fs, True, True),
                                div("pve_memory_usage_bytes", "pve_memory_size_bytes"))),
    (11, "Storage usage", "A",
     'pve_disk_usage_bytes{instance="$instance", id=~"storage/.+"} / pve_disk_size_bytes'
     ' * on (id, instance) group_left(storage) pve_storage_info',
     lambda c, fs, every: []),
    (15, "Space allocation", "storage size",
     'pve_disk_size_bytes{instance="$instance", id=~"storage/.+"}'
     ' * on (id, instance) group_left(storage) pve_storage_info',
     lambda c, fs, every: []),
    (9, "LXC guests Disk usage", "A",
     'pve_disk_usage_bytes{instance="$instance"} / pve_disk_size_bytes{instance="$instance"}'
     ' * on (id, instance) group_left(name, type) pve_guest_info{type="lxc"}',
     lambda c, fs, every: named(guests(fs, True, kind="lxc"),
                                div("pve_disk_usage_bytes", "pve_disk_size_bytes"))),
    (13, "Network IO/s", "A",
     '(rate(pve_network_receive_bytes{instance="$instance"}[5m]) * on(id, instance)'
     ' group_left(name, type) pve_guest_info) and on(id, instance) pve_up == 1',
     lambda c, fs, every: named(guests(fs, True, True),
                                lambda f: c.rate(f, "pve_network_receive_bytes", 300))),
    (13, "Network IO/s", "B",
     '(rate(pve_network_transmit_bytes{instance="$instance"}[5m])* on(id, instance)'
     ' group_left(name, type) pve_guest_info) and on(id, instance) pve_up == 1',
     lambda c, fs, every: named(guests(fs, True, True),
                                lambda f: c.rate(f, "pve_network_transmit_bytes", 300))),
    (12, "Disk IO/s", "A",
     '((rate(pve_disk_write_bytes{instance="$instance"}[5m]) + rate(pve_disk_read_bytes[5m]))'
     ' * on(id, instance) group_left(name, type) pve_guest_info) and on(id, instance) pve_up == 1',
     lambda c, fs, every: named(guests(fs, True, True),
                                lambda f: c.rate(f, "pve_disk_write_bytes", 300) +
                                c.rate(f, "pve_disk_read_bytes", 300))),
]
STORAGE_PANELS = {11, 15}


# ---- pvecg's dashboard --------------------------------------------------
# (panel id, refId) -> answer(check, files of $instance).


def guests_any(fs, value, name, kind="guest"):
    """(M * on(id, instance, cluster) group_left(name, type) pve_guest_info)
    or M{id=~"guest/.+"}: the configured guests named, the others by their
    id, with the metric's name when the selector keeps it (name, else
    None)."""
    out = []
    for f in [f for f in fs if f.kind == kind]:
        v = value(f)
        if v is None:
            continue
        if f.info is not None:
            out.append((f.labels(**f.info_labels("name", "type")), v))
        else:
            out.append((f.labels(**({"__name__": name} if name else {})), v))
    return out


def host_sum(fs):
    """sum by (instance, cluster, node) of the configured guests' memhost."""
    sums = {}
    for f in guests(fs, True, True):
        labels = tuple(kv for kv in key(f.labels(node=f.info["node"])) if kv[0] != "id")
        sums[labels] = sums.get(labels, 0.0) + f.val("pve_memory_host_bytes")
    return [(dict(k), v) for k, v in sums.items()]


def guest_panel(metric):
    return lambda c, fs: guests_any(fs, lambda f: f.val(metric), metric)


def top_panel(metric):
    """topk(10, max_over_time(M[$__range]) joined as guests_any): the ten
    highest (all of them here, fewer than ten guests a server)."""
    def answer(c, fs):
        pairs = guests_any(fs, lambda f: c.max_over(f, metric) if f.live else None, None)
        if len(pairs) > 10:
            raise SystemExit("more than ten guests: topk would choose")
        return pairs
    return answer


def stall_guest_panel(resource, kind):
    """rate(counter[5m]) joined as guests_any: each live guest's stall
    file (rate() drops the name)."""
    def answer(c, fs):
        metric = stall_metric(resource, kind)
        return guests_any(fs, lambda f: c.rate(f, metric, 300) if f.live else None,
                          None, "stall-guest")
    return answer


def stall_node_panel(resource, kind):
    def answer(c, fs):
        return [(f.labels(), c.rate(f, stall_metric(resource, kind), 300))
                for f in fs if f.kind == "stall-node" and f.live]
    return answer


OURS = {
    (1, "A"): lambda c, fs: kept(nodes(fs), "pve_memory_usage_bytes"),
    (1, "B"): lambda c, fs: kept(nodes(fs), "pve_memory_size_bytes"),
    (1, "C"): lambda c, fs: host_sum(fs),
    (2, "A"): guest_panel("pve_memory_host_bytes"),
    (2, "B"): guest_panel("pve_memory_usage_bytes"),
    (6, "A"): lambda c, fs: [(f.labels(__name__=m), f.val(m)) for f in nodes(fs)
                             for m in sorted(f.metric_column) if m.startswith("pve_pressure_")],
    (10, "A"): lambda c, fs: guests_any(fs, lambda f: f.val("pve_memory_ksm_saved_bytes"),
                                        "pve_memory_ksm_saved_bytes", "ksm-guest"),
    (11, "A"): lambda c, fs: kept([f for f in fs if f.kind == "ksm-node"],
                                  "pve_memory_ksm_saved_bytes"),
}
for pid, res in ((3, "cpu"), (4, "io"), (5, "memory")):
    OURS[(pid, "A")] = guest_panel("pve_pressure_%s_some_ratio" % res)
    OURS[(pid, "B")] = guest_panel("pve_pressure_%s_full_ratio" % res)
for pid, res in ((7, "cpu"), (8, "io"), (9, "memory")):
    OURS[(pid, "A")] = top_panel("pve_pressure_%s_some_ratio" % res)
for pid, res, kind in ((12, "cpu", "some"), (13, "io", "some"), (14, "memory", "some"),
                       (15, "cpu", "full"), (16, "io", "full"), (17, "memory", "full")):
    OURS[(pid, "A")] = stall_guest_panel(res, kind)
OURS[(18, "A")] = stall_node_panel("cpu", "some")
for pid, res in ((19, "io"), (20, "memory")):
    OURS[(pid, "A")] = stall_node_panel(res, "some")
    OURS[(pid, "B")] = stall_node_panel(res, "full")


def schema(dash):
    """Grafana's dashboard schema, the parts an import needs: what is
    wrong, or nothing."""
    errors = []
    for field, kind in (("uid", str), ("title", str), ("schemaVersion", int),
                        ("panels", list), ("templating", dict)):
        if not isinstance(dash.get(field), kind):
            errors.append("%s is not a %s" % (field, kind.__name__))
    if errors:
        return errors
    variables = {v.get("name"): v for v in dash["templating"].get("list", [])}
    ds = variables.get("datasource", {})
    if ds.get("type") != "datasource" or ds.get("query") != "prometheus":
        errors.append("no datasource variable of type prometheus")
    inst = variables.get("instance", {})
    if inst.get("type") != "query" or \
            inst.get("query", {}).get("query") != "label_values(pve_node_info, instance)" or \
            inst.get("datasource", {}).get("uid") != "${datasource}":
        errors.append("no instance variable label_values(pve_node_info, instance)")
    ids, cells = set(), set()
    for p in dash["panels"]:
        pid = p.get("id")
        if not isinstance(pid, int) or pid in ids:
            errors.append("panel id %r missing or twice" % pid)
        ids.add(pid)
        if p.get("type") not in ("timeseries", "bargauge", "stat", "table", "gauge"):
            errors.append("panel %r: type %r" % (pid, p.get("type")))
        g = p.get("gridPos", {})
        if sorted(g) != ["h", "w", "x", "y"] or not all(isinstance(g[k], int) for k in g) \
                or g["x"] < 0 or g["w"] < 1 or g["x"] + g["w"] > 24 or g["h"] < 1:
            errors.append("panel %r: gridPos %r" % (pid, g))
            continue
        for x in range(g["x"], g["x"] + g["w"]):
            for y in range(g["y"], g["y"] + g["h"]):
                if (x, y) in cells:
                    errors.append("panel %r overlaps another at %d,%d" % (pid, x, y))
                cells.add((x, y))
        refs = [t.get("refId") for t in p.get("targets", [])]
        if not refs or len(set(refs)) != len(refs) or None in refs:
            errors.append("panel %r: targets %r" % (pid, refs))
        for t in p.get("targets", []):
            if not isinstance(t.get("expr"), str) or not t["expr"]:
                errors.append("panel %r %r: no expr" % (pid, t.get("refId")))
            if t.get("datasource", p.get("datasource", {})).get("uid") != "${datasource}":
                errors.append("panel %r %r: not on ${datasource}" % (pid, t.get("refId")))
    return errors


def substitute(expr, instance):
    out = expr.replace("$__range", RANGE).replace("$instance", instance)
    if "$" in out:
        raise SystemExit("a variable is left in %s" % out)
    return out


def check_10347(c, instances):
    """Every query of 10347 with $instance set to each of instances."""
    for instance in instances:
        for pid, title, ref, expr, answer in DASHBOARD_10347:
            what = "10347 panel %d %s, %s, on %s" % (pid, title, ref, instance)
            want = answer(c, c.of(instance), c.files)
            # the single host has every kind of guest: each of its guest
            # and node queries shows something
            if instance == SPLIT[("a", "")] and pid not in STORAGE_PANELS and not want:
                c.fail(what, expr, "the single host's answer is empty")
            c.run(what, substitute(expr, instance), want)


def check_ours(c, dash, instances):
    targets = {(p["id"], t["refId"]): t["expr"] for p in dash["panels"] for t in p["targets"]}
    if sorted(targets) != sorted(OURS):
        c.fail("the dashboard's targets", "",
               "the file has %s, the test knows %s" % (sorted(targets), sorted(OURS)))
    for (pid, ref), expr in sorted(targets.items()):
        for instance in instances:
            if (pid, ref) in OURS:
                c.run("pvecg dashboard panel %d %s on %s" % (pid, ref, instance),
                      substitute(expr, instance), OURS[(pid, ref)](c, c.of(instance)))


def check_variable(c, instances):
    listed = get(c.url, "/api/v1/label/instance/values", **{"match[]": "pve_node_info"})
    if sorted(listed) != sorted(instances):
        c.fail("the instance variable", "label_values(pve_node_info, instance)",
               "lists %s, wants %s" % (listed, sorted(instances)))
    else:
        print("ok - label_values(pve_node_info, instance): %s" % listed)


# ---- the exact-stall panels' thresholds, against the alert rules -------

STALL_RATE = re.compile(r'rate\(pve_pressure_(cpu|io|memory)_(waiting|stalled)_seconds_total'
                        r'\{([^}]*)\}\[(\w+)\]\)')
SEVERITY_COLOR = {"warning": "orange", "critical": "red"}


def selector(text, label):
    """The value of label="..." (or =~, !~: with the operator) in a
    selector's text, None when it is not there."""
    m = re.search(r'\b%s\s*(=~|!~|=)\s*"([^"]*)"' % label, text)
    return (m.group(1), m.group(2)) if m else None


def scope_of(id_matcher):
    """guest or node: which ids a selector's id matcher takes."""
    op, regex = id_matcher
    takes = {s: (re.fullmatch(regex, i) is not None) == (op != "!~")
             for s, i in (("guest", "qemu/100"), ("node", "node/pve1"))}
    if takes["guest"] == takes["node"]:
        raise SystemExit("id matcher %s%r takes guests and nodes alike" % (op, regex))
    return "guest" if takes["guest"] else "node"


def stall_rules(rules_path):
    """The simple stall rules: a rate() of one stall counter compared
    with a number, last in the expression: {(scope, resource, kind):
    (alert, threshold, severity, window)}."""
    out = {}
    with open(rules_path) as f:
        groups = yaml.safe_load(f)["groups"]
    for rule in [r for g in groups for r in g["rules"] if "alert" in r]:
        expr = " ".join(rule["expr"].split())
        rates = STALL_RATE.findall(expr)
        last = re.search(r'\)\s*>\s*([0-9.]+)$', expr)
        if len(rates) != 1 or last is None:
            continue  # none, or a compound rule (several conditions)
        resource, word, sel, window = rates[0]
        where = (scope_of(selector(sel, "id")), resource, STALL_LINE[word])
        if where in out:
            raise SystemExit("two rules on %s: %s and %s" % (where, out[where][0], rule["alert"]))
        out[where] = (rule["alert"], float(last.group(1)), rule["labels"]["severity"], window)
    return out


def stall_panels(dash):
    """The panels that draw stall counters: {id: (panel, scope, resource,
    kinds, windows)}."""
    out = {}
    for p in dash["panels"]:
        found = [m for t in p["targets"] for m in STALL_RATE.findall(t["expr"])]
        if not found:
            continue
        resources = {r for r, _, _, _ in found}
        kinds = sorted({STALL_LINE[w] for _, w, _, _ in found})
        scopes = {scope_of(selector(sel, "id")) for _, _, sel, _ in found
                  if selector(sel, "id")[1] != "guest/.+"}
        if len(resources) != 1 or len(scopes) != 1:
            raise SystemExit("panel %d mixes resources or scopes" % p["id"])
        out[p["id"]] = (p, scopes.pop(), resources.pop(), kinds, {w for _, _, _, w in found})
    return out


def thresholds(dashboard, rules_path):
    """Each exact-stall panel's threshold steps are exactly those of the
    rules of its scope, resource and kinds; every rule has its panel."""
    with open(dashboard) as f:
        dash = json.load(f)
    rules, failures, shown = stall_rules(rules_path), 0, set()
    if not rules:
        raise SystemExit("no stall rule in %s" % rules_path)
    for pid, (p, scope, resource, kinds, windows) in sorted(stall_panels(dash).items()):
        mine = [(w, rules[w]) for w in sorted(rules) if w[:2] == (scope, resource) and w[2] in kinds]
        shown.update(w for w, _ in mine)
        d = p["fieldConfig"]["defaults"]
        steps = d.get("thresholds", {}).get("steps", [])
        want = [(r[1], SEVERITY_COLOR[r[2]]) for _, r in sorted(mine, key=lambda x: x[1][1])]
        got = [(s["value"], s["color"]) for s in steps[1:]]
        problems = []
        if got != want:
            problems.append("threshold steps %s, the rules want %s" % (got, want))
        if steps and steps[0].get("value") is not None:
            problems.append("the first step has a value")
        for _, (alert, _, _, window) in mine:
            if windows != {window}:
                problems.append("rate() over %s, %s's window is %s" % (sorted(windows), alert, window))
            if alert not in p.get("description", ""):
                problems.append("the description does not name %s" % alert)
        style = d.get("custom", {}).get("thresholdsStyle", {}).get("mode", "off")
        if mine and (style == "off" or d.get("custom", {}).get("axisSoftMax", 0) <= want[-1][0]):
            problems.append("the threshold is not drawn in view (%s, axisSoftMax %s)" %
                            (style, d.get("custom", {}).get("axisSoftMax")))
        if d.get("unit") != "percentunit":
            problems.append("unit %s, not percentunit (the rules' ratios)" % d.get("unit"))
        what = "panel %d (%s %s %s)" % (pid, scope, resource, "/".join(kinds))
        if problems:
            failures += 1
            print("FAIL - %s: %s" % (what, "; ".join(problems)))
        else:
            print("ok - %s: %s" % (what, ", ".join("%s > %g %s" % (r[0], r[1], r[2]) for _, r in mine)
                                   or "no rule, no threshold"))
    for where in sorted(set(rules) - shown):
        failures += 1
        print("FAIL - the rule %s (%s) has no exact-stall panel" % (rules[where][0], " ".join(where)))
    return failures


def check(top, sock, dashboard, split_url, whole_url, whole_instance):
    """split_url: the Prometheus that scrapes server a and each cluster of
    server b as a target of its own (SPLIT); whole_url: the one that
    scrapes server b as one target, whole_instance."""
    with open(dashboard) as f:
        dash = json.load(f)
    failures = 0
    for e in schema(dash):
        print("FAIL - the dashboard's schema: %s" % e)
        failures += 1
    if dash.get("time", {}).get("from") != "now-1h":
        print("FAIL - the dashboard's time range is not now-1h: $__range is not %s" % RANGE)
        failures += 1
    t_eval = int(time.time())
    c = Check(top, split_url, sock, SPLIT, t_eval)
    print("ok - the newest row written to each file is its rrdtool lastupdate")
    split = sorted(set(SPLIT.values()))
    check_variable(c, split)
    check_10347(c, split)
    check_ours(c, dash, split)
    whole = Check(top, whole_url, sock, {("b", ""): whole_instance,
                                        ("b", "prod"): whole_instance}, t_eval)
    check_variable(whole, [whole_instance])
    check_ours(whole, dash, [whole_instance])
    return failures + c.failures + whole.failures


def caught_up(top, url, servers):
    """Whether Prometheus' newest sample of every live file of servers is
    the newest row written to it."""
    rows = {}
    for line in open(os.path.join(top, "rows.jsonl")):
        r = json.loads(line)
        rows[r["file"]] = max(rows.get(r["file"], 0), r["t"])
    have = {}
    newest_of = {"ksm": "pve_memory_ksm_saved_bytes",
                 "stall": "pve_pressure_cpu_waiting_seconds_total"}
    for metric in ["pve_cpu_usage_limit"] + list(newest_of.values()):
        data = get(url, "/api/v1/query", query="timestamp(%s)" % metric)
        have[metric] = {key(s["metric"]): float(s["value"][1]) for s in data["result"]}
    for i, newest_t in rows.items():
        server, cluster, kind, name, *_ = FILES[i]
        if server not in servers:
            continue
        metric = newest_of.get(kind.split("-")[0], "pve_cpu_usage_limit")
        found = [v for k, v in have[metric].items()
                 if dict(k).get("id", "").endswith("/" + name) and
                 dict(k).get("cluster", "") == cluster and
                 dict(k).get("id", "").startswith("node/") == kind.endswith("node")]
        if newest_t not in found:
            return False
    return True


def main(argv):
    cmd, args = argv[0], argv[1:]
    if cmd == "setup":
        setup(args[0])
    elif cmd == "write":
        write(args[0], args[1], int(args[2]))
    elif cmd == "caught-up":
        sys.exit(0 if caught_up(args[0], args[1], args[2]) else 1)
    elif cmd == "check":
        sys.exit(1 if check(*args) else 0)
    elif cmd == "thresholds":
        sys.exit(1 if thresholds(*args) else 0)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
