#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The samples `pvecg serve`'s /metrics must give, and the samples a scrape
body or a metric store holds, as sorted lines "series<TAB>time<TAB>value"
that serve_metrics.sh compares with diff.

The expected samples are computed here from `rrdtool lastupdate` of every
file (through the daemon when one is given: it writes the file's pending
rows first) with the Prometheus names of tests/cli/export_points.py, this
test suite's own statement of prometheus-pve-exporter's names, not pvecg's
tables: every known value of a file whose last update is at most STALE
seconds before NOW, pressure as a ratio, counters under _total with the raw
counter and again under prometheus-pve-exporter's older names (OLDER);
pve_up 1 for such a file and 0 for a stale one (its values left out);
pve_node_info for each node file; pve_guest_info with template and tags for
each guest with a configuration, fresh or stale, and beside it
pve_guest_balloon_min_bytes where GUESTS gives one.  A KSM file
(pvecg-ksm-vm-1.0, pvecg-ksm-node-1.0) gives its known values, under the
names stated here (KSM_PROM), with its guest's or node's id, when fresh,
and nothing else; it counts among the files' states.  So does a stall file
(pvecg-pressure-vm-1.0, pvecg-pressure-node-1.0), whose raw counters
(microseconds) are seconds stalled, value / 1e6, under the names of
STALL_PROM.  A label whose value is
empty is left out, as Prometheus and VictoriaMetrics store no such label.

