#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg export into a real Graphite carbon-cache (Debian's graphite-carbon)
# over its plaintext port, read back from the whisper files it writes:
# every point equals, path, time and value, what Proxmox's Graphite names
# (proxmox.qemu.VMID.KEY, proxmox.lxc..., proxmox.nodes.NODE.GROUP.KEY)
# make of `pvecg export --format json` for the same files; values that
# need an exponent are written as plain decimals (Graphite.pm sends no
# other form); the same export twice leaves the same points; --prefix.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}" "${EXPORT_POINTS:?}"

. "$(dirname "$0")/receivers.sh" # T, fail, the stores
. "$(dirname "$0")/export_fixture.sh"

start_carbon
export_guests() {
  "$PVECG" export --format graphite --vmid 100 --vmid 101 --node pve1 \
    --data-dir "$D" --pve-config-dir "$C" --to "tcp://127.0.0.1:$CARBON_PORT" "$@"
}
export_guests 2>"$T/err" || fail "export: $(cat "$T/err")"
expected_points graphite >"$T/expected"
# carbon writes its cache to whisper files as it goes: wait for them all.
read_back() {
  "$EXPORT_POINTS" graphite "$CARBON_WHISPER" "$((T0 - 60))" "$NOW" >"$T/got"
  [ "$(wc -l <"$T/got")" -eq "$(wc -l <"$T/expected")" ]
}
wait_until "every point in whisper" read_back
diff "$T/expected" "$T/got" >"$T/diff" || { head "$T/diff"; fail "points differ"; }
grep -q '^proxmox\.qemu\.100\.memhost	' "$T/got" || fail "no proxmox.qemu.100.memhost"
grep -q '^proxmox\.lxc\.101\.netin	' "$T/got" || fail "no proxmox.lxc.101.netin"
grep -q '^proxmox\.nodes\.pve1\.nics\.physical\.receive	' "$T/got" || fail "no node traffic"
grep -q '^proxmox\.nodes\.pve1\.cpustat\.avg1	' "$T/got" || fail "no node load"
check_stall "$T/got" proxmox.qemu.100.stallcpusome proxmox.nodes.pve1.stallmemorysome \
  proxmox.qemu.100.stalliofull

# Twice: whisper keeps one value per time.
export_guests 2>"$T/err" || fail "second export: $(cat "$T/err")"
sleep 2
read_back || fail "a second export changed the number of points"
diff "$T/expected" "$T/got" >/dev/null || fail "a second export changed the points"

# Values with exponents in their shortest form go as plain decimals, which
# carbon reads: 0.0123 % pressure is 1.23e-02 nowhere, 1e-05 is 0.00001.
fixture_file pve-node-9.0 "$D/pve-node-9.0/tiny" "$T0"
rrdtool update "$D/pve-node-9.0/tiny" \
  "$((T0 + 60)):0.00001:U:U:U:1e+21:U:U:U:U:U:U:U:U:U:U:U:U:U:U"
"$PVECG" export --format graphite --node tiny --data-dir "$D" --prefix site.pve >"$T/tiny.txt"
cat >"$T/expected" <<EOF2
site.pve.nodes.tiny.cpustat.avg1 0.00001 $((T0 + 60))
site.pve.nodes.tiny.memory.memtotal 1000000000000000000000 $((T0 + 60))
EOF2
diff "$T/expected" "$T/tiny.txt" || fail "plain decimals"
"$PVECG" export --format graphite --node tiny --data-dir "$D" --prefix site.pve \
  --to "tcp://127.0.0.1:$CARBON_PORT" 2>/dev/null || fail "tiny export"
tiny_back() {
  [ "$(whisper-fetch --from "$T0" --until "$((T0 + 120))" --json \
    "$CARBON_WHISPER/site/pve/nodes/tiny/cpustat/avg1.wsp" 2>/dev/null |
    jq -c '[.values[] | select(. != null)]')" == '[1e-05]' ]
}
wait_until "the tiny value in whisper" tiny_back
echo PASS
