# SPDX-License-Identifier: GPL-2.0-or-later
# Files for the serve tests, made by rrdtool from the layout tables
# (LAYOUT_DEFS) and filled with rows that vary in every archive, with
# unknown values here and there.  Sourced by the test scripts.

# make_file LAYOUT PATH START
make_file() {
  # shellcheck disable=SC2046 # one definition per line
  rrdtool create "$2" --start "$3" --step 60 $("$LAYOUT_DEFS" "$1")
}

# vm_rows START COUNT: pve-vm-9.0 rows a minute apart after START; memhost
# unknown every 13th row.
vm_rows() {
  awk -v t0="$1" -v n="$2" 'BEGIN {
    for (i = 1; i <= n; i++) {
      row = t0 + 60 * i ":2:" (i % 7) / 8 ":4294967296:" 1048576 * (1000 + i % 37)
      row = row ":34359738368:0:" 300 * i ":" 600 * i ":" 4096 * i ":" 8192 * i
      row = row ":" (i % 13 == 0 ? "U" : 1048576 * (900 + i % 29))
      print row ":" (i % 10) * 2.5 ":" i % 5 ":" (i % 3) / 4 ":" i % 4 ":0:" (i % 9) * 0.25
    }
  }'
}

# node_rows START COUNT: pve-node-9.0 rows a minute apart after START.
node_rows() {
  awk -v t0="$1" -v n="$2" 'BEGIN {
    g = 1073741824
    for (i = 1; i <= n; i++)
      printf "%d:%s:8:%s:0.01:%.0f:%.0f:%.0f:%.0f:%.0f:%.0f:%d:%d:%.0f:%.0f:%s:0:0.5:0:%s\n",
        t0 + 60 * i, (i % 20) / 10, (i % 5) / 10, 64 * g, g * (8 + i % 5),
        8 * g, g / 4, 100 * g, 20 * g, 1000 * i, 2000 * i, g * (40 + i % 3),
        4 * g, (i % 7) * 1.5, (i % 4) / 8
  }'
}

# ksm_vm_rows START COUNT: pvecg-ksm-vm-1.0 rows a minute apart after
# START; the profit negative every 4th row (KSM's bookkeeping outweighs
# what it merged), saved unknown every 11th.
ksm_vm_rows() {
  awk -v t0="$1" -v n="$2" 'BEGIN {
    for (i = 1; i <= n; i++)
      printf "%d:%d:%d:%d:%s\n", t0 + 60 * i, 1000 * i, i % 3,
        (i % 4 == 0 ? -4096 * i : 4096 * 900 * i),
        (i % 11 == 0 ? "U" : 4096 * 1000 * i)
  }'
}

# ksm_node_rows START COUNT: pvecg-ksm-node-1.0 rows a minute apart after
# START; ksmd stopped for the first five.
ksm_node_rows() {
  awk -v t0="$1" -v n="$2" 'BEGIN {
    for (i = 1; i <= n; i++)
      printf "%d:%d:%d:%d:%d:%d:%d\n", t0 + 60 * i, (i > 5), 300 * i,
        5000 * i, i % 2, 4096 * 4900 * i, 4096 * (5000 * i + i % 2)
  }'
}

# stall_rows START COUNT: pvecg-pressure rows a minute apart after START:
# the kernel's totals in microseconds, counters from far above 2^32 (a
# host up for days) that grow each minute by less than a minute; the io
# full column unknown every 7th row.
stall_rows() {
  awk -v t0="$1" -v n="$2" 'BEGIN {
    for (i = 1; i <= n; i++)
      printf "%d:%.0f:%.0f:%.0f:%s:%.0f:%.0f\n", t0 + 60 * i,
        123456789012 + 30000001 * i, 7 * i, 1000 * i + 1,
        (i % 7 == 0 ? "U" : sprintf("%.0f", 4000000 + 999 * i)),
        5000000000 + 12345678 * i, 2500000 + i
  }'
}

# stall_rates I: the microseconds stalled per second of row I that
# stall_rate_rows gives each column (cpu some, cpu full, io some, io full,
# memory some, memory full), "U" where the row is unknown: the first
# (a DERIVE has no rate before its second value), io full's every 7th and
# the one after it (rrdtool keeps no counter across a U).  As awk text,
# for the rows and the tests' expectations alike.
STALL_RATES_AWK='
function stall_rate(i, c) {
  if (i == 1) return "U"
  if (c == 1) return 10000 * (i % 50)
  if (c == 2) return 2500 * (i % 8)
  if (c == 3) return 5000 * (i % 13)
  if (c == 4) return (i % 7 <= 1) ? "U" : 1000 * (i % 5)
  if (c == 5) return (i % 4 == 0) ? 250000 : 150000
  return 50000 * (i % 3)
}'

# stall_rate_rows START COUNT: pvecg-pressure rows a minute apart after
# START whose rates (stall_rate above) are known exactly: each counter
# grows by 60 times the rate of the row, from above 2^32 microseconds.
stall_rate_rows() {
  awk -v t0="$1" -v n="$2" "$STALL_RATES_AWK"'
  BEGIN {
    for (c = 1; c <= 6; c++) total[c] = 5000000000 + c
    for (i = 1; i <= n; i++) {
      row = t0 + 60 * i
      for (c = 1; c <= 6; c++) {
        r = stall_rate(i, c)
        if (i > 1 && c == 4 && r == "U" && i % 7 == 0) { row = row ":U"; continue }
        if (r != "U") total[c] += 60 * r
        row = row ":" sprintf("%.0f", total[c])
      }
      print row
    }
  }'
}

# loopback_port: a TCP port of 127.0.0.1 free now, outside the kernel's
# ephemeral range (tests/helpers/free_port says why).
loopback_port() {
  "$(dirname "${BASH_SOURCE[0]}")/../helpers/free_port"
}

# wait_serving URL: until the server at URL answers (at most 5 s).
wait_serving() {
  local _
  for _ in $(seq 100); do curl -s -o /dev/null "$1" && return 0; sleep 0.05; done
  return 1
}
