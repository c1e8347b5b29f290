#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg export into a real InfluxDB 1.x (Debian's influxdb), over HTTP:
# every point read back from the server equals, series, time and value,
# what Proxmox's names make of `pvecg export --format json` for the same
# files (a VM named with a space, a container whose history starts in a
# legacy pve2 file, a node, U holes, counters rebuilt from rates); every
# field is a float, as Proxmox writes them; the same export twice leaves
# the same points; a guest without a configuration is skipped with a
# message; small batches; a refused batch (no such database) is named,
# with the server's message, and the exit status is 1; the RRD files are
# neither changed nor written to.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${EXPORT_POINTS:?}"

. "$(dirname "$0")/receivers.sh" # T, fail, the stores
. "$(dirname "$0")/export_fixture.sh"

# Nothing of the RRD files is modified by an export.
(cd "$D" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$T/before"
touch -d @0 "$D"/*/*
start_influxdb
export_all() {
  "$PVECG" export --format influx --all --data-dir "$D" --pve-config-dir "$C" \
    --to "$INFLUX_URL/write?db=pve" "$@"
}
set +e
export_all --batch-bytes 65536 2>"$T/err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "exit $rc with a guest nobody names; $(cat "$T/err")"
grep -qx "pvecg export: pve-vm-9.0/102: no guest configuration says whether 102 is a VM or a container (--unknown-guests qemu|lxc exports it anyway)" "$T/err" ||
  fail "$(cat "$T/err")"
expected_points influx >"$T/expected"
"$EXPORT_POINTS" influx "$INFLUX_URL" pve >"$T/got"
[ "$(wc -l <"$T/expected")" -gt 25000 ] || fail "only $(wc -l <"$T/expected") points expected"
diff "$T/expected" "$T/got" >"$T/diff" || { head "$T/diff"; fail "points differ"; }
grep -q "^system,.*ksmsaved" "$T/expected" && grep -q "^memory,.*ksmsharing" "$T/expected" ||
  fail "no KSM points expected"
# The stall counters in seconds, in `system` beside the VM's and the
# node's other values.
check_stall "$T/got" "system,host=web server,nodename=pve1,object=qemu,vmid=100 stallcpusome" \
  "system,host=pve1,object=nodes stallmemorysome" \
  "system,host=web server,nodename=pve1,object=qemu,vmid=100 stalliofull"
grep -q "pvecg export: sent [0-9]* lines ([0-9]* values) to $INFLUX_URL/write?db=pve" "$T/err" ||
  fail "no summary: $(cat "$T/err")"

# The tags and measurements Proxmox writes, a name with a space included.
grep -q '^system,host=web server,nodename=pve1,object=qemu,vmid=100 memhost	' "$T/got" ||
  fail "no memhost of VM 100"
grep -q '^nics,host=pve1,instance=physical,object=nodes receive	' "$T/got" ||
  fail "no node traffic"
grep -q '^system,host=ct1,nodename=pve2,object=lxc,vmid=101 mem	' "$T/got" ||
  fail "no container"
# Floats only: a database Proxmox writes into takes these points.
curl -sf -G "$INFLUX_URL/query" --data-urlencode db=pve \
  --data-urlencode "q=SHOW FIELD KEYS" >"$T/types.json"
[ "$(jq '[.results[0].series[].values[][1]] | unique' -c "$T/types.json")" == '["float"]' ] ||
  fail "field types: $(cat "$T/types.json")"

# Twice: the same series and times, so the same points.
export_all --unknown-guests qemu 2>"$T/err" || fail "second export: $(cat "$T/err")"
"$EXPORT_POINTS" influx "$INFLUX_URL" pve | grep -v 'vmid=102 ' >"$T/again"
diff "$T/expected" "$T/again" >/dev/null || fail "a second export changed the points"
"$EXPORT_POINTS" influx "$INFLUX_URL" pve | grep -c 'object=qemu,vmid=102 ' >"$T/n102" || true
[ "$(cat "$T/n102")" -eq 2 ] || fail "102 as qemu: $(cat "$T/n102") points, expected cpus and cpu"

# A database that does not exist: the batch is named, with InfluxDB's
# message, and nothing is said to be sent.
set +e
"$PVECG" export --format influx --vmid 100 --data-dir "$D" --pve-config-dir "$C" \
  --to "$INFLUX_URL/write?db=nosuch" 2>"$T/err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "no such database: exit $rc"
grep -Eq '^pvecg export: sending to http://127.0.0.1:[0-9]+/write\?db=nosuch: batch 1 \([0-9]+ bytes, rows of qemu/100 to qemu/100\): the server answered HTTP 404: database not found: "nosuch"; 0 of [0-9]+ lines sent before$' "$T/err" ||
  fail "$(cat "$T/err")"
grep -qx 'pvecg export: nothing to write to at that URL: check its path and the database or bucket and organization it names (db=, bucket=, org=)' "$T/err" ||
  fail "no such database, the fix: $(cat "$T/err")"
(cd "$D" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$T/after"
diff "$T/before" "$T/after" >/dev/null || fail "an export changed the RRD files"
[ -z "$(find "$D" -type f -newermt @1)" ] || fail "an export wrote to an RRD file"
echo PASS
