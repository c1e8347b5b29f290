#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What test_real_stall.sh checks, from three records of the same minutes:

  kernel.log  the test's own readings of the guest's cpu.pressure, every
              0.1 s: "<unix time> <some total> <full total>"
  csv         collectd's csv plugin's lines of the guest's
              pvecg_pressure_vm_1_0 lists: "<time>,<six counters>"
  fetch       `rrdtool fetch FILE AVERAGE -r 60 -s S -e E` of its
              pvecg-pressure-vm-1.0 file, and the same of its pve-vm-9.0

and prints one line per check, "ok - ..." or "FAIL - ...":

- each recorded cpu counter lies between the kernel's totals read just
  before collectd's interval began and READ_WITHIN seconds after it (the
  counter is the kernel's, read in that time), less at most what the
  files' whole seconds hold back: a counter never advances by more than
  the seconds between its rows in the file, so near 100 % a reading at
  x.507 followed by one at y.496 holds back about a second, paid once
  the stall lets up (bounded from the kernel's own readings);
- each RRD row of a minute that recorded updates cover on both sides holds
  exactly what those updates make of it: the rate of each update interval,
  weighted by its overlap with the minute (RRD's own arithmetic: a rate
  above the files' max of 1,000,000 unknown, a minute more than half
  unknown unknown), to 1e-9;
- no row is above 1,000,000 (100 %);
- the mean of the minute's avg10 (pve-vm-9.0) agrees with the exact share
  within 5 percentage points where the stall is steady (not in a minute
  that begins less than SETTLE seconds after the stall did, while avg10
  still rises, nor in one collectd was partly down: the RRD holds its
  first avg10 after the restart for the whole gap);
- given the seconds collectd was down ("STOP START", a restart between two
  of its readings), a row of a minute in that time is among those checked:
  the counter went on across the restart (the first reading after it is
  the kernel's total, so the row holds the stall of the time it was down).
"""
import math
import sys

def read_kernel(path):
    rows = []
    for line in open(path):
        t, some, full = line.split()
        rows.append((float(t), int(some), int(full)))
    return rows

def read_csv(path):
    rows = []
    for line in open(path):
        if not line[:1].isdigit():
            continue
        f = line.strip().split(",")
        rows.append((float(f[0]), [float(v) for v in f[1:]]))
    return rows

def read_fetch(path):
    rows = {}
    for line in open(path):
        if ":" not in line or not line.strip()[:1].isdigit():
            continue
        t, values = line.split(":", 1)
        rows[int(t)] = [float(v) for v in values.split()]
    return rows

FAILED = 0
PRESSURECPUSOME = 11  # pve-vm-9.0's column of cpu some avg10

def check(ok, what):
    global FAILED
    print(("ok   - " if ok else "FAIL - ") + what)
    FAILED += 0 if ok else 1

# avg10 decays with a 10 s time constant: 30 s after a stall begins it
# is within 5 % of it, before that a minute's mean of it is not.
SETTLE = 30.0

# collectd reads a guest's files after its interval's time; on a loaded
# machine that can be a second or more later.
READ_WITHIN = 3.0

def bracket(kernel, t, column):
    before = [r for r in kernel if r[0] <= t]
    after = [r for r in kernel if r[0] >= t + READ_WITHIN]
    if not before or not after:
        return None
    return before[-1][column], after[0][column]

MAX = 1e6  # the files' max: 100 % of the time

def file_second(t):
    return int(t + 0.5)  # pve_rrd's whole seconds

def held_back(kernel, runs, t, column):
    """The most the files' whole seconds can hold back of the counter read
    at t: over the earlier readings j of the same collectd run, what the
    kernel can have added since j beyond the file's seconds since j (the
    counter starts at the kernel's total in each run)."""
    b = bracket(kernel, t, column)
    most = 0
    for tj in runs(t):
        bj = bracket(kernel, tj, column)
        if bj is not None:
            most = max(most, (b[1] - bj[0]) -
                       (file_second(t) - file_second(tj)) * 1e6)
    return most

def expected_rows(updates, step=60):
    """RRD's AVERAGE of each step from DERIVE updates (time, counter):
    each interval's rate, weighted by its overlap with the step; a rate
    above the max is unknown for its seconds, and a step more than half
    unknown is unknown (librrd's rule), else the mean of its known part."""
    out = {}
    times = [file_second(t) for t, _ in updates]
    counters = [u[1] for u in updates]
    for s in range(times[0] - times[0] % step + step, times[-1] - step + 1, step):
        acc, unknown = 0.0, 0
        for t0, c0, t1, c1 in zip(times, counters, times[1:], counters[1:]):
            lo, hi = max(t0, s), min(t1, s + step)
            if hi <= lo:
                continue
            rate = (c1 - c0) / (t1 - t0)
            if rate > MAX:
                unknown += hi - lo
            else:
                acc += rate * (hi - lo)
        # rrdtool labels a row by its end
        out[s + step] = (float("nan") if unknown > step / 2
                         else acc / (step - unknown))
    return out

def same(got, want):
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    return abs(got - want) <= 1e-9 * max(1.0, want)

def main():
    kernel_log, csv_path, fetch_path, avg10_path = sys.argv[1:5]
    kernel = read_kernel(kernel_log)
    csv = read_csv(csv_path)
    fetched = read_fetch(fetch_path)
    avg10 = read_fetch(avg10_path)
    check(len(csv) >= 3, "at least three stall rows recorded (got %d)" % len(csv))
    down = (0.0, 0.0)
    if len(sys.argv) > 5:
        down = tuple(float(x) for x in sys.argv[5].split())
    def runs(t):  # the readings before t of t's collectd run
        return [tj for tj, _ in csv
                if tj < t and (tj < down[0]) == (t < down[0])]
    for t, values in csv:
        for column, name in ((0, "some"), (1, "full")):
            b = bracket(kernel, t, column + 1)
            held = b and held_back(kernel, runs, t, column + 1)
            check(b is not None and b[0] - held <= values[column] <= b[1],
                  "cpu %s counter at %.3f is the kernel's: %s - %d held "
                  "back <= %d <= %s" % (name, t, b and b[0], held or 0,
                                        values[column], b and b[1]))
    for column, name in ((0, "some"), (1, "full")):
        want = expected_rows([(t, v[column]) for t, v in csv])
        check(len(want) >= 1, "cpu %s: a whole minute between updates" % name)
        for end, value in sorted(want.items()):
            got = fetched.get(end, [float("nan")] * 6)[column]
            check(same(got, value),
                  "cpu %s row ending %d: RRD %.6f, from the counters %.6f" %
                  (name, end, got, value))
            check(math.isnan(got) or got <= MAX,
                  "cpu %s row ending %d at most 100 %%" % (name, end))
    if len(sys.argv) > 5:
        stop, start = down
        before = [t for t, _ in csv if t < stop]
        after = [t for t, _ in csv if t > start]
        check(len(before) >= 2 and len(after) >= 1,
              "readings before (%d) and after (%d) collectd's restart" %
              (len(before), len(after)))
        spanning = [end for end in expected_rows([(t, v[0]) for t, v in csv])
                    if end - 60 < start and end > stop]
        check(len(spanning) >= 1,
              "rows of minutes while collectd was down checked: %s" % spanning)
    some = expected_rows([(t, v[0]) for t, v in csv])
    compared = 0
    for end, value in sorted(some.items()):
        if math.isnan(value) or (end - 60 < down[1] and end > down[0]):
            continue  # no avg10 samples while collectd was down
        if end - 60 < kernel[0][0] + SETTLE:
            continue  # avg10 still rising towards the stall
        a = avg10.get(end, [float("nan")] * 17)[PRESSURECPUSOME]
        check(abs(a - value / 1e4) <= 5.0,
              "minute ending %d: avg10 mean %.2f %% and exact %.2f %% agree" %
              (end, a, value / 1e4))
        compared += 1
    check(compared >= 1, "avg10 and exact compared in %d minutes" % compared)
    return 1 if FAILED else 0

if __name__ == "__main__":
    sys.exit(main())
