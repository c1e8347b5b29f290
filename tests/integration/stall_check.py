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
  counter is the kernel's, read in that time);
- each RRD row of a minute that recorded updates cover on both sides holds
  exactly what those updates make of it: the rate of each update interval,
  weighted by its overlap with the minute (RRD's own arithmetic), to 1e-9;
- no row is above 1,000,000 (100 %);
- the mean of the minute's avg10 (pve-vm-9.0) agrees with the exact share
  within 5 percentage points where the stall is steady.
"""
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

# collectd reads a guest's files after its interval's time; on a loaded
# machine that can be a second or more later.
READ_WITHIN = 3.0

def bracket(kernel, t, column):
    before = [r for r in kernel if r[0] <= t]
    after = [r for r in kernel if r[0] >= t + READ_WITHIN]
    if not before or not after:
        return None
    return before[-1][column], after[0][column]

def expected_rows(updates, step=60):
    """RRD's AVERAGE of each step from DERIVE updates (time, counter):
    each interval's rate, weighted by its overlap with the step."""
    out = {}
    times = [round(t) for t, _ in updates]
    for s in range(times[0] - times[0] % step + step, times[-1] - step + 1, step):
        acc = 0.0
        for (t0, c0), (t1, c1) in zip(zip(times, [u[1] for u in updates]),
                                      zip(times[1:], [u[1] for u in updates[1:]])):
            lo, hi = max(t0, s), min(t1, s + step)
            if hi > lo:
                acc += (c1 - c0) / (t1 - t0) * (hi - lo)
        out[s + step] = acc / step  # rrdtool labels a row by its end
    return out

def main():
    kernel_log, csv_path, fetch_path, avg10_path = sys.argv[1:5]
    kernel = read_kernel(kernel_log)
    csv = read_csv(csv_path)
    fetched = read_fetch(fetch_path)
    avg10 = read_fetch(avg10_path)
    check(len(csv) >= 3, "at least three stall rows recorded (got %d)" % len(csv))
    for t, values in csv:
        for column, name in ((0, "some"), (1, "full")):
            b = bracket(kernel, t, column + 1)
            check(b is not None and b[0] <= values[column] <= b[1],
                  "cpu %s counter at %.3f is the kernel's: %s <= %d <= %s" %
                  (name, t, b and b[0], values[column], b and b[1]))
    for column, name in ((0, "some"), (1, "full")):
        want = expected_rows([(t, v[column]) for t, v in csv])
        check(len(want) >= 1, "cpu %s: a whole minute between updates" % name)
        for end, value in sorted(want.items()):
            got = fetched.get(end, [float("nan")] * 6)[column]
            check(abs(got - value) <= 1e-9 * max(1.0, value),
                  "cpu %s row ending %d: RRD %.6f, from the counters %.6f" %
                  (name, end, got, value))
            check(got <= 1e6, "cpu %s row ending %d at most 100 %%" % (name, end))
    some = expected_rows([(t, v[0]) for t, v in csv])
    for end, value in sorted(some.items()):
        a = avg10.get(end, [float("nan")] * 17)[PRESSURECPUSOME]
        check(abs(a - value / 1e4) <= 5.0,
              "minute ending %d: avg10 mean %.2f %% and exact %.2f %% agree" %
              (end, a, value / 1e4))
    return 1 if FAILED else 0

if __name__ == "__main__":
    sys.exit(main())
