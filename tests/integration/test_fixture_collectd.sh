#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The whole path on a fixture cgroup tree: the real collectd loads
# pve_cgroup and pve_rrd at Interval 1, and the RRD files must hold exactly
# the numbers the fixture files say, U where nothing is known, the exact
# pve-vm-9.0 layout, no file for what is not a guest, and a foreign file
# left byte-for-byte alone.  Guests removed and added mid-run are followed.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"

CG=$T/cgroup
MEM=$T/memory
DATA=$T/data
VM=$DATA/pve-vm-9.0
mkdir -p "$CG" "$MEM"

# 100: ordinary VM.  memhost = 1073741824 - 104857600 = 968884224
qemu_guest "$CG" 100 1.50 0.75 2.25 1.00 0.50 0.25
v2_memory "$CG/qemu.slice/100.scope" 1073741824 104857600
# 101: malformed cpu.pressure -> only its two columns unknown
qemu_guest "$CG" 101 3.00 2.00 4.00 3.00 5.00 4.00
v2_memory "$CG/qemu.slice/101.scope" 2147483648 0
echo "some avg10=garbage avg60=0.00 avg300=0.00 total=0" >"$CG/qemu.slice/101.scope/cpu.pressure"
# 102: page cache larger than usage (read skew) -> clamped to 0; cpu.pressure
# without a full line (kernels before 5.13) -> pressurecpufull unknown
qemu_guest "$CG" 102 0.00 0.00 0.00 0.00 0.00 0.00
psi_file "$CG/qemu.slice/102.scope/cpu.pressure" 7.25 0 nofull
v2_memory "$CG/qemu.slice/102.scope" 4096 8192
# 104: hybrid host: memory in the v1 hierarchy. 536870912 - 1048576 = 535822336
qemu_guest "$CG" 104 0.10 0.00 0.20 0.10 0.30 0.20
mkdir -p "$MEM/qemu.slice/104.scope"
v1_memory "$MEM/qemu.slice/104.scope" 536870912 1048576
# 105: has a pre-existing file of another layout
qemu_guest "$CG" 105 0.00 0.00 0.00 0.00 0.00 0.00
v2_memory "$CG/qemu.slice/105.scope" 1000 0
# 200: container: memhost unknown (as in PVE), mem = 314572800 - 52428800
lxc_guest "$CG" 200 11.11 5.55 22.22 11.11 33.33 22.22
v2_memory "$CG/lxc/200" 314572800 52428800
# Not guests: bad names, and a symlink to a guest-looking dir outside.
mkdir -p "$CG/qemu.slice/99.scope" "$CG/qemu.slice/abc.scope" \
  "$CG/qemu.slice/0100.scope" "$CG/lxc/init.scope" "$CG/qemu.slice/notaguest"
qemu_guest "$T/outside" 667 1 1 1 1 1 1
ln -s "$T/outside/qemu.slice/667.scope" "$CG/qemu.slice/103.scope"

# PVE configs: 100 from its config; 101 none, so the cgroup's limits; 102 a
# malformed one (logged; its values unknown); 200 an LXC config.
PVE=$T/pve
mkdir -p "$PVE/qemu-server" "$PVE/lxc"
printf 'name: web\nsockets: 2\ncores: 2\nmemory: 4096\n[snap]\ncores: 1\n' >"$PVE/qemu-server/100.conf"
echo "200000 100000" >"$CG/qemu.slice/101.scope/cpu.max"
echo 1073741824 >"$CG/qemu.slice/101.scope/memory.max"
printf 'cores: many\n' >"$PVE/qemu-server/102.conf"
printf 'hostname: ct\ncores: 3\nmemory: 2048\n' >"$PVE/lxc/200.conf"
cpu_io "$CG/lxc/200" 7000000 1048576 2097152

# /proc/net/dev with two NICs for 100, one veth for 200, and interfaces
# that belong to no guest.  Guest's view: netin = tap tx, netout = tap rx.
mkdir -p "$T/proc/net"
cat >"$T/proc/net/dev" <<'NETDEV'
Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
  eth0: 999999 9 0 0 0 0 0 0 888888 8 0 0 0 0 0 0
tap100i0:    1000      10    0    0    0     0          0         0     3000      30    0    0    0     0       0          0
tap100i1:   20000      20    0    0    0     0          0         0    40000      40    0    0    0     0       0          0
fwln100i0: 777 7 0 0 0 0 0 0 888 8 0 0 0 0 0 0
veth200i0:     500       5    0    0    0     0          0         0      600       6    0    0    0     0       0          0
tap999i0: 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0
NETDEV

mkdir -p "$VM"
rrdtool create "$VM/105" --step 300 DS:foo:GAUGE:600:0:U RRA:AVERAGE:0.5:1:10
cp "$VM/105" "$T/105.orig"

write_conf "$T/collectd.conf" "
<Plugin pve_cgroup>
  CgroupRoot \"$CG\"
  MemoryCgroupRoot \"$MEM\"
  PveConfigDir \"$PVE\"
  ProcRoot \"$T/proc\"
</Plugin>
<Plugin pve_rrd>
  DataDir \"$DATA\"
</Plugin>"
start_collectd "$T/collectd.conf"

wait_for 20 has_update "$VM/100"
wait_for 20 has_update "$VM/200"

# Mid-run: 102 goes away, 201 appears, made beside the tree and moved in
# whole: a reading between its files would record its memory unknown.
rm -r "$CG/qemu.slice/102.scope"
lxc_guest "$T/stage" 201 0.01 0.02 0.03 0.04 0.05 0.06
v2_memory "$T/stage/lxc/201" 5000000 1000000
mv "$T/stage/lxc/201" "$CG/lxc/201"
wait_for 20 has_update "$VM/201"
sleep 3
stop_collectd

