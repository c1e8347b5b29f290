#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The points `pvecg export` must leave in a metric store, and the points a
store holds, both as sorted lines "series<TAB>time<TAB>value" that the
receiver tests compare with diff.

The expected points are computed here from `pvecg export --format json
--names pvecg` (the RRD's own names and rates, each row with its step),
by this file's own statement of Proxmox's names (pve-manager's
PVE/Status/InfluxDB.pm, Graphite.pm and pvestatd; prometheus-pve-exporter's
collector/cluster.py), not by pvecg's tables.  Counters: 0 at a file's
first row with a known rate, then + rate x step at every known one; the
stall totals of pvecg's stall files (rates of microseconds stalled per
second) summed so and written in seconds (/ 1e6), as pvecg serve's
/metrics names them (pve_pressure_<res>_waiting_seconds_total for some,
pve_pressure_<res>_stalled_seconds_total for full, as node_exporter).
In Prometheus' names each byte counter is also written, of the same
values, as the gauge prometheus-pve-exporter had before it (OLDER), as the
exporter 3.8 serves both; a guest with a configuration also has
pve_guest_info{id,node,name,type,template,tags} 1 at each of its rows, as
/metrics has it (empty labels are no labels in a store).
Values are written with repr(), so equal lines mean equal doubles.

