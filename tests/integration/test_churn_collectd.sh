#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Guests that come and go: the churn soak of bench/churn_soak.sh
# with its defaults -- 200 standing guests, 40 rounds in which the 50
# guests of the round before go and 50 never seen come, collectd at
# Interval 1 with both plugins writing through rrdcached, after the soak's
# warm-up (past a minute's turn, and the 30 to 40 s before a gone guest's
# state is let go).  What collectd keeps for a guest must go with it: its
# resident memory grows by less than 1 MiB from the middle of the churn to
# its end, 1,000 guests later, and once the churned guests are gone its
# descriptors are those of the standing ones.  It grew by 2.1 MiB, 2 KiB a
# guest, while the store kept every file it ever wrote; now +176 to +432
# KiB (the benchmark's 512 KiB, docs/performance.md), the once-a-minute
# files of the guests there at a minute's turn kept 4 minutes: 1 MiB
# catches a guest's 1 KiB kept for good on any run.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

"$HERE/../../bench/churn_soak.sh" "$(dirname "$PLUGIN_DIR")" >"$T/soak.out" 2>&1 ||
  { cat "$T/soak.out"; echo "FAIL - the soak did not run"; exit 1; }
cat "$T/soak.out"
field() { sed -n "s/^churn: .*\b$1=\([0-9]*\).*/\1/p" "$T/soak.out"; }
middle=$(field rss_middle) end=$(field rss_end)
check_true "RSS grew by less than 1 MiB from the middle to the end ($middle -> $end KiB)" \
  [ $((end - middle)) -lt 1024 ]
check "collectd's descriptors are those of the standing guests" \
  "$(field fds_standing)" "$(field fds_end)"
check "the first round's guests' rows are on disk, flushed once let go" \
  50 "$(field first_round_on_disk)"
check "collectd logged no error" "# collectd logged 0 error lines" \
  "$(grep '^# collectd logged' "$T/soak.out")"
finish
