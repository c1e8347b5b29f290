#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The single-host example of docs/node.md, as written there (paths
# and interval aside), on a fixture tree: both plugins in one collectd,
# librrd writing the files; exact values, PVE's layout, mode and size.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"

deploy_fixture "$T/cgroup" 100 1
VM=$T/data/pve-vm-9.0
{ example_conf single-host collectd; fixture_cgroup_block "$T/cgroup"; } >"$T/collectd.conf"
start_collectd_as collectd "$T/collectd.conf"
COLLECTD_PID=$(cat "$T/collectd.pid")
wait_for 20 has_update "$VM/100"
wait_for 20 has_update "$VM/200"
sleep 1.5
COLLECTD_PID=
stop_collectd_as collectd

check "files of the guests" "100 101 200" "$(ls "$VM" | sort -n | xargs)"
check "pve-vm-9.0 layout" "$(expected_vm_layout | sort)" "$(actual_layout "$VM/100" | sort)"
check "size as PVE's" 1346072 "$(stat -c %s "$VM/101")"
check_deploy_values "$VM" 100 1
check "logged to the configured file" 1 \
  "$(grep -c 'pve_rrd plugin: writing RRD files below' "$T/collectd.log")"
check "no errors" "" "$(grep -iE 'error|fail' "$T/collectd.log" || true)"
finish