usage:
  export_points.py expect influx|graphite|prometheus|victoria-influx \\
      JSON GUESTS            (GUESTS: lines "vmid object nodename title")
  export_points.py influx URL DB
  export_points.py influx2 POINTS_FILE    (influxdb2_standin.py's points)
  export_points.py graphite WHISPER_DIR FROM UNTIL
  export_points.py prometheus URL TIME    (a Prometheus' HTTP API)
  export_points.py victoria URL           (VictoriaMetrics' /api/v1/export)
  export_points.py openmetrics FILE       (`pvecg export --format
                                           openmetrics`, as a store holds it)
With --significant N first, values are written with N significant digits
instead: VictoriaMetrics keeps about 13 (it stores a decimal mantissa
and exponent), so 0.029999999999999995 comes back as 0.03.
"""
import json
import math
import os
import re
import subprocess
import sys
import urllib.parse
import urllib.request

# RRD column -> (measurement, instance, field) as pvestatd sends it.
GUEST = {
    "maxcpu": ("system", None, "cpus"), "cpu": ("system", None, "cpu"),
    "maxmem": ("system", None, "maxmem"), "mem": ("system", None, "mem"),
    "maxdisk": ("system", None, "maxdisk"), "disk": ("system", None, "disk"),
    "netin": ("system", None, "netin"), "netout": ("system", None, "netout"),
    "diskread": ("system", None, "diskread"),
    "diskwrite": ("system", None, "diskwrite"),
    "memhost": ("system", None, "memhost"),
}
NODE = {
    "loadavg": ("cpustat", None, "avg1"), "maxcpu": ("cpustat", None, "cpus"),
    "cpu": ("cpustat", None, "cpu"), "iowait": ("cpustat", None, "wait"),
    "memtotal": ("memory", None, "memtotal"),
    "memused": ("memory", None, "memused"),
    "swaptotal": ("memory", None, "swaptotal"),
    "swapused": ("memory", None, "swapused"),
    "roottotal": ("blockstat", None, "blocks"),
    "rootused": ("blockstat", None, "used"),
    "netin": ("nics", "physical", "receive"),
    "netout": ("nics", "physical", "transmit"),
    "memavailable": ("memory", None, "memavailable"),
    "arcsize": ("memory", None, "arcsize"),
}
for res in ("cpu", "io", "memory"):
    for kind in ("some", "full"):
        name = "pressure" + res + kind
        GUEST[name] = ("system", None, name)
        if name != "pressurecpufull":
            NODE[name] = ("system", None, name)
# pvecg's KSM files: beside Proxmox's values, a guest's in `system`, a
# node's in `memory`, under the RRD's names.
for name in ("ksmmerging", "ksmzero", "ksmprofit", "ksmsaved"):
    GUEST[name] = ("system", None, name)
for name in ("ksmrun", "ksmshared", "ksmsharing", "ksmzero", "ksmprofit",
             "ksmsaved"):
    NODE[name] = ("memory", None, name)
# pvecg's stall files: a guest's and a node's alike into `system`.
STALLS = {}
for res in ("cpu", "io", "memory"):
    for kind in ("some", "full"):
        name = "stall" + res + kind
        GUEST[name] = NODE[name] = ("system", None, name)
        STALLS[name] = "pve_pressure_%s_%s_seconds_total" % (
            res, {"some": "waiting", "full": "stalled"}[kind])
COUNTERS = {"netin", "netout", "diskread", "diskwrite"} | STALLS.keys()

# RRD column -> Prometheus name (counters with _total), guests and nodes.
PROM_GUEST = {
    "maxcpu": "pve_cpu_usage_limit", "cpu": "pve_cpu_usage_ratio",
    "maxmem": "pve_memory_size_bytes", "mem": "pve_memory_usage_bytes",
    "maxdisk": "pve_disk_size_bytes", "disk": "pve_disk_usage_bytes",
    "netin": "pve_network_receive_bytes_total",
    "netout": "pve_network_transmit_bytes_total",
    "diskread": "pve_disk_read_bytes_total",
    "diskwrite": "pve_disk_written_bytes_total",
    "memhost": "pve_memory_host_bytes",
}
PROM_NODE = {
    "loadavg": "pve_load1", "maxcpu": "pve_cpu_usage_limit",
    "cpu": "pve_cpu_usage_ratio", "iowait": "pve_cpu_iowait_ratio",
    "memtotal": "pve_memory_size_bytes", "memused": "pve_memory_usage_bytes",
    "swaptotal": "pve_swap_size_bytes", "swapused": "pve_swap_usage_bytes",
    "roottotal": "pve_disk_size_bytes", "rootused": "pve_disk_usage_bytes",
    "netin": "pve_network_receive_bytes_total",
    "netout": "pve_network_transmit_bytes_total",
    "memavailable": "pve_memory_available_bytes",
    "arcsize": "pve_zfs_arc_size_bytes",
}
for res in ("cpu", "io", "memory"):
    for kind in ("some", "full"):
        name = "pressure" + res + kind
        PROM_GUEST[name] = "pve_pressure_%s_%s_ratio" % (res, kind)
        if name != "pressurecpufull":
            PROM_NODE[name] = PROM_GUEST[name]

# prometheus-pve-exporter's names before its _total counters: the gauges
# 3.8 still serves beside them ("DEPRECATED" in collector/cluster.py),
# which old dashboards query, of the same values.
OLDER = {
    "pve_network_receive_bytes_total": "pve_network_receive_bytes",
    "pve_network_transmit_bytes_total": "pve_network_transmit_bytes",
    "pve_disk_read_bytes_total": "pve_disk_read_bytes",
    "pve_disk_written_bytes_total": "pve_disk_write_bytes",
}

KSM_PROM = {
    "ksmmerging": "pve_ksm_merging_pages", "ksmzero": "pve_ksm_zero_pages",
    "ksmprofit": "pve_ksm_profit_bytes",
    "ksmsaved": "pve_memory_ksm_saved_bytes", "ksmrun": "pve_ksm_run_state",
    "ksmshared": "pve_ksm_shared_pages",
    "ksmsharing": "pve_ksm_sharing_pages",
}
for name, prom in KSM_PROM.items():
    if name in GUEST:
        PROM_GUEST[name] = prom
    PROM_NODE[name] = prom

META = {"file", "vmid", "node", "time", "step"}
SIGNIFICANT = None  # --significant N


def num(value):
    """A value as the lines hold it: exact, or rounded to SIGNIFICANT."""
    value = float(value)
    return repr(value) if SIGNIFICANT is None else "%.*g" % (SIGNIFICANT, value)


def rows_with_counters(path):
    """The JSON rows, counters rebuilt per file, in file order (a stall
    total kept in microseconds, written in seconds)."""
    totals = {}
    for line in open(path):
        row = json.loads(line)
        for key in COUNTERS & row.keys():
            state = (row.get("node"), row.get("vmid"), key)
            if state in totals:
                totals[state] += row[key] * row["step"]
            else:
                totals[state] = 0.0
            row[key] = totals[state] / 1e6 if key in STALLS else totals[state]
        yield row


def tags(pairs):
    return ",".join("%s=%s" % kv for kv in sorted(pairs))


def prom_series(name, labels):
    """name{id="..",cluster="..",...}: id and cluster first, the rest by
    name; empty labels left out (a store has none)."""
    first = [k for k in ("id", "cluster") if labels.get(k)]
    rest = sorted(k for k in labels if k not in first and labels[k] != ""
                  and k not in ("id", "cluster"))
    return "%s{%s}" % (name, ",".join('%s="%s"' % (k, labels[k])
                                      for k in first + rest))


def guest_info(row, gid, guests):
    """A guest's pve_guest_info sample at the row, or None."""
    if "vmid" not in row or row["file"].startswith("pvecg-"):
        return None
    obj, nodename, title = guests[str(row["vmid"])]
    labels = {"id": gid, "node": nodename, "name": title, "type": obj,
              "template": "0", "tags": ""}
    return "%s\t%d\t%s" % (prom_series("pve_guest_info", labels),
                            row["time"], num(1))


def expect(form, json_path, guests_path):
    guests = {}
    for line in open(guests_path):
        vmid, obj, nodename, title = line.rstrip("\n").split(" ", 3)
        guests[vmid] = (obj, nodename, title)
    out = []
    for row in rows_with_counters(json_path):
        node = "node" in row
        if node:
            who = [("object", "nodes"), ("host", row["node"])]
            gid, obj, name = "node/" + row["node"], "nodes", row["node"]
        else:
            vmid = str(row["vmid"])
            obj, nodename, title = guests[vmid]
            who = [("object", obj), ("vmid", vmid), ("nodename", nodename)]
            if title:
                who.append(("host", title))
            gid, name = obj + "/" + vmid, vmid
        names = NODE if node else GUEST
        prom = PROM_NODE if node else PROM_GUEST
        info = guest_info(row, gid, guests)
        if form == "prometheus" and info is not None:
            out.append(info)
        for key, value in row.items():
            if key in META:
                continue
            meas, inst, field = names[key]
            t = row["time"]
            series_tags = who + ([("instance", inst)] if inst else [])
            if form == "influx":
                series = "%s,%s %s" % (meas, tags(series_tags), field)
            elif form == "victoria-influx":
                series = "%s_%s{%s}" % (meas, field, tags(series_tags))
            elif form == "graphite":
                parts = ["proxmox", obj, name]
                if node and meas != "system":
                    parts.append(meas)
                if inst:
                    parts.append(inst)
                series = ".".join(parts + [field])
            elif key in STALLS:
                series = prom_series(STALLS[key], {"id": gid})
            else:
                if key.startswith("pressure"):
                    value = value / 100
                series = '%s{id="%s"}' % (prom[key], gid)
                if prom[key] in OLDER:
                    out.append('%s{id="%s"}\t%d\t%s' % (OLDER[prom[key]], gid,
                                                       t, num(value)))
            out.append("%s\t%d\t%s" % (series, t, num(value)))
    print("\n".join(sorted(out)))


def get_json(url):
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.load(answer)


def read_influx(url, db):
    out = []
    base = url + "/query?" + urllib.parse.urlencode({"db": db, "epoch": "s"})
    shown = get_json(base + "&q=SHOW+MEASUREMENTS")
    for (meas,) in shown["results"][0]["series"][0]["values"]:
        q = urllib.parse.quote('SELECT * FROM "%s" GROUP BY *' % meas)
        result = get_json(base + "&q=" + q)["results"][0]
        for series in result.get("series", []):
            # GROUP BY * names every tag key of the measurement, "" where
            # a series has none.
            tag_text = tags((k, v) for k, v in series["tags"].items() if v)
            cols = series["columns"]
            for values in series["values"]:
                for col, v in zip(cols[1:], values[1:]):
                    if v is not None:
                        out.append("%s,%s %s\t%d\t%s"
                                   % (meas, tag_text, col, values[0], num(v)))
    print("\n".join(sorted(out)))


def read_influx2(points_file):
    """The points influxdb2_standin.py keeps (JSON lines, times in ns)."""
    out = []
    for line in open(points_file):
        p = json.loads(line)
        out.append("%s,%s %s\t%d\t%s" % (
            p["measurement"], tags(p["tags"].items()), p["field"],
            p["time"] // 1000000000, num(p["value"])))
    print("\n".join(sorted(out)))


def read_graphite(root, start, until):
    out = []
    for top, _, files in os.walk(root):
        for f in files:
            if not f.endswith(".wsp"):
                continue
            path = os.path.join(top, f)
            metric = os.path.relpath(path, root)[:-4].replace("/", ".")
            text = subprocess.run(
                ["whisper-fetch", "--from", start, "--until", until, "--json",
                 path], check=True, capture_output=True, text=True).stdout
            data = json.loads(text)
            for i, v in enumerate(data["values"]):
                if v is not None:
                    t = data["start"] + i * data["step"]
                    out.append("%s\t%d\t%s" % (metric, t, num(v)))
    print("\n".join(sorted(out)))


def prometheus_samples(url, at):
    names = get_json(url + "/api/v1/label/__name__/values")["data"]
    out = []
    for name in names:
        if not name.startswith("pve_"):
            continue
        q = urllib.parse.urlencode({"query": "%s[100y]" % name, "time": at})
        for series in get_json(url + "/api/v1/query?" + q)["data"]["result"]:
            labels = dict(series["metric"])
            labels.pop("__name__", None)
            text = prom_series(name, labels)
            for t, v in series["values"]:
                out.append('%s\t%d\t%s' % (text, t, num(v)))
    return sorted(out)


def read_prometheus(url, at):
    print("\n".join(prometheus_samples(url, at)))


def read_openmetrics(path):
    """The samples of an OpenMetrics text, each with its time: what a
    store fed the same series holds."""
    sample = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})? (\S+) (\S+)$')
    label = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')
    out = []
    for line in open(path):
        if line.startswith("#"):
            continue
        m = sample.match(line.rstrip("\n"))
        if m is None:
            raise ValueError("not a sample: %r" % line)
        labels = dict(label.findall(m.group(2) or ""))
        out.append("%s\t%d\t%s" % (prom_series(m.group(1), labels),
                                    int(float(m.group(4))), num(m.group(3))))
    print("\n".join(sorted(out)))


def read_victoria(url):
    q = urllib.parse.urlencode({"match[]": '{__name__!=""}'})
    out = []
    with urllib.request.urlopen(url + "/api/v1/export?" + q,
                                timeout=30) as answer:
        for line in answer:
            series = json.loads(line)
            labels = dict(series["metric"])
            name = labels.pop("__name__")
            if name.startswith("pve_"):
                text = prom_series(name, labels)
            else:
                text = "%s{%s}" % (name, tags(labels.items()))
            for t, v in zip(series["timestamps"], series["values"]):
                if not math.isnan(v):
                    out.append("%s\t%d\t%s" % (text, t // 1000, num(v)))
    print("\n".join(sorted(out)))


def main(argv):
    global SIGNIFICANT
    if argv[1] == "--significant":
        SIGNIFICANT = int(argv[2])
        argv = argv[:1] + argv[3:]
    if argv[1] == "expect":
        expect(argv[2], argv[3], argv[4])
    elif argv[1] == "influx":
        read_influx(argv[2], argv[3])
    elif argv[1] == "influx2":
        read_influx2(argv[2])
    elif argv[1] == "graphite":
        read_graphite(argv[2], argv[3], argv[4])
    elif argv[1] == "prometheus":
        read_prometheus(argv[2], argv[3])
    elif argv[1] == "openmetrics":
        read_openmetrics(argv[2])
    elif argv[1] == "victoria":
        read_victoria(argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
