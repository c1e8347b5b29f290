#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The central-collector examples of docs/central-collector.md on loopback: two
# "nodes" run pve_cgroup on different fixture trees (distinct VMIDs, other
# memory figures) and send through collectd's network plugin, encrypted
# (SecurityLevel Encrypt, one user each); one collector listens with the
# example's AuthFile and TypesDB (the generated pvecg-types.db) and writes
# through rrdcached.  Every guest of both nodes gets its file with exactly
# its node's values, each node its pve-node-9.0 file under its own host
# name, and the collector knows the rows by the senders' host names.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"

deploy_fixture "$T/node1" 100 1
deploy_fixture "$T/node2" 300 2
deploy_fixture "$T/node3" 500 1 # a node the AuthFile does not know
start_central 1 2 3
for n in 1 2 3; do start_collectd_as "node$n" "$T/node$n.conf"; done
wait_for 20 test -f "$DB/pve-vm-9.0/200"
wait_for 20 test -f "$DB/pve-vm-9.0/400"
sleep 2
check "collector FLUSH" "0 Done: 1 successful, 0 errors" \
  "$(unixsock "$T/collector.sock" 'FLUSH plugin=pve_rrd')"

echo "# files"
check "a file for every guest of both nodes, nothing else" "100 101 200 300 301 400" \
  "$(ls "$DB/pve-vm-9.0" | sort -n | xargs)"
check "a node file per sender, by its host name" "node1 node2" "$(ls "$DB/pve-node-9.0" | xargs)"
check "pve-vm-9.0 layout" "$(expected_vm_layout | sort)" "$(actual_layout "$DB/pve-vm-9.0/300" | sort)"
echo "# values of node1's guests"
check_deploy_values "$DB/pve-vm-9.0" 100 1
echo "# values of node2's guests"
check_deploy_values "$DB/pve-vm-9.0" 300 2

echo "# host names"
listval=$(unixsock "$T/collector.sock" LISTVAL)
for id in node1/pve_cgroup-100/pve_vm_9_0-qemu node1/pve_cgroup-200/pve_vm_9_0-lxc \
  node2/pve_cgroup-300/pve_vm_9_0-qemu node2/pve_cgroup-400/pve_vm_9_0-lxc; do
  check_true "the collector has $id" grep -q " $id\$" <<<"$listval"
done
check "no row under the collector's own name" 0 "$(grep -c ' collector/pve_cgroup' <<<"$listval" || true)"
check "nothing from the unknown node3" 0 "$(grep -c ' node3/' <<<"$listval" || true)"

for n in 1 2 3; do stop_collectd_as "node$n"; done
stop_collectd_as collector
check_true "the collector said why it dropped node3's packets" \
  grep -q 'network plugin: .*node3' "$T/collector.log"
check "no other errors on the collector" "" \
  "$(grep -iE 'error|fail' "$T/collector.log" | grep -vE 'node3|Decrypting AES256 part failed' || true)"
check "no errors on the nodes" "" "$(grep -ihE 'error|fail' "$T/node1.log" "$T/node2.log" || true)"
cp "$T/collector.log" "$T/collectd.log" # for finish's report
finish
