# SPDX-License-Identifier: GPL-2.0-or-later
# A real CPU stall of a VM-like cgroup, sourced by the tests that record
# one: start_cpu_stall VM CPUCG starts it and adds its processes to HOGS.
# One hog held to 5 % of a CPU by the group's CPU limit, as a VM that hits
# its cpulimit: runnable all the time, it waits about 95 % of it, and the
# test does not keep a CPU busy for its minutes.  The limit is VM's
# cpu.max where cgroup2's cpu controller can be enabled, else (a hybrid
# host) the quota of CPUCG, a cgroup v1 cpu group made for it (the caller
# removes it).  Where no limit can be set: two hogs pinned to one CPU, one
# of them always waiting.
start_cpu_stall() {
  local vm=$1 cpucg=$2 slice root limit=
  slice=$(dirname "$vm")
  root=$(dirname "$slice")
  if grep -qw cpu "$root/cgroup.controllers" &&
    echo +cpu >"$root/cgroup.subtree_control" &&
    echo +cpu >"$slice/cgroup.subtree_control" &&
    echo "5000 100000" >"$vm/cpu.max"; then
    limit=$vm
  elif [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ] && mkdir "$cpucg" &&
    echo 100000 >"$cpucg/cpu.cfs_period_us" &&
    echo 5000 >"$cpucg/cpu.cfs_quota_us"; then
    limit=$cpucg
  fi 2>/dev/null
  if [ -n "$limit" ]; then
    echo "the stall: one hog under a CPU limit of 5 % ($limit)"
    sh -c 'echo $$ >"$1/cgroup.procs"; echo $$ >"$2/cgroup.procs"
      exec sh -c "while :; do :; done"' sh "$vm" "$limit" &
    HOGS+=($!)
    return
  fi
  echo "the stall: no CPU limit can be set here, two hogs pinned to one CPU"
  for _ in 1 2; do
    sh -c 'echo $$ >"$1/cgroup.procs"; exec taskset -c 0 sh -c "while :; do :; done"' sh "$vm" &
    HOGS+=($!)
  done
}
