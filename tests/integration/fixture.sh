# SPDX-License-Identifier: GPL-2.0-or-later
# Builds fixture cgroup trees: directories and files laid out like cgroupfs,
# with contents in the kernel's exact formats, so the plugins can be run on
# known numbers.  Sourced by the integration tests.

# psi_file PATH SOME_AVG10 FULL_AVG10 [nofull]
psi_file() {
  {
    echo "some avg10=$2 avg60=0.25 avg300=0.05 total=123456"
    [ "${4:-}" == nofull ] || echo "full avg10=$3 avg60=0.10 avg300=0.01 total=65432"
  } >"$1"
}

# v2_memory DIR CURRENT FILE: memory.current and a memory.stat with file=FILE
# surrounded by the keys a 6.x kernel prints (file_mapped must not be taken
# for file).
v2_memory() {
  echo "$2" >"$1/memory.current"
  cat >"$1/memory.stat" <<STAT
anon 8675309
file $3
kernel 2097152
kernel_stack 49152
pagetables 81920
sec_pagetables 0
percpu 1200
sock 0
vmalloc 0
shmem 4096
zswap 0
zswapped 0
file_mapped 7340032
file_dirty 0
file_writeback 0
swapcached 0
anon_thp 0
inactive_anon 8388608
active_anon 286720
inactive_file 10485760
active_file 94371840
unevictable 0
pgfault 123
pgmajfault 1
STAT
}

# v1_memory DIR USAGE TOTAL_CACHE: the v1 memory controller's files.
v1_memory() {
  echo "$2" >"$1/memory.usage_in_bytes"
  cat >"$1/memory.stat" <<STAT
cache 1
rss 2
rss_huge 0
shmem 0
mapped_file 3
hierarchical_memory_limit 9223372036854771712
total_cache $3
total_rss 4
total_mapped_file 5
STAT
}

# cpu_io DIR USAGE_USEC RBYTES WBYTES: cpu.stat and a two-device io.stat
# whose sums are RBYTES and WBYTES.
cpu_io() {
  printf 'usage_usec %s\nuser_usec 0\nsystem_usec 0\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n' "$2" >"$1/cpu.stat"
  printf '8:0 rbytes=%s wbytes=%s rios=1 wios=1 dbytes=0 dios=0\n253:0 rbytes=0 wbytes=0 rios=0 wios=0 dbytes=0 dios=0\n' "$3" "$4" >"$1/io.stat"
}

# qemu_guest ROOT VMID CPU_SOME CPU_FULL IO_SOME IO_FULL MEM_SOME MEM_FULL
qemu_guest() {
  local d="$1/qemu.slice/$2.scope"
  mkdir -p "$d"
  cpu_io "$d" 1000000 4096 8192
  psi_file "$d/cpu.pressure" "$3" "$4"
  psi_file "$d/io.pressure" "$5" "$6"
  psi_file "$d/memory.pressure" "$7" "$8"
}

lxc_guest() {
  local d="$1/lxc/$2"
  mkdir -p "$d/ns"
  cpu_io "$d" 1000000 4096 8192
  psi_file "$d/cpu.pressure" "$3" "$4"
  psi_file "$d/io.pressure" "$5" "$6"
  psi_file "$d/memory.pressure" "$7" "$8"
  # The container's own view: must not be mistaken for the guest.
  psi_file "$d/ns/cpu.pressure" 99.99 99.99
}

# guest_196 ROOT CURRENT CPU_SOME: a fixture tree with QEMU guest 196 only, as
# the central collector tests give each node one (the same VMID).
guest_196() {
  mkdir -p "$1"
  qemu_guest "$1" 196 "$3" 0.75 2.25 1.00 0.50 0.25
  v2_memory "$1/qemu.slice/196.scope" "$2" 104857600
}
