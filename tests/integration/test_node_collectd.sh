#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The node row through the real collectd: pve_cgroup's node sampler on
# fixture /proc and /sys trees, pve_rrd writing pve-node-9.0/<node>, and
# every one of the 19 columns checked by name (cpu and iowait, which are
# deltas between two reads, through collectd's csv plugin, which records
# each row).
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
[ -f "$SYSTEM_PLUGIN_DIR/csv.so" ] || { echo "SKIP: no csv plugin"; exit 77; }

P=$T/proc
S=$T/sys
mkdir -p "$P/pressure" "$P/spl/kstat/zfs" "$P/net" "$S/class/net"
# stat_file FIELDS: /proc/stat with the aggregate cpu line's fields,
# rewritten in place (the sampler keeps the file open, as on procfs).
stat_file() {
  printf 'cpu  %s\ncpu0 1 0 1 1 0 0 0 0 0 0\ncpu1 1 0 1 1 0 0 0 0 0 0\ncpu2 1 0 1 1 0 0 0 0 0 0\nintr 1\nctxt 1\nbtime 1\n' "$1" >"$P/stat"
}
stat_file "100 0 100 700 100 0 0 0 0 0"
cat >"$P/meminfo" <<'EOF2'
MemTotal:       16384000 kB
MemFree:         1000000 kB
MemAvailable:   12288000 kB
Buffers:          100000 kB
Cached:          2000000 kB
SwapCached:            0 kB
SwapTotal:          8192 kB
SwapFree:           2048 kB
EOF2
echo "1.25 0.75 0.50 2/345 6789" >"$P/loadavg"
printf 'some avg10=3.50 avg60=1.00 avg300=0.50 total=100\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' >"$P/pressure/cpu"
printf 'some avg10=2.25 avg60=1.00 avg300=0.50 total=100\nfull avg10=1.75 avg60=0.00 avg300=0.00 total=0\n' >"$P/pressure/io"
printf 'some avg10=0.50 avg60=1.00 avg300=0.50 total=100\nfull avg10=0.25 avg60=0.00 avg300=0.00 total=0\n' >"$P/pressure/memory"
cat >"$P/spl/kstat/zfs/arcstats" <<'EOF2'
13 1 0x01 123 33456 5180581924 8339153245447
name                            type data
hits                            4    12345
misses                          4    678
size                            4    4294967296
c                               4    8589934592
EOF2
printf 'Inter-|\n face |\n' >"$P/net/dev"
# nic NAME PARENT(or "") RX TX: a NIC as sysfs shows it; a physical one has
# a `device` link.
nic() {
  local dev=$S/devices/${2:-virtual}/net/$1
  mkdir -p "$dev/statistics"
  echo 1 >"$dev/type"
  echo "$3" >"$dev/statistics/rx_bytes"
  echo "$4" >"$dev/statistics/tx_bytes"
  ln -s "../../devices/${2:-virtual}/net/$1" "$S/class/net/$1"
  [ -z "$2" ] || ln -s ../.. "$dev/device"
}
nic eth0 pci0000:00/0000:00:03.0 1000000 2000000
nic eth1 pci0000:00/0000:00:04.0 30 40
nic vmbr0 "" 999999 999999
nic tap100i0 "" 555 555

# The root figures come from statvfs of RootPath: a private tmpfs of a
# known size where mounting is permitted.
mkdir -p "$T/rootfs"
if mount -t tmpfs -o size=64m tmpfs "$T/rootfs" 2>/dev/null; then
  MOUNTED=1
  trap 'umount "$T/rootfs"; cleanup' EXIT
fi

write_conf "$T/collectd.conf" "
<Plugin pve_cgroup>
  CgroupRoot \"$T\"
  MemoryCgroupRoot \"\"
  PveConfigDir \"\"
  ProcRoot \"$P\"
  SysRoot \"$S\"
  RootPath \"$T/rootfs\"
  NodeName \"node1\"
</Plugin>
<Plugin pve_rrd>
  DataDir \"$T/data\"