echo "# layout"
for f in 100 101 102 104 200 201; do
  check "pve-vm-9.0/$f has exactly the pve-vm-9.0 layout" \
    "$(expected_vm_layout | sort)" "$(actual_layout "$VM/$f" | sort)"
done
check "file size of a pve-vm-9.0 file (as PVE's)" 1346072 "$(stat -c %s "$VM/100")"
check "file mode 0644 (as pmxcfs's)" 644 "$(stat -c %a "$VM/100")"

echo "# values"
check "100 memhost" 968884224 "$(rrd_last "$VM/100" memhost)"
check "100 mem" 968884224 "$(rrd_last "$VM/100" mem)"
check "100 pressurecpusome" 1.5 "$(rrd_last "$VM/100" pressurecpusome)"
check "100 pressurecpufull" 0.75 "$(rrd_last "$VM/100" pressurecpufull)"
check "100 pressureiosome" 2.25 "$(rrd_last "$VM/100" pressureiosome)"
check "100 pressureiofull" 1 "$(rrd_last "$VM/100" pressureiofull)"
check "100 pressurememorysome" 0.5 "$(rrd_last "$VM/100" pressurememorysome)"
check "100 pressurememoryfull" 0.25 "$(rrd_last "$VM/100" pressurememoryfull)"
check "100 maxcpu = sockets x cores of its config" 4 "$(rrd_last "$VM/100" maxcpu)"
check "100 maxmem from its config" 4294967296 "$(rrd_last "$VM/100" maxmem)"
check "100 cpu: usage unchanged between samples" 0 "$(rrd_last "$VM/100" cpu)"
check "100 diskread summed over devices" 4096 "$(rrd_last "$VM/100" diskread)"
check "100 diskwrite summed over devices" 8192 "$(rrd_last "$VM/100" diskwrite)"
check "100 netin: tx of tap100i0 + tap100i1" 43000 "$(rrd_last "$VM/100" netin)"
check "100 netout: rx of both taps" 21000 "$(rrd_last "$VM/100" netout)"
check "101 without interfaces: netin 0" 0 "$(rrd_last "$VM/101" netin)"
check "200 lxc netin from veth200i0" 600 "$(rrd_last "$VM/200" netin)"
check "200 lxc netout" 500 "$(rrd_last "$VM/200" netout)"
for ds in maxdisk disk; do
  check "100 $ds not gathered: U" U "$(rrd_last "$VM/100" $ds)"
done
check "101 maxcpu from cpu.max" 2 "$(rrd_last "$VM/101" maxcpu)"
check "101 maxmem from memory.max" 1073741824 "$(rrd_last "$VM/101" maxmem)"
check "102 malformed config: maxcpu U" U "$(rrd_last "$VM/102" maxcpu)"
check "102 malformed config: maxmem U" U "$(rrd_last "$VM/102" maxmem)"
check "104 no config, no limits: host CPUs" "$(nproc)" "$(rrd_last "$VM/104" maxcpu)"
check "200 lxc maxcpu from cores" 3 "$(rrd_last "$VM/200" maxcpu)"
check "200 lxc maxmem" 2147483648 "$(rrd_last "$VM/200" maxmem)"
check "200 lxc diskread" 1048576 "$(rrd_last "$VM/200" diskread)"
check "101 malformed cpu.pressure: some U" U "$(rrd_last "$VM/101" pressurecpusome)"
check "101 malformed cpu.pressure: full U" U "$(rrd_last "$VM/101" pressurecpufull)"
check "101 io still recorded" 4 "$(rrd_last "$VM/101" pressureiosome)"
check "101 memhost still recorded" 2147483648 "$(rrd_last "$VM/101" memhost)"
check "102 memhost clamped to 0" 0 "$(rrd_last "$VM/102" memhost)"
check "102 cpu some without full line" 7.25 "$(rrd_last "$VM/102" pressurecpusome)"
check "102 cpu full without full line: U" U "$(rrd_last "$VM/102" pressurecpufull)"
check "104 memhost from cgroup v1" 535822336 "$(rrd_last "$VM/104" memhost)"
check "104 pressure from cgroup2" 0.3 "$(rrd_last "$VM/104" pressurememorysome)"
check "200 lxc memhost U (as PVE)" U "$(rrd_last "$VM/200" memhost)"
check "200 lxc mem" 262144000 "$(rrd_last "$VM/200" mem)"
check "200 lxc pressure from lxc/200, not ns/" 11.11 "$(rrd_last "$VM/200" pressurecpusome)"
check "200 lxc memory full" 22.22 "$(rrd_last "$VM/200" pressurememoryfull)"
check "201 added mid-run" 4000000 "$(rrd_last "$VM/201" mem)"

echo "# guests and non-guests"
check "exactly the guests' files" "100 101 102 104 105 200 201" "$(ls "$VM" | sort -n | xargs)"
check_true "foreign file 105 byte-for-byte unchanged" cmp -s "$T/105.orig" "$VM/105"
check "one error for the foreign file" 1 "$(grep -c "pve-vm-9.0/105" "$T/collectd.log" || true)"
check_true "removed guest 102 no longer updated" \
  test $(( $(rrd_last_time "$VM/100") - $(rrd_last_time "$VM/102") )) -ge 2
check "malformed file logged once" 1 \
  "$(grep -c 'qemu 101: cpu.pressure: malformed content' "$T/collectd.log" || true)"
check "malformed config logged once" 1 \
  "$(grep -c 'qemu-server/102.conf: malformed content' "$T/collectd.log" || true)"
check "no other errors" "" \
  "$(grep -iE 'error|failed' "$T/collectd.log" | grep -v 'pve-vm-9.0/105' || true)"
finish
