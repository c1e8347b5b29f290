#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pve_cgroup's rows through collectd's own write_graphite into a real
# carbon-cache (Debian's graphite-carbon), as docs/stores.md's
# write-graphite example has it (pvecg-write-graphite.conf; address, port
# and interval the test's own): carbon holds exactly one whisper file per
# known column of each guest and of the node, under the names the page
# states, each with exactly the fixture's value; unknown columns (NaN on
# the wire, which carbon drops) have no file.  Then two more collectds with
# longer host names: with "pve1.example.net" the guests are named after
# it (dots as _) and the node after the short name; with a host name too
# long for write_graphite's 1428-byte block the guests' rows are dropped
# with collectd's "target buffer too small" while the node's still arrive.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"
. "$HERE/writers.sh"
. "$HERE/../cli/receivers.sh"
at_exit stop_receivers
[ -f "$SYSTEM_PLUGIN_DIR/write_graphite.so" ] || { echo "SKIP: no write_graphite plugin"; exit 77; }

check "docs/stores.md shows pvecg-write-graphite.conf" "" \
  "$(diff <(example_block write-graphite) "$SNIPPET_DIR/pvecg-write-graphite.conf" 2>&1 || true)"

start_carbon 1s:1h
# whisper's Python: the interpreter of Debian's whisper-fetch (start_carbon
# skipped without it), which need not be the first python3 on PATH
WPY=$(sed -n '1s/^#! *//p' "$(command -v whisper-fetch)")
"$WPY" -c 'import whisper' || { echo "SKIP: no whisper module for $WPY"; exit 77; }
writer_fixture
# graphite_conf LOGNAME: the example as this test runs it
graphite_conf() {
  example_conf write-graphite "$1" |
    sed -e "s|\"graphite.example.net\"|\"127.0.0.1\"|" -e "s|\"2003\"|\"$CARBON_PORT\"|"
  writer_cgroup_block
}
graphite_conf collectd >"$T/collectd.conf"
start_collectd_as collectd "$T/collectd.conf"
COLLECTD_PID=$(cat "$T/collectd.pid")

W=$CARBON_WHISPER
# whisper_last [HOST]: "NAME VALUE AGE" of every whisper file (of HOST),
# NAME the metric name (the path with dots), VALUE its newest point, AGE
# that point's age in seconds.
whisper_last() {
  "$WPY" - "$W" "${1:-}" <<'PY'
import os, sys, time, whisper
root, host = sys.argv[1], sys.argv[2]
now = int(time.time())
for d, _, files in os.walk(os.path.join(root, host)):
    for f in files:
        if not f.endswith(".wsp"):
            continue
        path = os.path.join(d, f)
        (start, end, step), values = whisper.fetch(path, now - 600, now + 1)
        points = [(start + i * step, v) for i, v in enumerate(values) if v is not None]
        name = os.path.relpath(path, root)[:-4].replace(os.sep, ".")
        if points:
            print(name, repr(points[-1][1]), now - points[-1][0])
        else:
            print(name, "none", "-")
PY
}
# expected_points HOST: "NAME VALUE" of every known column, named as the
# page says, for guests and node on HOST
expected_points() {
  expected_rows | awk -v h="$1" '$5 != "U" {
    if ($1 == "vm") print h ".pve_cgroup-" $2 ".pve_vm_9_0-" $3 "." $4, $5
    else print h ".pve_cgroup.pve_node_9_0." $4, $5 }' | number_norm | sort
}
all_there() {
  [ "$(whisper_last pve1 | awk '$2 != "none" { print $1 }' | sort)" == \
    "$(expected_points pve1 | awk '{ print $1 }')" ]
}
# every column's first known value takes two reads (cpu); carbon writes its
# cache out within a second or two
wait_for 30 all_there || true
sleep 2
whisper_last pve1 >"$T/whisper.txt"
COLLECTD_PID=
stop_collectd_as collectd

echo "# names"
check "one whisper file per known column, named <host>.<plugin>.<type>.<column>" \
  "$(expected_points pve1 | awk '{ print $1 }')" "$(awk '{ print $1 }' "$T/whisper.txt" | sort)"
