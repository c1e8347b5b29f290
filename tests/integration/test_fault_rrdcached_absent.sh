#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rrdcached not accepting connections at all, under the real collectd with
# both plugins and collectd's csv plugin: a unix socket left behind by a
# daemon that is gone (connect: ECONNREFUSED), and a TCP port nothing
# listens on.  collectd's read loop and write threads go on (the csv plugin
# gets a row every interval), each instance logs one "Cannot reach" line
# (reconnects back off quietly), the unix instance writes every queued row
# once a daemon starts on the socket, and the TCP instance still stops
# within DaemonTimeout, with one line counting the rows it could not
# deliver.  (A daemon that accepts but does not answer, or that goes away
# and comes back: test_rrdcached_frozen, test_rrdcached_restart.)
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"

command -v python3 >/dev/null || { echo "SKIP: no python3 to leave a socket behind"; exit 77; }
deploy_fixture "$T/cgroup" 100 1
D=$T/rrdcached
mkdir -p "$D/db" "$D/journal"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$D/sock"
PORT=$(free_port)

# conf NAME DATADIR ADDRESS
conf() {
  cat <<CONF
Hostname "$1"
FQDNLookup false
Interval 1
WriteThreads 4
BaseDir "$T/$1.d"
PIDFile "$T/$1.collectd.pid"
PluginDir "$SYSTEM_PLUGIN_DIR"
LoadPlugin logfile
<Plugin logfile>
  File "$T/$1.log"
</Plugin>
PluginDir "$PLUGIN_DIR"
LoadPlugin pve_cgroup
LoadPlugin pve_rrd
$(fixture_cgroup_block "$T/cgroup")
<Plugin pve_rrd>
  DataDir "$2"
  DaemonAddress "$3"
  DaemonTimeout 2
</Plugin>
$(csv_block "$T/$1.csv")
CONF
}
mkdir -p "$T/unix.d" "$T/tcp.d"
conf unix "$D/db/pvecg" "unix:$D/sock" >"$T/unix.conf"
conf tcp pvecg "127.0.0.1:$PORT" >"$T/tcp.conf"
start_collectd_as unix "$T/unix.conf"
start_collectd_as tcp "$T/tcp.conf"
wait_for 20 grep -q 'Cannot reach rrdcached' "$T/unix.log"
wait_for 20 grep -q 'Cannot reach rrdcached' "$T/tcp.log"
from=$(date +%s)
sleep 5
to=$(date +%s)
for n in unix tcp; do
  CSV=("$T/$n.csv/$n/pve_cgroup-100/pve_vm_9_0-qemu-"*)
  check_true "$n: a row every interval while unreachable" \
    test "$(csv_times "${CSV[@]}" | awk -v a="$from" -v b="$to" '$1 > a && $1 <= b' | wc -l)" -ge 4
done
check "unix: one line" 1 \
  "$(grep -c "pve_rrd plugin: Cannot reach rrdcached at unix:$D/sock (.*refused" "$T/unix.log" || true)"
check "tcp: one line" 1 \
  "$(grep -c "pve_rrd plugin: Cannot reach rrdcached at 127.0.0.1:$PORT (.*refused" "$T/tcp.log" || true)"
check "unix: nothing written behind the daemon's back" "" "$(ls -A "$D/db/pvecg/pve-vm-9.0" 2>/dev/null)"

# A daemon on the socket: every row queued meanwhile goes in.
rm "$D/sock"
start_rrdcached "$D"
wait_for 20 grep -q 'is reachable again' "$T/unix.log"
sleep 2
start=$SECONDS
stop_collectd_as tcp
check_true "tcp: shutdown within DaemonTimeout ($((SECONDS - start)) s)" test $((SECONDS - start)) -le 4
check "tcp: one line counting the rows lost at shutdown" 1 \
  "$(grep -c "rows for rrdcached at 127.0.0.1:$PORT are lost: the daemon was unreachable at shutdown" "$T/tcp.log" || true)"
stop_collectd_as unix
stop_rrdcached "$D"

CSV=("$T/unix.csv/unix/pve_cgroup-100/pve_vm_9_0-qemu-"*)
check_true "unix: every row collectd dispatched reached the daemon once, in order" \
  same_rows "$(csv_times "${CSV[@]}")" "$(journal_times "$D" "$D/db/pvecg/pve-vm-9.0/100")"
check_deploy_values "$D/db/pvecg/pve-vm-9.0" 100 1
check "unix: one line when it was reachable" 1 "$(grep -c 'is reachable again' "$T/unix.log")"
for n in unix tcp; do
  check "$n: no other errors" "" "$(grep -iE 'error|fail|lost' "$T/$n.log" |
    grep -vE 'Cannot reach rrdcached|are lost: the daemon was unreachable' || true)"
done
finish