</Plugin>
PluginDir \"$SYSTEM_PLUGIN_DIR\"
LoadPlugin csv
<Plugin csv>
  DataDir \"$T/csv\"
</Plugin>"
start_collectd "$T/collectd.conf"
F=$T/data/pve-node-9.0/node1
wait_for 20 has_update "$F"
# 100 more busy ticks, 500 more idle, 100 more iowait:
# cpu = 200/900, iowait = 100/900 over the next interval.
stat_file "200 0 200 1300 200 0 0 0 0 0"
has_cpu_row() { grep -qE '^[0-9.]+,[^,]*,[^,]*,0\.22222' "$T"/csv/node1/pve_cgroup/pve_node_9_0-* 2>/dev/null; }
wait_for 20 has_cpu_row
sleep 1.5
stop_collectd

echo "# layout"
check "pve-node-9.0 layout (19 DS)" 19 "$(rrdtool info "$F" | grep -c '^ds\[.*\]\.index')"
check "its data sources, in order" \
  "loadavg maxcpu cpu iowait memtotal memused swaptotal swapused roottotal rootused netin netout memavailable arcsize pressurecpusome pressureiosome pressureiofull pressurememorysome pressurememoryfull" \
  "$(rrdtool lastupdate "$F" | head -1 | xargs)"
echo "# values"
KIB=1024
check "loadavg" 1.25 "$(rrd_last "$F" loadavg)"
check "maxcpu: cpuN lines" 3 "$(rrd_last "$F" maxcpu)"
row=$(grep -hE '^[0-9.]+,[^,]*,[^,]*,0\.22222' "$T"/csv/node1/pve_cgroup/pve_node_9_0-* | head -1)
check "cpu = 200/900 (csv row)" 0.222222 "$(echo "$row" | awk -F, '{ printf "%.6f", $4 }')"
check "iowait = 100/900 (same row)" 0.111111 "$(echo "$row" | awk -F, '{ printf "%.6f", $5 }')"
check "cpu unknown once no tick passes" U "$(rrd_last "$F" cpu)"
check "memtotal" $((16384000 * KIB)) "$(rrd_last "$F" memtotal)"
check "memused = total - available" $(((16384000 - 12288000) * KIB)) "$(rrd_last "$F" memused)"
check "memavailable" $((12288000 * KIB)) "$(rrd_last "$F" memavailable)"
check "swaptotal" $((8192 * KIB)) "$(rrd_last "$F" swaptotal)"
check "swapused" $(((8192 - 2048) * KIB)) "$(rrd_last "$F" swapused)"
if [ -n "${MOUNTED:-}" ]; then
  check "roottotal: the 64 MiB tmpfs" $((64 * 1024 * 1024)) "$(rrd_last "$F" roottotal)"
  check "rootused: empty tmpfs" 0 "$(rrd_last "$F" rootused)"
else
  check "roottotal as statvfs" "$(stat -f -c '%b*%S' "$T/rootfs" | bc)" "$(rrd_last "$F" roottotal)"
  echo "     (rootused not checked exactly: no private tmpfs here)"
fi
check "netin: eth0 + eth1 rx, not vmbr0/tap" 1000030 "$(rrd_last "$F" netin)"
check "netout: eth0 + eth1 tx" 2000040 "$(rrd_last "$F" netout)"
check "arcsize" 4294967296 "$(rrd_last "$F" arcsize)"
check "pressurecpusome" 3.5 "$(rrd_last "$F" pressurecpusome)"
check "pressureiosome" 2.25 "$(rrd_last "$F" pressureiosome)"
check "pressureiofull" 1.75 "$(rrd_last "$F" pressureiofull)"
check "pressurememorysome" 0.5 "$(rrd_last "$F" pressurememorysome)"
check "pressurememoryfull" 0.25 "$(rrd_last "$F" pressurememoryfull)"
check "no errors logged" "" "$(grep -iE 'error|warning' "$T/collectd.log" || true)"
finish
