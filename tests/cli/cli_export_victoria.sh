#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg export into a real VictoriaMetrics (Debian's victoria-metrics),
# over HTTP, read back with its /api/v1/export: InfluxDB line protocol to
# /write and /api/v2/write (with a token), Prometheus' text format to
# /api/v1/import/prometheus, and Prometheus remote write to /api/v1/write.  Every point equals, series, time and value,
# what Proxmox's names make of `pvecg export --format json` for the same
# files (measurement_field{tags} for line protocol, prometheus-pve-
# exporter's names with id labels, pressure as a ratio) to the 12
# significant digits VictoriaMetrics keeps; the same export twice leaves
# the same points.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${EXPORT_POINTS:?}"

. "$(dirname "$0")/receivers.sh" # T, fail, the stores
. "$(dirname "$0")/export_fixture.sh"

read_back() {
  curl -sf "$VICTORIA_URL/internal/force_flush" >/dev/null
  "$EXPORT_POINTS" --significant 12 victoria "$VICTORIA_URL" >"$T/got"
}
export_to() { # FORMAT PATH [OPTIONS]
  local format=$1 path=$2
  shift 2
  "$PVECG" export --format "$format" --vmid 100 --vmid 101 --node pve1 \
    --data-dir "$D" --pve-config-dir "$C" --to "$VICTORIA_URL$path" "$@" \
    2>"$T/err" || fail "$format to $path: $(cat "$T/err")"
}

# Line protocol.
start_victoria
export_to influx /write
expected_points victoria-influx >"$T/exact"
"$EXPORT_POINTS" --significant 12 expect victoria-influx "$T/rows.json" "$GUESTS" >"$T/expected"
read_back
diff "$T/expected" "$T/got" >"$T/diff" || { head "$T/diff"; fail "/write: points differ"; }
grep -q '^system_memhost{host=web server,nodename=pve1,object=qemu,vmid=100}	' "$T/got" ||
  fail "no system_memhost of VM 100"
export_to influx /write
read_back
diff "$T/expected" "$T/got" >/dev/null || fail "/write twice: points differ"
stop_receivers

# InfluxDB 2's path, with a token from a file.
start_victoria
printf 'secret-token\n' >"$T/token"
export_to influx "/api/v2/write?org=pve&bucket=pve" --token-file "$T/token"
read_back
diff "$T/expected" "$T/got" >/dev/null || fail "/api/v2/write: points differ"
grep -q secret "$T/err" && fail "the token is in a message"
stop_receivers

# Prometheus' text format.
start_victoria
export_to prometheus /api/v1/import/prometheus
expected_points prometheus >"$T/exact"
"$EXPORT_POINTS" --significant 12 expect prometheus "$T/rows.json" "$GUESTS" >"$T/expected"
read_back
diff "$T/expected" "$T/got" >"$T/diff" || { head "$T/diff"; fail "import/prometheus: points differ"; }
grep -q '^pve_pressure_io_some_ratio{id="qemu/100"}	' "$T/got" || fail "no pressure ratio"
grep -q '^pve_network_receive_bytes_total{id="lxc/101"}	' "$T/got" || fail "no counter"
grep -q '^pve_network_receive_bytes{id="lxc/101"}	' "$T/got" || fail "no deprecated gauge"
check_stall "$T/got" 'pve_pressure_cpu_waiting_seconds_total{id="qemu/100"}' \
  'pve_pressure_memory_waiting_seconds_total{id="node/pve1"}' \
  'pve_pressure_io_stalled_seconds_total{id="qemu/100"}'
export_to prometheus /api/v1/import/prometheus
read_back
diff "$T/expected" "$T/got" >/dev/null || fail "import/prometheus twice: points differ"
stop_receivers

# Prometheus remote write: the same points, in several requests.
start_victoria
export_to remote-write /api/v1/write --batch-bytes 65536
read_back
diff "$T/expected" "$T/got" >"$T/diff" || { head "$T/diff"; fail "remote write: points differ"; }
grep -q "^pvecg export: sent $(wc -l <"$T/expected") samples in [0-9]* requests to $VICTORIA_URL/api/v1/write\$" "$T/err" ||
  fail "remote write's summary: $(cat "$T/err")"
echo PASS
