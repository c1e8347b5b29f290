#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A collectd whose open-files limit cannot hold every guest's files (hard
# limit 320: a budget of 24 descriptors, 3 guests' 7 files kept open): the rest are
# read by open/read/close, every guest's row is still exact, and the plugin
# says so once.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
command -v prlimit >/dev/null || { echo "SKIP: no prlimit"; exit 77; }

CG=$T/cgroup
VM=$T/data/pve-vm-9.0
for i in $(seq 100 119); do
  qemu_guest "$CG" "$i" 1.00 0.50 0.00 0.00 0.00 0.00
  v2_memory "$CG/qemu.slice/$i.scope" $((i * 1048576)) 1048576
done
write_conf "$T/collectd.conf" "
<Plugin pve_cgroup>
  CgroupRoot \"$CG\"
  MemoryCgroupRoot \"\"
</Plugin>
<Plugin pve_rrd>
  DataDir \"$T/data\"
</Plugin>"
COLLECTD="prlimit --nofile=320:320 $COLLECTD"
# shellcheck disable=SC2086
$COLLECTD -f -C "$T/collectd.conf" >"$T/collectd.stdout" 2>&1 &
COLLECTD_PID=$!
wait_for 20 has_update "$VM/119"
sleep 2
stop_collectd

for i in $(seq 100 119); do
  check "guest $i memhost" $(((i - 1) * 1048576)) "$(rrd_last "$VM/$i" memhost)"
done
check "the open/read/close mode is logged once" 1 \
  "$(grep -c '17 of 20 guests are read by open/read/close' "$T/collectd.log" || true)"
finish
