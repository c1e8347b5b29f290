#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg export --format remote-write into a real Prometheus (Debian's 2.42)
# started with --web.enable-remote-write-receiver and a 30-day
# out-of-order window: every sample it then holds equals, metric, id, time
# and value, what prometheus-pve-exporter's names make of `pvecg export
# --format json` for the same files (the OpenMetrics export's test
# compares the same), sent in several requests (--batch-bytes) with a
# tenant header.  A Prometheus without the window refuses the samples
# older than its newest: they are counted by refusal, the fix is said,
# and the export ends with status 1.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${EXPORT_POINTS:?}"

. "$(dirname "$0")/receivers.sh" # T, fail, the stores
need prometheus prometheus
. "$(dirname "$0")/export_fixture.sh"

PROMETHEUS_FLAGS=("${PROMETHEUS_RECEIVER[@]}")
mkdir -p "$T/ooo"
printf 'global:\n  scrape_interval: 1h\nstorage:\n  tsdb:\n    out_of_order_time_window: 30d\n' \
  >"$T/ooo/prometheus.yml"
start_prometheus "$T/tsdb" "$T/ooo/prometheus.yml"

export_to() { # URL [option...]: the export's status; its stderr in $T/err
  local url=$1 status=0
  shift
  "$PVECG" export --format remote-write --to "$url" --vmid 100 --vmid 101 \
    --node pve1 --data-dir "$D" --pve-config-dir "$C" --batch-bytes 65536 \
    "$@" 2>"$T/err" || status=$?
  return $status
}
export_to "$PROMETHEUS_URL/api/v1/write" --header 'X-Scope-OrgID: pve' ||
  fail "export: $(cat "$T/err")"
expected_points prometheus >"$T/expected"
samples=$(wc -l <"$T/expected")
grep -q "^pvecg export: sent $samples samples in [0-9]* requests to $PROMETHEUS_URL/api/v1/write\$" "$T/err" ||
  fail "not $samples samples in the summary: $(cat "$T/err")"
requests=$(sed -n 's/.* samples in \([0-9]*\) requests.*/\1/p' "$T/err")
[ "$requests" -gt 1 ] || fail "one request only: --batch-bytes not kept"
"$EXPORT_POINTS" prometheus "$PROMETHEUS_URL" "$NOW" >"$T/got"
diff "$T/expected" "$T/got" >"$T/diff" || { head "$T/diff"; fail "samples differ"; }
grep -q '^pve_memory_usage_bytes{id="qemu/100"}	' "$T/got" || fail "no memory gauge"
grep -q '^pve_network_receive_bytes_total{id="qemu/100"}	' "$T/got" || fail "no byte counter"
grep -q '^pve_guest_info{id="qemu/100",name="web server",node="pve1",template="0",type="qemu"}	'"$((T0 + 60 * 2160))"'	1.0$' "$T/got" ||
  fail "no pve_guest_info of VM 100 at its last row"

# The same export again: every sample a duplicate of the same value,
# which Prometheus takes as the same sample.
export_to "$PROMETHEUS_URL/api/v1/write" || fail "again: $(cat "$T/err")"
"$EXPORT_POINTS" prometheus "$PROMETHEUS_URL" "$NOW" >"$T/got"
diff "$T/expected" "$T/got" >/dev/null || fail "a second export changed the samples"
stop_receivers

# Without the out-of-order window: the first request is taken whole (an
# empty head takes any time), and a later one that holds a sample older
# than the head's newest hour is refused whole, as "out of bounds".
# Which later requests pass depends on where the fixture's rows fall
# against the time of the run, so only their sum is stated.
PROMETHEUS_FLAGS=(--web.enable-remote-write-receiver) # 2-hour blocks
start_prometheus "$T/tsdb-plain"
status=0
export_to "$PROMETHEUS_URL/api/v1/write" || status=$?
[ $status -eq 1 ] || fail "status $status, not 1: $(cat "$T/err")"
summary=$(grep "^pvecg export: sent " "$T/err") || fail "no summary: $(cat "$T/err")"
[[ "$summary" =~ sent\ ([0-9]+)\ samples.*\;\ ([0-9]+)\ samples\ refused:(.*)$ ]] ||
  fail "no refusal counted: $summary"
sent=${BASH_REMATCH[1]} refused=${BASH_REMATCH[2]} by=${BASH_REMATCH[3]}
[ $((sent + refused)) -eq "$samples" ] ||
  fail "$sent sent and $refused refused are not $samples: $summary"
[[ "$by" =~ ^\ too_old\ [0-9]+ ]] || fail "not too_old: $summary"
[ "$(echo "$by" | awk '{ for (i = 2; i <= NF; i += 2) n += $i; print n }')" -eq "$refused" ] ||
  fail "the reasons do not add up: $summary"
grep -Eq "the server said: (out of bounds|out of order sample)" "$T/err" ||
  fail "the server's words not said: $(cat "$T/err")"
grep -q "out_of_order_time_window" "$T/err" || fail "no fix said"
echo PASS
