#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A sender whose clock runs an hour ahead (libfaketime), next to one whose
# clock is right, both sending to the central collector of
# docs/central-collector.md: the collector drops the early sender's rows
# (MaxTimeAhead, 300 s by default) -- no file of its is made, so none is
# moved into the future -- with one line per file, and writes the other
# sender's files with exact values as usual.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"

need_faketime
deploy_fixture "$T/node1" 100 1
deploy_fixture "$T/node2" 300 2
start_central 1 2
FAKETIME=+3600 LD_PRELOAD=$FAKETIME_LIB start_collectd_as node1 "$T/node1.conf"
start_collectd_as node2 "$T/node2.conf"
wait_for 20 test -f "$DB/pve-vm-9.0/400"
wait_for 20 grep -q "pve-node-9.0/node1: it is" "$T/collector.log"
sleep 3
check "collector FLUSH" "0 Done: 1 successful, 0 errors" \
  "$(unixsock "$T/collector.sock" 'FLUSH plugin=pve_rrd')"

check "no file of the sender an hour ahead" "300 301 400" "$(ls "$DB/pve-vm-9.0" | sort -n | xargs)"
check "no node file of it either" "node2" "$(ls "$DB/pve-node-9.0" | xargs)"
check_deploy_values "$DB/pve-vm-9.0" 300 2
for f in pve-vm-9.0/100 pve-vm-9.0/101 pve-vm-9.0/200 pve-node-9.0/node1; do
  check "one line for $f" 1 "$(grep -cE "Dropped the row for [0-9]+ for $DB/$f: it is (359[0-9]|360[0-9]) s ahead of this host's clock \(at most 300 s are accepted\)" "$T/collector.log")"
done

for n in 1 2; do stop_collectd_as "node$n"; done
stop_collectd_as collector
check "no other errors or warnings on the collector" "" \
  "$(grep -iE 'error|fail|warn|dropped' "$T/collector.log" | grep -v 's ahead of this host' || true)"
cp "$T/collector.log" "$T/collectd.log" # for finish's report
finish