With clusters (a data directory whose subdirectories hold the layouts'
directories, each a cluster named by its directory, beside the data
directory's own files, the cluster ""), every series of a named cluster's
file also has the label cluster="NAME"; the GUESTS lines then begin with
the cluster's name ("-" for "").

usage:
  metrics_points.py expect DATA_DIR NOW GUESTS [DAEMON]
      (GUESTS: lines "vmid type node template tags balloon name"; type
       qemu or lxc, template 0 or 1, tags as configured or "-" for none,
       balloon the minimum in bytes its configuration gives or "-")
  metrics_points.py expect-clusters DATA_DIR NOW GUESTS
      (GUESTS: lines "cluster vmid type node template tags balloon name")
  metrics_points.py states DATA_DIR NOW [DAEMON]    fresh/stale/unreadable
  metrics_points.py text FILE          a Prometheus text body (times in ms)
  metrics_points.py openmetrics FILE   an OpenMetrics body, parsed by
                                       prometheus_client's strict parser
  metrics_points.py prometheus URL     what a Prometheus stored (raw samples)
  metrics_points.py victoria URL       what VictoriaMetrics stored
With --significant N first, values are written with N significant digits
(VictoriaMetrics keeps about 12).
"""
import json
import math
import os
import re
import subprocess
import sys
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cli"))
import export_points  # noqa: E402  (its PROM_GUEST/PROM_NODE tables)

STALE = 300  # five steps of 60 s
# The layouts' columns in file order (pve-layout.md).
NODE_COLUMNS = ("loadavg maxcpu cpu iowait memtotal memused swaptotal "
                "swapused roottotal rootused netin netout memavailable "
                "arcsize pressurecpusome pressureiosome pressureiofull "
                "pressurememorysome pressurememoryfull").split()
GUEST_COLUMNS = ("maxcpu cpu maxmem mem maxdisk disk netin netout diskread "
                 "diskwrite memhost pressurecpusome pressurecpufull "
                 "pressureiosome pressureiofull pressurememorysome "
                 "pressurememoryfull").split()
# pvecg's KSM files (pvecg-ksm-vm-1.0, pvecg-ksm-node-1.0), beside a
# guest's and a node's own: their values under the same id, no pve_up,
# pve_node_info or pve_guest_info of their own.
KSM_GUEST_COLUMNS = "ksmmerging ksmzero ksmprofit ksmsaved".split()
KSM_NODE_COLUMNS = ("ksmrun ksmshared ksmsharing ksmzero ksmprofit "
                    "ksmsaved").split()
KSM_PROM = {
    "ksmmerging": "pve_ksm_merging_pages", "ksmzero": "pve_ksm_zero_pages",
    "ksmprofit": "pve_ksm_profit_bytes", "ksmrun": "pve_ksm_run_state",
    "ksmsaved": "pve_memory_ksm_saved_bytes",
    "ksmshared": "pve_ksm_shared_pages", "ksmsharing": "pve_ksm_sharing_pages",
}
# pvecg's stall files: the kernel's PSI totals (DERIVE, the raw counter in
# the header), named as node_exporter's and cAdvisor's counters: the some
# line's total ..._waiting_seconds_total, the full line's
# ..._stalled_seconds_total.
STALL_COLUMNS = ("stallcpusome stallcpufull stalliosome stalliofull "
                 "stallmemorysome stallmemoryfull").split()
STALL_PROM = {c: "pve_pressure_%s_%s_seconds_total" % (
    c[5:-4], {"some": "waiting", "full": "stalled"}[c[-4:]]) for c in STALL_COLUMNS}
SIGNIFICANT = None
DROP_LABELS = {"job", "instance", "__name__"}
OLDER = export_points.OLDER
# Samples the server sends without a time (stored at the scrape's time).
UNTIMED = {"pve_guest_info", "pve_up", "pve_node_info",
           "pve_guest_balloon_min_bytes"}


def num(value):
    value = float(value)
    if SIGNIFICANT is not None:
        return "%.*g" % (SIGNIFICANT, value)
    return repr(value)


def series(name, labels):
    inner = ",".join('%s="%s"' % (k, labels[k]) for k in sorted(labels)
                     if k not in DROP_LABELS and labels[k] != "")
    return "%s{%s}" % (name, inner)


def lastupdate(path, daemon):
    cmd = ["rrdtool", "lastupdate", path]
    if daemon:
        cmd[2:2] = ["--daemon", daemon]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None, None, None
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    names = lines[0].split()
    stamp, values = lines[-1].split(":", 1)
    return names, int(stamp), values.split()


def files(data_dir):
    for layout, columns, kind in (
            ("pve-node-9.0", NODE_COLUMNS, "node"),
            ("pve-vm-9.0", GUEST_COLUMNS, "guest"),
            ("pvecg-ksm-node-1.0", KSM_NODE_COLUMNS, "ksm-node"),
            ("pvecg-ksm-vm-1.0", KSM_GUEST_COLUMNS, "ksm-guest"),
            ("pvecg-pressure-node-1.0", STALL_COLUMNS, "stall-node"),
            ("pvecg-pressure-vm-1.0", STALL_COLUMNS, "stall-guest")):
        top = os.path.join(data_dir, layout)
        names = sorted(os.listdir(top)) if os.path.isdir(top) else []
        for name in names:
            if kind.endswith("guest") and not re.fullmatch(r"[1-9][0-9]{2,8}", name):
                continue
            path = os.path.join(top, name)
            yield os.path.normpath(path), columns, kind, name


def read_files(data_dir, now, daemon):
    """(state, kind, name, time, {column: value}) of every file."""
    for path, columns, kind, name in files(data_dir):
        names, stamp, values = lastupdate(path, daemon)
        if names != columns:
            yield "unreadable", kind, name, None, None
        elif now - stamp > STALE:
            yield "stale", kind, name, stamp, None
        else:
            yield "fresh", kind, name, stamp, dict(zip(names, values))


def read_guests(path, clustered=False):
    """{vmid: labels}, or with clusters {cluster: {vmid: labels}}."""
    guests = {}
    with open(path) as f:
        for line in f:
            cluster = ""
            if clustered:
                cluster, line = line.split(" ", 1)
                cluster = "" if cluster == "-" else cluster
            vmid, kind, node, template, tags, balloon, title = \
                line.rstrip("\n").split(" ", 6)
            guests.setdefault(cluster, {})[vmid] = {
                "type": kind, "node": node, "name": title,
                "template": template, "tags": "" if tags == "-" else tags,
                "balloon": balloon}
    return guests if clustered else guests.get("", {})


LAYOUT_DIRS = ("pve-node-9.0", "pve-vm-9.0", "pve2-node", "pve2-vm",
               "pvecg-ksm-node-1.0", "pvecg-ksm-vm-1.0",
               "pvecg-pressure-node-1.0", "pvecg-pressure-vm-1.0")


def clusters(data_dir):
    """"" (the data directory's own files), then every subdirectory that
    holds a layout's directory, by name."""
    def holds(d):
        return any(os.path.isdir(os.path.join(d, x)) for x in LAYOUT_DIRS)
    named = sorted(n for n in os.listdir(data_dir)
                   if not n.startswith(".") and n not in LAYOUT_DIRS and
                   holds(os.path.join(data_dir, n)))
    return ([""] if holds(data_dir) else []) + named


def values_of(ids, table, stamp, row):
    out = []
    for column, value in row.items():
        if value == "U" or column not in table:
            continue
        v = float(value) / 100 if column.startswith("pressure") else value
        for name in (table[column], OLDER.get(table[column])):
            if name is not None:
                out.append("%s\t%d\t%s" % (series(name, ids), stamp, num(v)))
    return out


def stall_values_of(ids, stamp, row):
    out = []
    for column, value in row.items():
        if value == "U":
            continue
        out.append("%s\t%d\t%s" % (series(STALL_PROM[column], ids), stamp,
                                    num(int(value) / 1e6)))
    return out


def beside_values(kind, name, state, stamp, row, guests, cluster):
    """A KSM or stall file's samples, under its guest's or node's id."""
    if state != "fresh":
        return []
    sid = ("node/" + name if kind.endswith("-node") else "%s/%s" % (
        guests.get(name, {"type": "guest"})["type"], name))
    ids = {"id": sid, "cluster": cluster}
    if kind.startswith("stall-"):
        return stall_values_of(ids, stamp, row)
    return values_of(ids, KSM_PROM, stamp, row)


def expect_files(data_dir, now, guests, daemon, cluster=""):
    out = []
    for state, kind, name, stamp, row in read_files(data_dir, now, daemon):
        if state == "unreadable":
            continue
        if kind.startswith("ksm-") or kind.startswith("stall-"):
            out += beside_values(kind, name, state, stamp, row, guests,
                                 cluster)
            continue
        if kind == "node":
            sid, table = "node/" + name, export_points.PROM_NODE
        else:
            sid = "%s/%s" % (guests.get(name, {"type": "guest"})["type"], name)
            table = export_points.PROM_GUEST
        ids = {"id": sid, "cluster": cluster}
        if kind == "node":
            info = dict(ids, level="", name=name, nodeid="")
            out.append("%s\t-\t%s" % (series("pve_node_info", info), num(1)))
        out.append("%s\t-\t%s" % (series("pve_up", ids),
                                   num(1 if state == "fresh" else 0)))
        if state == "fresh":
            out += values_of(ids, table, stamp, row)
        if kind == "guest" and name in guests:
            labels = dict(guests[name], **ids)
            balloon = labels.pop("balloon")
            out.append("%s\t-\t%s" % (series("pve_guest_info", labels),
                                       num(1)))
            if balloon != "-":
                out.append("%s\t-\t%s" % (
                    series("pve_guest_balloon_min_bytes", ids), num(balloon)))
    return out


def expect(data_dir, now, guests_path, daemon):
    out = expect_files(data_dir, now, read_guests(guests_path), daemon)
    print("\n".join(sorted(out)))


def expect_clusters(data_dir, now, guests_path):
    guests = read_guests(guests_path, clustered=True)
    out = []
    for c in clusters(data_dir):
        out += expect_files(os.path.join(data_dir, c) if c else data_dir,
                            now, guests.get(c, {}), None, c)
    print("\n".join(sorted(out)))


def states(data_dir, now, daemon):
    count = {"fresh": 0, "stale": 0, "unreadable": 0}
    for state, *_ in read_files(data_dir, now, daemon):
        count[state] += 1
    print(" ".join("%s=%d" % kv for kv in sorted(count.items())))


LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+)(?: (\d+))?$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def read_text(path):
    """A Prometheus text body; every sample of a pve_ series carries a
    time, except those of UNTIMED."""
    out = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            m = LINE.match(line.rstrip("\n"))
            if m is None:
                raise SystemExit("not a sample line: %r" % line)
            name, labels, value, stamp = m.groups()
            if not name.startswith("pve_"):
                continue
            t = "-" if stamp is None else "%d" % (int(stamp) // 1000)
            out.append("%s\t%s\t%s" % (
                series(name, dict(LABEL.findall(labels))), t, num(value)))
    print("\n".join(sorted(out)))


def read_openmetrics(path):
    from prometheus_client.openmetrics import parser
    out = []
    with open(path) as f:
        text = f.read()
    for family in parser.text_string_to_metric_families(text):
        for s in family.samples:
            if not s.name.startswith("pve_"):
                continue
            t = "-" if s.timestamp is None else "%d" % int(float(s.timestamp))
            out.append("%s\t%s\t%s" % (series(s.name, s.labels), t,
                                       num(s.value)))
    print("\n".join(sorted(out)))


def get_json(url):
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.load(answer)


def read_prometheus(url):
    """Every raw sample of every pve_ series (a range selector keeps the
    samples' own times)."""
    q = urllib.parse.urlencode({"query": '{__name__=~"pve_.+"}[1d]'})
    out = []
    for s in get_json(url + "/api/v1/query?" + q)["data"]["result"]:
        name = s["metric"]["__name__"]
        for t, v in s["values"]:
            t = "-" if name in UNTIMED else "%d" % int(float(t))
            out.append("%s\t%s\t%s" % (series(name, s["metric"]), t, num(v)))
    print("\n".join(sorted(set(out))))


def read_victoria(url):
    q = urllib.parse.urlencode({"match[]": '{__name__=~"pve_.+"}'})
    out = []
    with urllib.request.urlopen(url + "/api/v1/export?" + q,
                                timeout=30) as answer:
        for line in answer:
            s = json.loads(line)
            name = s["metric"]["__name__"]
            for t, v in zip(s["timestamps"], s["values"]):
                t = "-" if name in UNTIMED else "%d" % (t // 1000)
                out.append("%s\t%s\t%s" % (series(name, s["metric"]), t,
                                           num(v)))
    print("\n".join(sorted(set(out))))


def main(argv):
    global SIGNIFICANT
    if argv[:1] == ["--significant"]:
        SIGNIFICANT = int(argv[1])
        argv = argv[2:]
    cmd, args = argv[0], argv[1:]
    if cmd == "expect":
        expect(args[0], int(args[1]), args[2], args[3] if len(args) > 3
               else None)
    elif cmd == "expect-clusters":
        expect_clusters(args[0], int(args[1]), args[2])
    elif cmd == "states":
        states(args[0], int(args[1]), args[2] if len(args) > 2 else None)
    elif cmd == "text":
        read_text(args[0])
    elif cmd == "openmetrics":
        read_openmetrics(args[0])
    elif cmd == "prometheus":
        read_prometheus(args[0])
    elif cmd == "victoria":
        read_victoria(args[0])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
