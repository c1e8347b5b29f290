#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The overview of `pvecg serve`, checked against rrdtool itself.

overview_check.py api URL DATA_DIR NOW
    GET URL/api2/json/pvecg/overview and, for every file it lists, compare
    "time" and each value with `rrdtool lastupdate` of the same file (the
    stored text read as a double, U as null: exactly equal), and "spark"
    with `$PVECG rrddata --timeframe hour --now NOW` of the same file: its
    60 rows, value i being the memhost (node: memused) of the rrddata row
    whose time is spark_time + 60*i, null where that row has none or
    rrddata has no such row.  Every rrddata row must fall in the spark.
    "age" is NOW minus that time, "stale" true when it is more than STALE
    seconds (five steps: /metrics' pve_up 0) or there is none; "ksm" true
    when the entry has a KSM file (pvecg-ksm-vm-1.0, pvecg-ksm-node-1.0)
    and a guest's "ksmsaved" its KSM file's newest ksmsaved when that file
    is fresh by the same rule, else null.

overview_check.py page URL DATA_DIR OUT_PNG NOW
    Opens URL/ in headless Chromium (chromedriver's WebDriver API, as
    page_check.sh) and checks what a person sees: the start view is the
    overview, its rows are the listing's entries, each value shown equals
    `rrdtool lastupdate` (data-value exactly; the text as app.js's format
    rule says, applied here to the stored value); guests sorted by host
    memory, largest first; after a click on the CPU header by CPU, largest
    first, after a second click smallest first (unknown last both ways);
    after a click on KSM saved by it, largest first, a guest without a
    fresh KSM file last, shown as "–"; exactly the stale entries greyed
    (tr.stale) with their age beside the name ("45 min old": whole
    minutes under 90, then hours under 48, then days);
    the filter narrows table and sidebar to the VMIDs and names holding
    the text; a click on a row opens that guest's graphs; a screenshot in
    OUT_PNG; no SEVERE console entry.

overview_check.py token URL TOKEN ENTRIES OUT_PNG
    URL is a server started with --token-file: the page asks for the token
    at the first 401; a wrong one is refused (the form comes back, saying
    so), the right one (typed, as a person does) draws the overview with
    ENTRIES rows; a screenshot of the form in OUT_PNG; the console holds
    nothing SEVERE but the refused requests before the token was given.

overview_check.py scoped URL TOKEN IDS OUT_PNG
    URL is a server started with --token-file, TOKEN one of its tokens
    with a scope and IDS its guests' ids, ","-separated ("qemu/100,...").
    Once TOKEN is typed the overview's rows and the sidebar are exactly
    IDS (no node); a click on the first row draws that guest's graphs; a
    screenshot in OUT_PNG; nothing SEVERE but the 401s before the token.

overview_check.py clusters URL DATA_DIR MEMHOSTS OUT_PNG PLAIN_URL
    URL serves a data directory that keeps clusters apart (clusters_
    fixture.sh), MEMHOSTS its guest 196's memhost per cluster as JSON
    ({"": ..., "prod": ...}), PLAIN_URL one cluster's directory served
    alone.  The table has a Cluster column and a row per entry of
    cluster/resources, each guest 196 its own (data-id "CLUSTER/qemu/196",
    "" without a cluster), its cluster shown and its values equal to
    `rrdtool lastupdate` of its cluster's file; #cluster-filter offers
    every cluster and "(no cluster)", and choosing one leaves exactly its
    entries in table and sidebar; a click on prod's 196 opens its graphs
    with rrddata asked for cluster=prod; a screenshot, no SEVERE console
    entry.  PLAIN_URL's page has neither column nor filter.

overview_check.py measure URL OUT_PNG RUNS
    Loads URL/ RUNS times and prints, as JSON, per load the time from
    navigation to the page's "pvecg-overview-drawn" mark, the rows drawn
    and the requests the page made (the document and its resources).

Prints "ok - ..." / "FAIL - ..." lines; exits 0, 1 on a failure, 77 when
chromium or chromedriver is missing.  Standard library only.
"""
import base64
import decimal
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

FAILED = False
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
BYTES = {"memhost", "mem", "maxmem", "memused", "memtotal", "ksmsaved"}
STALE = 300  # five steps of 60 s, as /metrics tells fresh from stale
BINARY = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]


def ok(what):
    print("ok -", what, flush=True)


def fail(what):
    global FAILED
    FAILED = True
    print("FAIL -", what, flush=True)


def check(cond, what, detail=""):
    if cond:
        ok(what)
    else:
        fail(what + (": " + detail if detail else ""))
    return cond


# ---- what rrdtool says -----------------------------------------------------


def lastupdate(path):
    """{"time": int, name: float or None} from `rrdtool lastupdate`."""
    out = subprocess.run(["rrdtool", "lastupdate", path], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    names = out[0].split()
    stamp, values = out[2].split(":", 1)
    row = {"time": int(stamp)}
    for name, text in zip(names, values.split()):
        row[name] = None if text == "U" else float(text)
    return row


def file_of(data_dir, entry):
    data_dir = os.path.join(data_dir, entry.get("cluster", ""))
    if entry["type"] == "node":
        return os.path.join(data_dir, "pve-node-9.0", entry["node"])
    return os.path.join(data_dir, "pve-vm-9.0", str(entry["vmid"]))


def ksm_of(data_dir, entry, now):
    """(has a KSM file, its newest ksmsaved when fresh else None)."""
    data_dir = os.path.join(data_dir, entry.get("cluster", ""))
    if entry["type"] == "node":
        path = os.path.join(data_dir, "pvecg-ksm-node-1.0", entry["node"])
    else:
        path = os.path.join(data_dir, "pvecg-ksm-vm-1.0", str(entry["vmid"]))
    if not os.path.exists(path):
        return False, None
    row = lastupdate(path)
    return True, row["ksmsaved"] if now - row["time"] <= STALE else None


def age_text(age):
    """app.js's ageText(): how old a stale row is."""
    def rnd(x):
        return int(math.floor(x + 0.5))
    if age is None:
        return "no data"
    if age < 5400:
        return "%d min old" % max(1, rnd(age / 60))
    if age < 172800:
        return "%d h old" % rnd(age / 3600)
    return "%d days old" % rnd(age / 86400)


def get_json(url):
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.load(answer)


# JS's toFixed for a non-negative double: its exact value rounded half up.
def to_fixed(x, digits):
    q = decimal.Decimal(1).scaleb(-digits)
    return str(decimal.Decimal(x).quantize(q, decimal.ROUND_HALF_UP))


def shown(key, v):
    """A value as app.js's formatValue() shows it in the overview."""
    if v is None:
        return "–"
    if key in BYTES:
        k = 0
        while k < len(BINARY) - 1 and abs(v) >= 1024 ** (k + 1):
            k += 1
        x = v / 1024 ** k
        if k == 0:
            return to_fixed(x, 0) + " B"
        return to_fixed(x, 2 if x < 10 else 1 if x < 100 else 0) + " " + BINARY[k]
    if key == "cpu":
        v = v * 100
    return to_fixed(v, 2 if abs(v) < 10 else 1) + "%"


# ---- the bulk answer -------------------------------------------------------

GUEST_KEYS = ["memhost", "mem", "maxmem", "cpu", "maxcpu", "pressurecpusome",
              "pressureiosome", "pressurememorysome"]
NODE_KEYS = ["memused", "memtotal", "cpu", "maxcpu", "pressurecpusome",
             "pressureiosome", "pressurememorysome"]


def rrddata_hour(data_dir, now, entry):
    who = (["--node", entry["node"]] if entry["type"] == "node"
           else ["--vmid", str(entry["vmid"])])
    out = subprocess.run([os.environ["PVECG"], "rrddata", "--data-dir",
                          data_dir, "--now", str(now), "--timeframe", "hour"]
                         + who, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["data"]


def check_spark(entry, rows, key):
    spark, t0 = entry.get("spark"), entry.get("spark_time")
    if spark is None:
        return "no spark"
    if entry.get("spark_step") != 60 or len(spark) != 60:
        return f"step {entry.get('spark_step')}, {len(spark)} values"
    by_time = {r["time"]: r for r in rows}
    if any(not t0 <= t <= t0 + 59 * 60 or (t - t0) % 60 for t in by_time):
        return "rrddata has rows outside the spark"
    for i, v in enumerate(spark):
        want = by_time.get(t0 + 60 * i, {}).get(key)
        if (v is None) != (want is None) or (v is not None and v != want):
            return f"value {i} (time {t0 + 60 * i}) is {v}, rrddata says {want}"
    return None


def check_ksm_and_age(data_dir, now, entry, want):
    has, saved = ksm_of(data_dir, entry, now)
    stamp = want["time"] if want else None
    age = now - stamp if stamp else None
    got = [entry.get(k) for k in ("ksm", "ksmsaved", "age", "stale")]
    expect = [has, saved, age, age is None or age > STALE]
    if entry["type"] == "node":
        got[1] = expect[1] = "-" if "ksmsaved" not in entry else got[1]
    check(got == expect, f"{entry['id']}: ksm, ksmsaved, age and stale "
          f"as its files say ({expect})", f"got {got}")


def check_entry(data_dir, now, entry):
    path = file_of(data_dir, entry)
    keys = NODE_KEYS if entry["type"] == "node" else GUEST_KEYS
    try:
        want = lastupdate(path)
    except subprocess.CalledProcessError:
        want = None
    check_ksm_and_age(data_dir, now, entry,
                      want if want and all(k in want for k in keys) else None)
    if want is None or any(k not in want for k in keys):
        bad = [k for k in ["time", "spark"] + keys if entry.get(k) is not None]
        return check(not bad, f"{entry['id']}: unreadable, every value null",
                     f"not null: {bad}")
    diff = [f"{k}={entry.get(k)!r} (rrdtool: {want[k]!r})" for k in
            ["time"] + keys if entry.get(k) != want[k] or
            (entry.get(k) is None) != (want[k] is None)]
    check(not diff, f"{entry['id']}: time and {len(keys)} values equal "
          "rrdtool lastupdate", ", ".join(diff))
    key = "memused" if entry["type"] == "node" else "memhost"
    problem = check_spark(entry, rrddata_hour(data_dir, now, entry), key)
    check(problem is None, f"{entry['id']}: spark equals rrddata's hour of "
          f"{key}", problem or "")


def api(url, data_dir, now):
    listing = get_json(url + "/api2/json/cluster/resources")["data"]
    data = get_json(url + "/api2/json/pvecg/overview")["data"]
    ids = [e["id"] for e in data]
    check(ids == [e["id"] for e in listing],
          f"the overview lists the {len(ids)} entries of cluster/resources "
          "in their order", f"{ids}")
    for entry, listed in zip(data, listing):
        same = all(entry.get(k) == v for k, v in listed.items())
        check(same, f"{entry['id']}: id, type, vmid, name, node as listed",
              f"{entry} vs {listed}")
        check_entry(data_dir, now, entry)


# ---- the browser -----------------------------------------------------------


class Browser:
    """A chromedriver and one headless Chromium session."""

    def __init__(self):
        self.dir = tempfile.mkdtemp()
        self.driver = None
        self.session = None
        chromium = os.environ.get("CHROMIUM") or shutil.which("chromium")
        driver = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver")
        if not chromium or not driver:
            print("SKIP: chromium and chromium-driver are not installed")
            sys.exit(77)
        self.start_driver(driver)
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium, "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--window-size=1280,1400",
                "--user-data-dir=" + os.path.join(self.dir, "profile"),
                "--no-first-run", "--no-default-browser-check"]},
            "goog:loggingPrefs": {"browser": "ALL"}}}}
        answer = self.call("POST", "/session", caps, timeout=90)
        self.session = "/session/" + answer["sessionId"]

    def start_driver(self, driver):
        for _ in range(5):
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            self.base = f"http://127.0.0.1:{port}"
            log = open(os.path.join(self.dir, "chromedriver.log"), "w")
            self.driver = subprocess.Popen(
                [driver, f"--port={port}"], stdout=log, stderr=log,
                start_new_session=True)
            for _ in range(50):
                try:
                    if self.call("GET", "/status", timeout=2).get("ready"):
                        return
                except OSError:
                    pass
                time.sleep(0.1)
            self.stop_driver()
        fail("chromedriver did not start")
        sys.exit(1)

    def stop_driver(self):
        if self.driver is None:
            return
        try:
            os.killpg(self.driver.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.driver.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.driver.pid, signal.SIGKILL)
            self.driver.wait()
        self.driver = None

    def close(self):
        if self.session:
            try:
                self.call("DELETE", self.session, timeout=10)
            except OSError:
                pass
        self.stop_driver()
        shutil.rmtree(self.dir, ignore_errors=True)

    def call(self, method, path, body=None, timeout=30):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data,
                                     method=method, headers={
                                         "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as answer:
                value = json.load(answer).get("value")
        except urllib.error.HTTPError as e:
            value = json.load(e).get("value")
            raise RuntimeError(f"{method} {path}: {value}") from None
        return value

    def js(self, script, *args):
        return self.call("POST", self.session + "/execute/sync",
                         {"script": script, "args": list(args)})

    def open(self, url):
        self.call("POST", self.session + "/url", {"url": url}, timeout=60)

    def find(self, css):
        found = self.call("POST", self.session + "/element",
                          {"using": "css selector", "value": css})
        return self.session + "/element/" + found[ELEMENT]

    def click(self, css):
        self.call("POST", self.find(css) + "/click", {})

    def type(self, css, text):
        self.call("POST", self.find(css) + "/value", {"text": text})

    def wait(self, script, timeout=20):
        """Until script returns something true; that value, or None."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.js(script)
            if value:
                return value
            time.sleep(0.05)
        return None

    def screenshot(self, path):
        png = base64.b64decode(self.call("GET", self.session + "/screenshot",
                                         timeout=60))
        with open(path, "wb") as out:
            out.write(png)
        check(png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 8192,
              f"screenshot {path} ({len(png)} bytes)")

    def console(self, allowed=None):
        for path in ("/se/log", "/log"):
            try:
                entries = self.call("POST", self.session + path,
                                    {"type": "browser"})
                break
            except RuntimeError:
                entries = None
        if entries is None:
            return fail("could not read the browser's console")
        for e in entries:
            print(f"# console {e['level']}: {e['message']}")
        severe = [e for e in entries if e["level"] == "SEVERE" and
                  not (allowed and allowed in e["message"])]
        check(not severe, "no SEVERE console entry" +
              (f" but {allowed!r}" if allowed else ""), f"{len(severe)} of them")


READY = """return document.body.dataset.state === 'ready' &&
  document.body.dataset.view === arguments[0] ? location.hash : null;"""

TABLE = """
var out = [];
document.querySelectorAll('#overview-table tr.row').forEach(function (tr) {
  var row = {id: tr.dataset.id, hidden: tr.hidden,
             part: tr.parentNode.className, values: []};
  tr.querySelectorAll('span[data-key]').forEach(function (s) {
    row.values.push([s.dataset.key, s.dataset.value, s.textContent]);
  });
  var spark = tr.querySelector('svg.spark path');
  row.spark = spark ? Number(spark.dataset.points) : null;
  out.push(row);
});
return out;"""

SIDEBAR = """
var out = [];
document.querySelectorAll('#nodes a.target, #guests a.target')
  .forEach(function (a) { if (!a.parentNode.hidden) out.push(a.dataset.id); });
return out;"""


def sorted_ids(entries, key, descending):
    def order(e):
        v = e["want"].get(key) if e["want"] else None
        return (v is None, 0 if v is None else (-v if descending else v),
                e["order"])
    return [e["id"] for e in sorted(entries, key=order)]


def page_id(e):
    """The page's id of a listed entry: its cluster's name before it."""
    return e["cluster"] + "/" + e["id"] if e.get("cluster") else e["id"]


def expected_entries(url, data_dir, now=None):
    """The listed entries with their files' newest values ("want"); with
    NOW also their age, stale and a guest's ksmsaved."""
    entries = []
    for i, e in enumerate(get_json(url + "/api2/json/cluster/resources")["data"]):
        try:
            want = lastupdate(file_of(data_dir, e))
        except subprocess.CalledProcessError:
            want = None
        if want and "memhost" not in want and e["type"] != "node":
            want = None  # a foreign file: shown as unknown
        age = now - want["time"] if want and now is not None else None
        if want and e["type"] != "node" and now is not None:
            want["ksmsaved"] = ksm_of(data_dir, e, now)[1]
        entries.append(dict(e, id=page_id(e), want=want, order=i, age=age,
                            stale=age is None or age > STALE))
    return entries


def check_stale(b, entries):
    rows = b.js("""var out = {};
document.querySelectorAll('#overview-table tr.row').forEach(function (tr) {
  var age = tr.querySelector('td.col-name span.age');
  out[tr.dataset.id] = [tr.classList.contains('stale'),
                        age ? age.textContent : null,
                        getComputedStyle(tr.querySelector('td')).color];
});
return out;""")
    want = {e["id"]: [e["stale"], age_text(e["age"]) if e["stale"] else None]
            for e in entries}
    got = {k: v[:2] for k, v in rows.items()}
    greyed = {v[2] for v in rows.values() if v[0]}
    plain = {v[2] for v in rows.values() if not v[0]}
    stale = sorted(k for k, v in want.items() if v[0])
    check(got == want and stale and greyed and not greyed & plain,
          f"exactly the stale rows {stale} are greyed, each with its age "
          f"({[want[k][1] for k in stale]})", f"got {got}, want {want}, "
          f"colours {greyed} vs {plain}")


def check_ksm_sort(b, guests):
    b.click('button[data-sort="ksmsaved"]')
    want = sorted_ids(guests, "ksmsaved", True)
    got = guest_order(b)
    known = [e["id"] for e in guests if e["want"] and
             e["want"].get("ksmsaved") is not None]
    check(got == want and len(known) >= 2,
          f"click on KSM saved: guests by it, largest first, the {len(known)} "
          "with a fresh KSM file first", f"got {got}, want {want}")


def check_values(table, by_id):
    bad = []
    for row in table:
        want = by_id[row["id"]]["want"] or {}
        for key, value, text in row["values"]:
            v = want.get(key)
            if (value == "") != (v is None) or (v is not None and float(value) != v):
                bad.append(f"{row['id']} {key}: data-value {value!r}, rrdtool {v!r}")
            elif text != shown(key, v):
                bad.append(f"{row['id']} {key}: shows {text!r}, rule gives {shown(key, v)!r}")
    n = sum(len(r["values"]) for r in table)
    check(not bad and n > 0, f"{n} values shown equal rrdtool lastupdate, "
          "formatted by the rule", "; ".join(bad[:10]))


def guest_order(b):
    return [r["id"] for r in b.js(TABLE) if r["part"] == "guests"]


def check_sort(b, guests):
    check(guest_order(b) == sorted_ids(guests, "memhost", True),
          "guests are sorted by host memory, largest first, at the start")
    for click, descending in ((1, True), (2, False)):
        b.click('button[data-sort="cpu"]')
        sort = b.js("""var th = document.querySelector('th[data-col="cpu"]');
                       return th.getAttribute('aria-sort');""")
        want = sorted_ids(guests, "cpu", descending)
        got = guest_order(b)
        check(got == want and sort == ("descending" if descending else "ascending"),
              f"click {click} on CPU: guests by CPU, "
              f"{'largest' if descending else 'smallest'} first, aria-sort {sort}",
              f"got {got[:8]}..., want {want[:8]}...")


def matches(e, q):
    if e["type"] == "node":
        return q in e["node"].lower()
    return q in str(e["vmid"]) or q in e.get("name", "").lower()


def check_filter(b, entries, text):
    b.js("var f = document.getElementById('filter'); f.value = '';"
         "f.dispatchEvent(new Event('input'));")
    b.type("#filter", text)
    q = text.strip().lower()
    want = [e["id"] for e in entries if matches(e, q)]
    table = [r["id"] for r in b.js(TABLE) if not r["hidden"]]
    sidebar = b.js(SIDEBAR)
    check(sorted(table) == sorted(want) and sorted(sidebar) == sorted(want)
          and want, f"filter {text!r}: table and sidebar show the "
          f"{len(want)} entries holding it", f"table {table}, sidebar "
          f"{sidebar}, want {want}")


def page(url, data_dir, out_png, now):
    entries = expected_entries(url, data_dir, now)
    by_id = {e["id"]: e for e in entries}
    guests = [e for e in entries if e["type"] != "node"]
    b = Browser()
    try:
        b.open(url + "/")
        hash_ = b.wait(READY.replace("arguments[0]", "'overview'"))
        check(hash_ == "#overview", "the start view is the overview",
              f"hash {hash_!r}")
        table = b.js(TABLE)
        nodes = [r["id"] for r in table if r["part"] == "nodes"]
        check(nodes == sorted_ids([e for e in entries if e["type"] == "node"],
                                  "memused", True)
              and [r["id"] for r in table[:len(nodes)]] == nodes
              and sorted(r["id"] for r in table) == sorted(by_id),
              f"the table has the {len(entries)} listed entries, nodes "
              "first, sorted by memory used",
              f"{[r['id'] for r in table]}")
        check(all(r["spark"] is not None for r in table), "every row has a sparkline")
        check_values(table, by_id)
        check_sort(b, guests)
        check_stale(b, entries)
        b.screenshot(out_png)
        check_ksm_sort(b, guests)
        named = next(e for e in guests if e.get("name"))
        check_filter(b, entries, named["name"][:3].upper())
        check_filter(b, entries, str(guests[-1]["vmid"])[-2:])
        b.js("var f = document.getElementById('filter'); f.value = '';"
             "f.dispatchEvent(new Event('input'));")
        b.click(f'tr.row[data-id="{named["id"]}"] td.col-name')
        hash_ = b.wait(READY.replace("arguments[0]", "'target'"))
        graphs = b.js("return Array.from(document.querySelectorAll("
                      "'section.graph')).map(function (g) { return g.dataset.graph; });")
        check(hash_ == "#" + named["id"] and "pressure-io" in graphs,
              f"a click on {named['id']}'s row opens its graphs",
              f"hash {hash_!r}, graphs {graphs}")
        b.console()
    finally:
        b.close()


TOKEN_FORM = """var f = document.getElementById('token-form');
return f && !f.hidden ? {wrong: !document.getElementById('token-wrong').hidden,
                         state: document.body.dataset.state} : null;"""


def give_token(b, token):
    b.js("document.getElementById('token').value = '';")
    b.type("#token", token)
    b.click("#token-form button")


def token(url, secret, entries, out_png):
    b = Browser()
    try:
        b.open(url + "/")
        form = b.wait(TOKEN_FORM)
        check(form is not None and not form["wrong"],
              "without a token the page asks for one", f"{form}")
        b.screenshot(out_png)
        b.console(allowed="401")
        give_token(b, "not-" + secret)
        time.sleep(0.5)  # the reload
        form = b.wait(TOKEN_FORM)
        check(form is not None and form["wrong"],
              "a wrong token is refused and the page says so", f"{form}")
        b.console(allowed="401")
        give_token(b, secret)
        hash_ = b.wait(READY.replace("arguments[0]", "'overview'"))
        rows = len(b.js(TABLE))
        hidden = b.js("return document.getElementById('token-form').hidden;")
        check(hash_ == "#overview" and rows == entries and hidden,
              f"with the token the overview is drawn ({entries} rows)",
              f"hash {hash_!r}, {rows} rows, form hidden {hidden}")
        b.console()
    finally:
        b.close()


def scoped(url, secret, ids, out_png):
    """The page with a token limited to some guests: after the token, the
    overview's rows and the sidebar are exactly those guests, no node, and a
    click on the first opens its graphs (its rrddata answered)."""
    b = Browser()
    try:
        b.open(url + "/")
        b.wait(TOKEN_FORM)
        b.console(allowed="401")
        give_token(b, secret)
        hash_ = b.wait(READY.replace("arguments[0]", "'overview'"))
        table = sorted(r["id"] for r in b.js(TABLE) if not r["hidden"])
        sidebar = sorted(b.js(SIDEBAR))
        check(hash_ == "#overview" and table == sorted(ids),
              f"the overview shows the scope's guests alone: {ids}",
              f"hash {hash_!r}, table {table}")
        check(sidebar == sorted(ids), "the sidebar lists them alone, no node",
              f"sidebar {sidebar}")
        b.screenshot(out_png)
        b.click(f'tr.row[data-id="{ids[0]}"] td.col-name')
        hash_ = b.wait(READY.replace("arguments[0]", "'target'"))
        drawn = b.js("return document.querySelectorAll('path.series').length;")
        check(hash_ == "#" + ids[0] and drawn > 0,
              f"a click on {ids[0]} draws its graphs",
              f"hash {hash_!r}, {drawn} series")
        b.console()
    finally:
        b.close()


COLLISION_BADGES = """
var out = {};
document.querySelectorAll('tr.row td.col-name span.collision')
  .forEach(function (s) { out[s.closest('tr').dataset.id] = s.dataset.other; });
return out;
"""

CLUSTER_CELLS = """
var out = {};
document.querySelectorAll('#overview-table tr.row').forEach(function (tr) {
  var td = tr.querySelector('td.col-cluster');
  out[tr.dataset.id] = td ? td.textContent : null;
});
return out;"""

CLUSTER_FILTER = """var f = document.getElementById('cluster-filter');
return {hidden: f.hidden, shown: f.offsetParent !== null,
        options: Array.from(f.options).map(function (o) {
          return [o.value, o.textContent]; }),
        column: !!document.querySelector('th[data-col="cluster"]')};"""


def choose_cluster(b, value, entries, what):
    b.click(f'#cluster-filter option[value="{value}"]')
    want = sorted(e["id"] for e in entries if value == "" or
                  "=" + e.get("cluster", "") == value)
    table = sorted(r["id"] for r in b.js(TABLE) if not r["hidden"])
    sidebar = sorted(b.js(SIDEBAR))
    check(table == want and sidebar == want and want,
          f"cluster filter {what}: table and sidebar show its {len(want)} "
          "entries", f"table {table}, sidebar {sidebar}, want {want}")


def clusters(url, data_dir, memhosts, out_png, plain_url):
    entries = expected_entries(url, data_dir)
    by_id = {e["id"]: e for e in entries}
    names = sorted({e["cluster"] for e in entries if e.get("cluster")})
    b = Browser()
    try:
        b.open(url + "/")
        b.wait(READY.replace("arguments[0]", "'overview'"))
        table = b.js(TABLE)
        check(sorted(r["id"] for r in table) == sorted(by_id),
              f"the table has a row per listed entry ({len(by_id)})",
              f"{[r['id'] for r in table]}")
        cells = b.js(CLUSTER_CELLS)
        check(cells == {i: e.get("cluster", "") for i, e in by_id.items()},
              "the Cluster column shows each entry's cluster", f"{cells}")
        rows_196 = {e.get("cluster", ""): e["id"] for e in entries
                    if e.get("vmid") == 196}
        shown = {}
        for row in table:
            for key, value, _ in row["values"]:
                if row["id"] in rows_196.values() and key == "memhost":
                    shown[row["id"]] = float(value)
        want = {rows_196[c]: float(m) for c, m in memhosts.items()}
        check(shown == want, f"guest 196 is {len(want)} rows, each with its "
              "cluster's memhost", f"shown {shown}, want {want}")
        check_values(table, by_id)
        # the collisions pve_rrd keeps (serve_clusters.sh writes them):
        # marked beside the guest's name, naming the other host
        want = {}
        for e in get_json(url + "/api2/json/pvecg/overview")["data"]:
            if e.get("collisions"):
                want[page_id(e)] = " ".join(c["other"]
                                            for c in e["collisions"])
        marked = b.js(COLLISION_BADGES)
        check(want and marked == want, "a collision is marked beside the "
              f"guest's name ({len(want)})", f"shown {marked}, want {want}")
        f = b.js(CLUSTER_FILTER)
        options = [["", "All clusters"], ["=", "(no cluster)"]] + \
            [["=" + n, n] for n in names]
        check(not f["hidden"] and f["shown"] and f["column"] and
              f["options"] == options, "the cluster filter offers "
              f"{[o[1] for o in options]}", f"{f}")
        for value, what in (("=lab", "lab"), ("=", "(no cluster)"),
                            ("=solo", "solo")):
            choose_cluster(b, value, entries, what)
        choose_cluster(b, "", entries, "all")
        b.screenshot(out_png)
        b.click('tr.row[data-id="prod/qemu/196"] td.col-name')
        hash_ = b.wait(READY.replace("arguments[0]", "'target'"))
        asked = b.js("""return performance.getEntriesByType('resource')
          .map(function (e) { return e.name; })
          .filter(function (n) { return n.indexOf('/rrddata') >= 0; });""")
        title = b.js("return document.getElementById('target-title')"
                     ".textContent;")
        check(hash_ == "#prod/qemu/196" and asked and
              all("cluster=prod" in a for a in asked) and
              title.endswith("in cluster prod"),
              "a click on prod's 196 opens its graphs, rrddata asked for "
              "cluster=prod", f"hash {hash_!r}, asked {asked}, title {title!r}")
        b.console()
        b.open(plain_url + "/")
        b.wait(READY.replace("arguments[0]", "'overview'"))
        f = b.js(CLUSTER_FILTER)
        check(f["hidden"] and not f["shown"] and not f["column"],
              "one cluster alone: no Cluster column, no cluster filter",
              f"{f}")
        b.console()
    finally:
        b.close()


MEASURE = """
var m = performance.getEntriesByName('pvecg-overview-drawn')[0];
if (!m) return null;
return {drawn_ms: Math.round(m.startTime),
        rows: document.querySelectorAll('#overview-table tr.row').length,
        requests: 1 + performance.getEntriesByType('resource').length,
        api: performance.getEntriesByType('resource')
          .filter(function (e) { return e.name.indexOf('/api2/') >= 0; })
          .map(function (e) { return e.name.replace(/^.*\\/api2\\//, 'api2/') +
                                ' ' + Math.round(e.duration) + ' ms'; })};"""


def measure(url, out_png, runs):
    b = Browser()
    results = []
    try:
        for _ in range(runs):
            b.open("about:blank")
            b.open(url + "/")
            results.append(b.wait(MEASURE, timeout=60))
        b.screenshot(out_png)
        b.console()
    finally:
        b.close()
    print(json.dumps(results))
    return results


def main(argv):
    if len(argv) == 5 and argv[1] == "api":
        api(argv[2].rstrip("/"), argv[3], int(argv[4]))
    elif len(argv) == 6 and argv[1] == "page":
        page(argv[2].rstrip("/"), argv[3], argv[4], int(argv[5]))
    elif len(argv) == 6 and argv[1] == "token":
        token(argv[2].rstrip("/"), argv[3], int(argv[4]), argv[5])
    elif len(argv) == 6 and argv[1] == "scoped":
        scoped(argv[2].rstrip("/"), argv[3], argv[4].split(","), argv[5])
    elif len(argv) == 7 and argv[1] == "clusters":
        clusters(argv[2].rstrip("/"), argv[3], json.loads(argv[4]), argv[5],
                 argv[6].rstrip("/"))
    elif len(argv) == 5 and argv[1] == "measure":
        if None in measure(argv[2].rstrip("/"), argv[3], int(argv[4])):
            fail("the overview was not drawn within 60 s")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
