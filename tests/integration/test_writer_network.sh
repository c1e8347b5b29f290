#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pve_cgroup's rows through collectd's network plugin to a second collectd
# that loads no pvecg plugin, as docs/stores.md has it: the node runs
# the central-sender example (pvecg-central-sender.conf), the receiver the
# network-receiver example (pvecg-network-receiver.conf) with the TypesDB
# line of the page, on loopback (port, paths and interval the test's own).
# The receiver, writing with collectd's csv plugin and asked through
# unixsock, knows exactly the identifiers the page states for each guest
# and the node, under the sender's host name; every column holds exactly
# the fixture's value (nan where unknown), and its rows are the sender's,
# time and values, character for character.  Without the TypesDB line the
# receiver drops every row, saying why.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"
. "$HERE/writers.sh"
for p in network csv unixsock; do
  [ -f "$SYSTEM_PLUGIN_DIR/$p.so" ] || { echo "SKIP: no $p plugin"; exit 77; }
done
[ -f "$TYPES_DB" ] || { echo "no pvecg-types.db (TYPES_DB)"; exit 1; }

check "docs/stores.md shows pvecg-network-receiver.conf" "" \
  "$(diff <(example_block network-receiver) "$SNIPPET_DIR/pvecg-network-receiver.conf" 2>&1 || true)"

writer_fixture
EX_PORT=$(free_port)
example_block central-passwd >"$T/passwd"
chmod 600 "$T/passwd"
# receiver_conf NAME: the receiver: collectd.conf as the collector's of
# section 2 (host name, TypesDB), the snippet, and csv and unixsock to see
# what it received
receiver_conf() {
  { example_main central-receiver && example_block network-receiver; } |
    example_paths "$1" | plugin_dirs
  printf 'BaseDir "%s"\nPIDFile "%s"\n' "$T" "$T/$1.collectd.pid"
  csv_block "$T/csv"
  unixsock_block "$T/$1.sock"
}
# the node: as in section 2, with csv to record what it sent; one write
# thread, so that rows leave in the order they were read
{
  example_conf central-sender node1
  writer_cgroup_block
  echo "WriteThreads 1"
  csv_block "$T/sent"
} >"$T/node1.conf"

echo "# a receiver without the TypesDB line"
receiver_conf bare | grep -v '^TypesDB ' >"$T/bare.conf"
start_collectd_as bare "$T/bare.conf"
wait_for 10 test -S "$T/bare.sock"
start_collectd_as node1 "$T/node1.conf"
wait_for 10 grep -q 'Dataset not found: pve_node_9_0 (from "node1/pve_cgroup/pve_node_9_0")' "$T/bare.log" || true
wait_for 10 grep -q 'Dataset not found: pve_vm_9_0 (from "node1/pve_cgroup-100/pve_vm_9_0-qemu")' "$T/bare.log" || true
check "drops every row: LISTVAL" "0 Values found" "$(unixsock "$T/bare.sock" LISTVAL)"
check_true "and says so: Dataset not found: pve_vm_9_0 ..., check your types.db!" \
  grep -q 'Dataset not found: pve_vm_9_0 (from "node1/pve_cgroup-100/pve_vm_9_0-qemu"), check your types.db!' "$T/bare.log"
stop_collectd_as bare
check_true "nothing written" test ! -e "$T/csv"

echo "# the receiver as documented (same port; the node sends on)"
receiver_conf collector >"$T/collector.conf"
start_collectd_as collector "$T/collector.conf"
COLLECTD_PID=$(cat "$T/collector.pid")
wait_for 10 test -S "$T/collector.sock"