check "no file for an unknown column (maxdisk, disk, the node's cpu and iowait)" "" \
  "$(find "$W" -name maxdisk.wsp -o -name disk.wsp -o -path '*pve_node_9_0/cpu.wsp' -o -name iowait.wsp)"
check_true "no file for an LXC guest's memhost (U)" \
  test ! -e "$W/pve1/pve_cgroup-200/pve_vm_9_0-lxc/memhost.wsp"
check "nothing else in carbon (but its own metrics)" "pve1" \
  "$(cd "$W" && for h in *; do [ "$h" == carbon ] || echo "$h"; done | xargs)"

echo "# values"
want=$(expected_points pve1)
got=$(awk '{ print $1, $2 }' "$T/whisper.txt" | number_norm | sort)
check "every column's newest point: exactly the fixture's value" "$want" "$got"
for n in pve1.pve_cgroup-100.pve_vm_9_0-qemu.memhost pve1.pve_cgroup-200.pve_vm_9_0-lxc.mem \
  pve1.pve_cgroup.pve_node_9_0.memused; do
  check "$n" "$(grep "^$n " <<<"$want")" "$(grep "^$n " <<<"$got")"
done
check_true "the newest points are live (at most 10 s old)" \
  test -z "$(awk '$3 == "-" || $3 > 10' "$T/whisper.txt")"
check "no errors or warnings in collectd's log" "" \
  "$(grep -iE 'error|fail|warn|malformed|unknown|cannot' "$T/collectd.log" || true)"

echo "# longer host names"
# fqdn: the guests' lines fit; long: 17 lines of 27 + 46 bytes and more do not
graphite_conf fqdn | sed 's/^Hostname "pve1"$/Hostname "pve1.example.net"/' >"$T/fqdn.conf"
graphite_conf long | sed 's/^Hostname "pve1"$/Hostname "pve-node-01.dc1.example.net"/' >"$T/long.conf"
start_collectd_as fqdn "$T/fqdn.conf"
start_collectd_as long "$T/long.conf"
wait_for 20 test -f "$W/pve1_example_net/pve_cgroup-100/pve_vm_9_0-qemu/memhost.wsp" || true
wait_for 20 test -f "$W/pve-node-01/pve_cgroup/pve_node_9_0/memused.wsp" || true
sleep 2
stop_collectd_as fqdn
stop_collectd_as long
hosts_with() { (cd "$W" && for h in *; do [ ! -d "$h/$1" ] || echo "$h"; done | xargs); }
check "guests: under the Hostname, dots as _" "pve1 pve1_example_net" \
  "$(hosts_with pve_cgroup-100/pve_vm_9_0-qemu)"
check "the node: under the node name (Hostname up to its first dot)" "pve-node-01 pve1" \
  "$(hosts_with pve_cgroup/pve_node_9_0)"
check "pve1.example.net: a guest's value" "$(expected_points pve1_example_net | grep '\.pve_cgroup-100\.pve_vm_9_0-qemu\.memhost ')" \
  "$(whisper_last pve1_example_net | awk '$1 ~ /-100\.pve_vm_9_0-qemu\.memhost$/ { print $1, $2 }' | number_norm)"
check "pve1.example.net: no errors or warnings" "" \
  "$(grep -iE 'error|fail|warn|malformed|unknown|cannot' "$T/fqdn.log" || true)"
check "pve-node-01.dc1.example.net: no guest's row reaches carbon" "" \
  "$(find "$W" -maxdepth 1 -name 'pve-node-01_dc1*')"
check_true "pve-node-01.dc1.example.net: collectd says format_graphite: target buffer too small" \
  grep -q 'write_graphite plugin: format_graphite: target buffer too small' "$T/long.log"
check "pve-node-01.dc1.example.net: the node's row arrives" \
  "$(expected_points pve-node-01 | grep '\.memused ')" \
  "$(whisper_last pve-node-01 | awk '$1 ~ /\.memused$/ { print $1, $2 }' | number_norm)"
finish
