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

T=$(mktemp -d /tmp/pvecg-test.XXXXXX)
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
  local deadline=$((SECONDS + $1))
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
    sleep 0.2
  done
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
