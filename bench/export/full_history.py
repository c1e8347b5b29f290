#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fills every row of every archive of an `rrdtool dump` of an empty
pve-vm-9.0 file (read on stdin, written to stdout) with values a busy guest
would have, so that `rrdtool restore` gives a file with its whole history:
a day of minutes, a month of half hours, a year of six hours, eleven years
of weeks.  Values change from row to row (nothing compresses to a
constant) and keep the precision real ones have."""
import math
import re
import sys

ROW = re.compile(r"/ (\d+) --> <row>(.*)</row>")


def values(t):
    day = math.sin(t / 86400 * 2 * math.pi)
    jitter = (t * 2654435761 % 1000) / 1000
    return [
        4,                                        # maxcpu
        round(0.2 + 0.15 * day + 0.1 * jitter, 6),  # cpu
        8589934592,                               # maxmem
        float(int(4e9 + 1e9 * day + 1e8 * jitter)),  # mem
        34359738368,                              # maxdisk
        0,                                        # disk (QEMU reports 0)
        round(20000 + 15000 * day + 5000 * jitter, 3),  # netin (rate)
        round(8000 + 6000 * day + 2000 * jitter, 3),    # netout
        round(50000 * jitter, 3),                 # diskread
        round(120000 * (1 - jitter), 3),          # diskwrite
        float(int(3.6e9 + 8e8 * day + 1e8 * jitter)),  # memhost
        round(2 * jitter, 2), round(jitter, 2),   # pressure cpu some/full
        round(3 * jitter, 2), round(2 * jitter, 2),  # io
        round(jitter / 2, 2), round(jitter / 4, 2),  # memory
    ]


def fill(match):
    t = int(match.group(1))
    cells = "".join("<v>%r</v>" % float(v) for v in values(t))
    return "/ %d --> <row>%s</row>" % (t, cells)


sys.stdout.write(ROW.sub(fill, sys.stdin.read()))
