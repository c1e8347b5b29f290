# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for the integration tests: a private temp dir, the real
# collectd in the foreground, and reading values back with rrdtool.
# Sourced by the test scripts; expects PLUGIN_DIR (the built plugins).

set -euo pipefail

COLLECTD=${COLLECTD:-/usr/sbin/collectd}
SYSTEM_PLUGIN_DIR=${SYSTEM_PLUGIN_DIR:-/usr/lib/collectd}
FAILURES=0

command -v rrdtool >/dev/null || { echo "SKIP: rrdtool is not installed"; exit 77; }
[ -x "$COLLECTD" ] || { echo "SKIP: no collectd at $COLLECTD"; exit 77; }
[ -f "$PLUGIN_DIR/pve_cgroup.so" ] || { echo "no plugins in $PLUGIN_DIR"; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/pvecg-test.XXXXXX")
COLLECTD_PID=
cleanup() {
  stop_collectd
  [ -n "${KEEP_TMP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

# write_conf FILE EXTRA_PLUGIN_BLOCKS: a collectd.conf for both plugins at
# Interval 1, logging to $T/collectd.log.
write_conf() {
  cat >"$1" <<CONF
Hostname "testnode"
FQDNLookup false
BaseDir "$T/base"
PIDFile "$T/collectd.pid"
Interval 1
WriteThreads 4
PluginDir "$SYSTEM_PLUGIN_DIR"
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$T/collectd.log"
  Timestamp true
</Plugin>
PluginDir "$PLUGIN_DIR"
LoadPlugin pve_cgroup
LoadPlugin pve_rrd
$2
CONF
  mkdir -p "$T/base"
}

# plugin_blocks CGROUP_ROOT DATA_DIR [LINE...]: the <Plugin> blocks
# of both plugins for a test tree -- no v1 memory root, no /proc
# counters -- with each LINE added to pve_cgroup's block.
plugin_blocks() {
  local line
  printf '<Plugin pve_cgroup>\n  CgroupRoot "%s"\n  MemoryCgroupRoot ""\n  ProcRoot ""\n' "$1"
  for line in "${@:3}"; do printf '  %s\n' "$line"; done
  printf '</Plugin>\n<Plugin pve_rrd>\n  DataDir "%s"\n</Plugin>\n' "$2"
}

start_collectd() {
  "$COLLECTD" -f -C "$1" >"$T/collectd.stdout" 2>&1 &
  COLLECTD_PID=$!
}

stop_collectd() {
  if [ -n "$COLLECTD_PID" ]; then
    kill -TERM "$COLLECTD_PID" 2>/dev/null || true
    wait "$COLLECTD_PID" 2>/dev/null || true
    COLLECTD_PID=
  fi
}

# wait_for SECONDS COMMAND...: polls until COMMAND succeeds.
wait_for() {
  local deadline=$((SECONDS + $1)) begun=$SECONDS
  shift
  until "$@"; do
    if [ $SECONDS -ge $deadline ]; then
      echo "timed out waiting for: $*"
      return 1
    fi
    if [ -n "$COLLECTD_PID" ] && ! kill -0 "$COLLECTD_PID" 2>/dev/null; then
      echo "collectd exited early:"; cat "$T/collectd.stdout" "$T/collectd.log" 2>/dev/null
      return 1
    fi
    # every 0.2 s at first; after 5 s the wait is one of minutes (an RRD
    # row, a store, an alert), and once a second is as good: a condition
    # that starts python3 or rrdtool five times a second takes CPU from the
    # tests running beside
    if [ $((SECONDS - begun)) -lt 5 ]; then sleep 0.2; else sleep 1; fi
  done
}

# wait_up SECONDS LOG URL: polls URL until the server behind it answers;
# on a timeout prints the end of the server's LOG, where a server that did
# not come up (a port taken, a bad flag, a slow start) says why.
wait_up() {
  wait_for "$1" curl -sf -o /dev/null "$3" && return 0
  echo "--- the end of $2 ---"
  tail -n 40 "$2" 2>/dev/null || true
  return 1
}

# rrd_last FILE DS: the value of DS in the file's last update, as stored.
rrd_last() {
  rrdtool lastupdate "$1" | awk -v ds="$2" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
    NR > 2 && NF { v = $(col[ds] + 1) }
    END { if (!(ds in col)) { print "no-such-ds"; exit } print v }'
}

# rrd_last_time FILE: the time of the file's last update.
rrd_last_time() {
  rrdtool last "$1"
}

# updates_at_least FILE N: the file has received at least N updates since
# it was made (counted by last update time advancing, at Interval 1).
has_update() {
  [ -f "$1" ] && [ "$(rrdtool last "$1")" -gt "$(date -d 'today 00:00' +%s)" ]
}

check() { # check DESCRIPTION EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then
    echo "ok   - $1"
  else
    echo "FAIL - $1: expected '$2', got '$3'"
    FAILURES=$((FAILURES + 1))
  fi
}

check_true() { # check_true DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then echo "ok   - $what"; else echo "FAIL - $what"; FAILURES=$((FAILURES + 1)); fi
}

finish() {
  if [ "$FAILURES" -ne 0 ]; then
    echo "--- collectd.log ---"; cat "$T/collectd.log" 2>/dev/null || true
    echo "$FAILURES check(s) failed"
    exit 1
  fi
  echo "all checks passed"
}

# The pve-vm-9.0 layout as `rrdtool info` prints it, written out from
# Proxmox's definition (pve-cluster status.c), independent of rrd/.
expected_vm_layout() {
  echo "step = 60"
  local ds="maxcpu:GAUGE cpu:GAUGE maxmem:GAUGE mem:GAUGE maxdisk:GAUGE disk:GAUGE
    netin:DERIVE netout:DERIVE diskread:DERIVE diskwrite:DERIVE memhost:GAUGE
    pressurecpusome:GAUGE pressurecpufull:GAUGE pressureiosome:GAUGE
    pressureiofull:GAUGE pressurememorysome:GAUGE pressurememoryfull:GAUGE"
  local i=0 d
  for d in $ds; do
    echo "ds[${d%%:*}].index = $i"
    echo "ds[${d%%:*}].type = \"${d##*:}\""
    echo "ds[${d%%:*}].minimal_heartbeat = 120"
    echo "ds[${d%%:*}].min = 0.0000000000e+00"
    echo "ds[${d%%:*}].max = NaN"
    i=$((i + 1))
  done
  i=0
  for cf in AVERAGE MAX; do
    for sr in 1:1440 30:1440 360:1440 10080:570; do
      echo "rra[$i].cf = \"$cf\""
      echo "rra[$i].rows = ${sr#*:}"
      echo "rra[$i].pdp_per_row = ${sr%:*}"
      echo "rra[$i].xff = 5.0000000000e-01"
      i=$((i + 1))
    done
  done
}

# The same properties as read from a file.
actual_layout() {
  rrdtool info "$1" | grep -E '^(step|ds\[[a-z]+\]\.(index|type|minimal_heartbeat|min|max)|rra\[[0-9]+\]\.(cf|rows|pdp_per_row|xff)) ='
}

# ---- rrdcached, free ports, more than one daemon ------------------------
# (for the tests of writing through rrdcached and of the central collector)

RRDCACHED=${RRDCACHED:-/usr/bin/rrdcached}
EXIT_HOOKS=()

# at_exit COMMAND...: run at exit, before cleanup (last registered first).
at_exit() { EXIT_HOOKS=("$*" "${EXIT_HOOKS[@]}"); }
run_exit_hooks() {
  local h
  for h in "${EXIT_HOOKS[@]}"; do eval "$h" || true; done
}
trap 'run_exit_hooks; cleanup' EXIT
# A command failing outside a check ends the test (set -e): say which.
trap 'echo "FAIL - exit $? at line $LINENO: $BASH_COMMAND"' ERR

# free_port: a port of 127.0.0.1 that nothing uses for TCP or UDP now,
# outside the kernel's ephemeral range (tests/helpers/free_port says why).
free_port() {
  "$(dirname "${BASH_SOURCE[0]}")/../helpers/free_port"
}

# need_faketime: sets FAKETIME_LIB to libfaketime's library for threaded
# programs, or skips the test (77) without it.
need_faketime() {
  FAKETIME_LIB=${FAKETIME_LIB:-$(ls /usr/lib/*/faketime/libfaketimeMT.so.1 2>/dev/null | head -1 || true)}
  [ -n "$FAKETIME_LIB" ] && [ -f "$FAKETIME_LIB" ] ||
    { echo "SKIP: libfaketime is not installed (Debian: faketime)"; exit 77; }
}

# start_rrdcached DIR [LISTEN [OPTIONS...]]: rrdcached -B with base DIR/db,
# journal DIR/journal, pid file DIR/pid, listening on LISTEN (default
# unix:DIR/sock); waits until it accepts connections; stopped at exit.
start_rrdcached() {
  local dir=$1 listen=${2:-unix:$1/sock}
  shift $(($# < 2 ? $# : 2))
  command -v "$RRDCACHED" >/dev/null || { echo "SKIP: no rrdcached"; exit 77; }
  mkdir -p "$dir/db" "$dir/journal"
  rm -f "$dir/pid"
  "$RRDCACHED" -g -l "$listen" -b "$dir/db" -B -p "$dir/pid" \
    -j "$dir/journal" "$@" >>"$dir/rrdcached.out" 2>&1 &
  echo $! >"$dir/daemon.pid"
  at_exit "kill_rrdcached '$dir'"
  local i
  for i in $(seq 100); do
    rrdcached_accepts "$listen" && return 0
    sleep 0.05
  done
  echo "rrdcached on $listen does not start:"; cat "$dir/rrdcached.out"
  return 1
}

rrdcached_accepts() {
  case $1 in
  unix:*) [ -S "${1#unix:}" ] ;;
  *) (exec 3<>"/dev/tcp/${1%:*}/${1##*:}") 2>/dev/null ;;
  esac
}

# stop_rrdcached DIR: SIGTERM (its journal is complete then) and wait.
stop_rrdcached() {
  local pid
  pid=$(cat "$1/daemon.pid" 2>/dev/null) || return 0
  kill -CONT "$pid" 2>/dev/null || true
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -f "$1/daemon.pid"
}

# kill_rrdcached DIR: SIGKILL and wait, for the end of a test.
kill_rrdcached() {
  local pid
  pid=$(cat "$1/daemon.pid" 2>/dev/null) || return 0
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -f "$1/daemon.pid"
}

# journal_times DIR PATH: the times of the rows the daemon(s) of DIR
# accepted for PATH, in the order accepted (daemons stopped by now).  The
# journal lists refused updates too (rrdcached writes it before checking):
# a row not newer than the one accepted before it was refused.
journal_times() {
  cat "$1"/journal/rrd.journal.* 2>/dev/null |
    awk -v p="$2" '$1 == "update" && $2 == p { split($3, f, ":")
      if (n == 0 || f[1] > last) { print f[1]; last = f[1]; n++ } }'
}

# start_collectd_as NAME CONF: one of several collectd instances, logging
# its output to $T/NAME.stdout; its pid in $T/NAME.pid; stopped at exit.
start_collectd_as() {
  "$COLLECTD" -f -C "$2" >"$T/$1.stdout" 2>&1 &
  echo $! >"$T/$1.pid"
  at_exit "stop_collectd_as '$1'"
}

stop_collectd_as() {
  local pid
  pid=$(cat "$T/$1.pid" 2>/dev/null) || return 0
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -f "$T/$1.pid"
}

# unixsock SOCKET COMMAND: one command to collectd's unixsock plugin; prints
# the answer (status line and the lines it announces).
unixsock() {
  perl -MIO::Socket::UNIX -e '
    my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die "connect: $!\n";
    print $s "$ARGV[1]\n";
    my $first = <$s>; print $first;
    my ($n) = $first =~ /^(-?\d+)/;
    for (1 .. ($n > 0 ? $n : 0)) { my $l = <$s>; print $l }' "$1" "$2"
}