IDS="node1/pve_cgroup-100/pve_vm_9_0-qemu node1/pve_cgroup-101/pve_vm_9_0-qemu
node1/pve_cgroup-200/pve_vm_9_0-lxc node1/pve_cgroup/pve_node_9_0"
# last_row ID DIR: the newest csv row of identifier ID below DIR
last_row() { tail -qn1 "$2/$1"-* 2>/dev/null | sort -n | tail -1; }
# the receiver's newest rows carry every value the fixture makes known
received() {
  local id row
  for id in $IDS; do
    row=$(last_row "$id" "$T/csv")
    [ -n "$row" ] || return 1
    # a guest's cpu is known from its second read on
    [[ $id == */pve_node_9_0 ]] || [[ $(cut -d, -f3 <<<"$row") != *nan ]] || return 1
  done
}
wait_for 30 received || true
sleep 1.5
listval=$(unixsock "$T/collector.sock" LISTVAL)
getval=$(unixsock "$T/collector.sock" 'GETVAL "node1/pve_cgroup-100/pve_vm_9_0-qemu"')
stop_collectd_as node1
sleep 1
COLLECTD_PID=
stop_collectd_as collector

echo "# names"
check "LISTVAL: the sender's identifiers, nothing else" "$(sort <<<"$IDS" | xargs)" \
  "$(awk 'NR > 1 { print $2 }' <<<"$listval" | sort | xargs)"
check "csv files: <host>/<plugin>-<vmid>/<type>-<qemu|lxc>-<date>" "$(sort <<<"$IDS" | xargs)" \
  "$(cd "$T/csv" && find . -type f | sed -E 's|^\./||; s|-[0-9]{4}-[0-9]{2}-[0-9]{2}$||' | sort | xargs)"
check "GETVAL: the 17 columns of a guest by name" \
  "17 Values found: maxcpu cpu maxmem mem maxdisk disk netin netout diskread diskwrite memhost pressurecpusome pressurecpufull pressureiosome pressureiofull pressurememorysome pressurememoryfull" \
  "$(head -1 <<<"$getval"): $(tail -n +2 <<<"$getval" | cut -d= -f1 | xargs)"
header() { head -qn1 "$T/csv/$1"-* | sort -u; }
for id in node1/pve_cgroup-100/pve_vm_9_0-qemu node1/pve_cgroup/pve_node_9_0; do
  type=${id##*/}
  check "$id: csv header names the columns as pvecg-types.db" \
    "epoch,$(grep "^${type%%-*} " "$TYPES_DB" | sed -E 's/^[a-z0-9_]+ +//; s/:[A-Z]+:0:U//g; s/, /,/g')" \
    "$(header "$id")"
done

echo "# values"
got=$(for id in $IDS; do
  last_row "$id" "$T/csv" | tr , '\n' | tail -n +2 |
    paste -d' ' <(header "$id" | tr , '\n' | tail -n +2) - |
    sed "s|^|$id |"
done | number_norm)
want=$(expected_rows | awk '{
  if ($1 == "vm") print "node1/pve_cgroup-" $2 "/pve_vm_9_0-" $3, $4, $5
  else print "node1/pve_cgroup/pve_node_9_0", $4, $5 }' | number_norm)
check "every column of each guest and the node: exactly the fixture's value" "$want" "$got"
for c in "node1/pve_cgroup-100/pve_vm_9_0-qemu memhost" "node1/pve_cgroup-200/pve_vm_9_0-lxc memhost" \
  "node1/pve_cgroup/pve_node_9_0 memused"; do
  check "$c" "$(grep "^$c " <<<"$want")" "$(grep "^$c " <<<"$got")"
done
for id in $IDS; do
  row=$(last_row "$id" "$T/csv")
  check_true "$id: the received row is a sent row, time and values (${row%%,*})" \
    grep -qxF "$row" "$T/sent/$id"-*
done
check_true "the rows are live (newest at most 10 s old)" \
  test $(($(date +%s) - $(last_row node1/pve_cgroup/pve_node_9_0 "$T/csv" | cut -d. -f1))) -le 10

check "no errors or warnings on the receiver" "" \
  "$(grep -iE 'error|fail|warn|malformed|unknown|cannot' "$T/collector.log" || true)"
check "no errors or warnings on the node" "" \
  "$(grep -iE 'error|fail|warn|malformed|unknown|cannot' "$T/node1.log" || true)"
cp "$T/collector.log" "$T/collectd.log" # for finish's report
finish
