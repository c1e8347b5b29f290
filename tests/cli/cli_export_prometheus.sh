#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg export --format openmetrics into a real Prometheus (Debian's
# prometheus): `promtool tsdb create-blocks-from openmetrics` turns the
# output into blocks, a Prometheus started on them answers range queries,
# and every sample equals, metric, id, time and value, what
# prometheus-pve-exporter's names make of `pvecg export --format json`
# for the same files (counters as _total, pressure as a ratio).  The same
# export backfilled twice leaves each sample once.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${EXPORT_POINTS:?}"

. "$(dirname "$0")/receivers.sh" # T, fail, the stores
need promtool prometheus
. "$(dirname "$0")/export_fixture.sh"

"$PVECG" export --format openmetrics --vmid 100 --vmid 101 --node pve1 \
  --data-dir "$D" --pve-config-dir "$C" >"$T/history.om" || fail "export"
[ "$(tail -1 "$T/history.om")" == "# EOF" ] || fail "no # EOF at the end"
# a byte counter beside prometheus-pve-exporter's deprecated gauge: the
# gauge owns the family's name, so the counter's family is `unknown`
grep -q '^# TYPE pve_network_receive_bytes_total unknown$' "$T/history.om" ||
  fail "no byte counter family"
grep -q '^# TYPE pve_network_receive_bytes gauge$' "$T/history.om" ||
  fail "no deprecated byte gauge"
grep -q '^# HELP pve_disk_write_bytes .* DEPRECATED: Use pve_disk_written_bytes_total instead\.$' "$T/history.om" ||
  fail "no deprecated pve_disk_write_bytes"
# some as node_exporter's waiting, full as its stalled: a family each
for name in waiting stalled; do
  [ "$(grep -c "^# TYPE pve_pressure_cpu_${name}_seconds counter$" "$T/history.om")" -eq 2 ] ||
    fail "not one cpu $name family for the VM and one for the node"
done
! grep -q 'kind=' "$T/history.om" || fail "a kind label"
backfill() {
  promtool tsdb create-blocks-from openmetrics "$T/history.om" "$T/tsdb" \
    >"$T/promtool.out" 2>&1 || fail "promtool: $(cat "$T/promtool.out")"
}
backfill
start_prometheus "$T/tsdb"
expected_points prometheus >"$T/expected"
"$EXPORT_POINTS" prometheus "$PROMETHEUS_URL" "$NOW" >"$T/got"
diff "$T/expected" "$T/got" >"$T/diff" || { head "$T/diff"; fail "samples differ"; }
grep -q '^pve_memory_host_bytes{id="qemu/100"}	' "$T/got" || fail "no memhost"
grep -q '^pve_disk_read_bytes_total{id="qemu/100"}	' "$T/got" || fail "no disk counter"
grep -q '^pve_disk_write_bytes{id="qemu/100"}	' "$T/got" || fail "no deprecated disk gauge"
grep -q '^pve_load1{id="node/pve1"}	' "$T/got" || fail "no node load"
# The stall counters as /metrics names them, and the guest's info that
# the alert rules join for its name and node, at the times of its rows.
check_stall "$T/got" 'pve_pressure_cpu_waiting_seconds_total{id="qemu/100"}' \
  'pve_pressure_memory_waiting_seconds_total{id="node/pve1"}' \
  'pve_pressure_io_stalled_seconds_total{id="qemu/100"}'
grep -q '^pve_guest_info{id="qemu/100",name="web server",node="pve1",template="0",type="qemu"}	'"$((T0 + 60 * 2160))"'	1.0$' "$T/got" ||
  fail "no pve_guest_info of VM 100 at its last row"
stop_receivers

# The same history backfilled again: overlapping blocks, one sample each.
backfill
start_prometheus "$T/tsdb"
"$EXPORT_POINTS" prometheus "$PROMETHEUS_URL" "$NOW" >"$T/got"
diff "$T/expected" "$T/got" >/dev/null || fail "a second backfill changed the samples"
echo PASS
