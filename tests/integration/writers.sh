# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Shared by the tests of collectd's own writers (test_writer_graphite.sh,
# test_writer_prometheus.sh, test_writer_network.sh): a fixture host with
# known numbers for three guests and the node, the <Plugin pve_cgroup>
# block that reads it, and the row every writer must carry, column by
# column.  Sourced after lib.sh, fixture.sh and examples.sh.

# writer_fixture: guests qemu 100, qemu 101 and lxc 200 below $T/cgroup
# (deploy_fixture), their configs in $T/pve, the guests' interfaces in
# $T/proc/net/dev, and the node's /proc and /sys in $T/proc and $T/sys.
writer_fixture() {
  local p=$T/proc s=$T/sys
  deploy_fixture "$T/cgroup" 100 1
  mkdir -p "$T/pve/qemu-server" "$T/pve/lxc" "$p/net" "$p/pressure" "$p/spl/kstat/zfs"
  printf 'name: web\nsockets: 2\ncores: 2\nmemory: 4096\n' >"$T/pve/qemu-server/100.conf"
  printf 'cores: 1\nmemory: 1024\n' >"$T/pve/qemu-server/101.conf"
  printf 'hostname: ct\ncores: 3\nmemory: 2048\n' >"$T/pve/lxc/200.conf"
  cat >"$p/net/dev" <<'NETDEV'
Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
tap100i0:    1000      10    0    0    0     0          0         0     3000      30    0    0    0     0       0          0
veth200i0:    500       5    0    0    0     0          0         0      600       6    0    0    0     0       0          0
NETDEV
  # The node: /proc/stat never changes, so its cpu and iowait stay unknown.
  printf 'cpu  100 0 100 700 100 0 0 0 0 0\ncpu0 1 0 1 1 0 0 0 0 0 0\ncpu1 1 0 1 1 0 0 0 0 0 0\ncpu2 1 0 1 1 0 0 0 0 0 0\nintr 1\nctxt 1\nbtime 1\n' >"$p/stat"
  printf 'MemTotal:       16384000 kB\nMemFree:         1000000 kB\nMemAvailable:   12288000 kB\nSwapTotal:          8192 kB\nSwapFree:           2048 kB\n' >"$p/meminfo"
  echo "1.25 0.75 0.50 2/345 6789" >"$p/loadavg"
  printf 'some avg10=3.50 avg60=1.00 avg300=0.50 total=100\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' >"$p/pressure/cpu"
  printf 'some avg10=2.25 avg60=1.00 avg300=0.50 total=100\nfull avg10=1.75 avg60=0.00 avg300=0.00 total=0\n' >"$p/pressure/io"
  printf 'some avg10=0.50 avg60=1.00 avg300=0.50 total=100\nfull avg10=0.25 avg60=0.00 avg300=0.00 total=0\n' >"$p/pressure/memory"
  printf '13 1 0x01 123 33456 5180581924 8339153245447\nname type data\nsize 4 4294967296\n' >"$p/spl/kstat/zfs/arcstats"
  # one physical NIC (it has a device link)
  mkdir -p "$s/devices/pci0000:00/0000:00:03.0/net/eth0/statistics" "$s/class/net"
  echo 1 >"$s/devices/pci0000:00/0000:00:03.0/net/eth0/type"
  echo 1000000 >"$s/devices/pci0000:00/0000:00:03.0/net/eth0/statistics/rx_bytes"
  echo 2000000 >"$s/devices/pci0000:00/0000:00:03.0/net/eth0/statistics/tx_bytes"
  ln -s ../.. "$s/devices/pci0000:00/0000:00:03.0/net/eth0/device"
  ln -s ../../devices/pci0000:00/0000:00:03.0/net/eth0 "$s/class/net/eth0"
}

# writer_cgroup_block: pve_cgroup reading writer_fixture's trees.  RootPath
# is /proc, a file system of no blocks: roottotal = rootused = 0 exactly.
writer_cgroup_block() {
  cat <<CONF
<Plugin pve_cgroup>
  CgroupRoot "$T/cgroup"
  MemoryCgroupRoot ""
  PveConfigDir "$T/pve"
  ProcRoot "$T/proc"
  SysRoot "$T/sys"
  RootPath "/proc"
  # the once-a-minute rows (tests of their own) would come once or twice
  StallTime false
  KSM false
</Plugin>
CONF
}

# expected_rows: what pve_cgroup dispatches for writer_fixture once it has
# read twice, one line per column: "vm VMID TYPE COLUMN VALUE" or
# "node - - COLUMN VALUE", in the order of the types' columns; U unknown.
expected_rows() {
  local kib=1024 c
  # vm 100: memhost = mem = memory.current - file; maxcpu = sockets x cores
  set -- 100 qemu 4 0 4294967296 968884224 U U 3000 1000 4096 8192 968884224 1.5 0.75 2.25 1 0.5 0.25 \
    101 qemu 1 0 1073741824 2147483648 U U 0 0 4096 8192 2147483648 3 2 4 3 5 4 \
    200 lxc 3 0 2147483648 262144000 U U 600 500 4096 8192 U 11.11 5.55 22.22 11.11 33.33 22.22
  while [ $# -gt 0 ]; do
    local id=$1 type=$2
    shift 2
    for c in maxcpu cpu maxmem mem maxdisk disk netin netout diskread diskwrite memhost \
      pressurecpusome pressurecpufull pressureiosome pressureiofull pressurememorysome \
      pressurememoryfull; do
      echo "vm $id $type $c $1"
      shift
    done
  done
  set -- 1.25 3 U U $((16384000 * kib)) $(((16384000 - 12288000) * kib)) $((8192 * kib)) \
    $(((8192 - 2048) * kib)) 0 0 1000000 2000000 $((12288000 * kib)) 4294967296 \
    3.5 2.25 1.75 0.5 0.25
  for c in loadavg maxcpu cpu iowait memtotal memused swaptotal swapused roottotal \
    rootused netin netout memavailable arcsize pressurecpusome pressureiosome \
    pressureiofull pressurememorysome pressurememoryfull; do
    echo "node - - $c $1"
    shift
  done
}

# number_norm: a filter writing the last field of each line as "%.15g" (the
# digits a double holds), and any NaN as U, so that "968884224.000000",
# "9.68884224e+08" and "968884224" compare equal.
number_norm() {
  awk '{ v = $NF
         if (tolower(v) ~ /nan/ || v == "U") v = "U"; else v = sprintf("%.15g", v + 0)
         $NF = v; print }'
}
