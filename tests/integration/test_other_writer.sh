#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pve_rrd next to pmxcfs (the Proxmox VE node example of docs/node.md),
# with a stand-in for pmxcfs updating PVE's own pve-vm-9.0/100 through the
# same rrdcached every second.  As configured, pve_rrd never touches PVE's
# files.  Misconfigured onto PVE's directory, it does not fight: one error
# names the file and pmxcfs, pmxcfs's updates all keep succeeding, none of
# our rows lands in that file while pmxcfs writes it, the other guests'
# files are written as usual, and once pmxcfs stops, one line says the file
# is written again.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"

EX_DAEMON=$T/rrdcached
start_rrdcached "$EX_DAEMON"
SOCK=unix:$EX_DAEMON/sock
PVE=$EX_DAEMON/db/pve-vm-9.0
deploy_fixture "$T/cgroup" 100 1

# PVE's file of guest 100, in PVE's layout, and pmxcfs updating it.
mkdir -p "$PVE"
ds=""
for d in maxcpu cpu maxmem mem maxdisk disk netin:DERIVE netout:DERIVE \
  diskread:DERIVE diskwrite:DERIVE memhost pressurecpusome pressurecpufull \
  pressureiosome pressureiofull pressurememorysome pressurememoryfull; do
  [[ $d == *:* ]] || d=$d:GAUGE
  ds="$ds DS:${d%:*}:${d#*:}:120:0:U"
done
# shellcheck disable=SC2086
rrdtool create "$PVE/100" --step 60 --start "$(date -d 'today 00:00' +%s)" $ds \
  RRA:AVERAGE:0.5:1:1440 RRA:AVERAGE:0.5:30:1440 RRA:AVERAGE:0.5:360:1440 \
  RRA:AVERAGE:0.5:10080:570 RRA:MAX:0.5:1:1440 RRA:MAX:0.5:30:1440 \
  RRA:MAX:0.5:360:1440 RRA:MAX:0.5:10080:570
pmxcfs() { # rows 2 s ahead of the clock, mem = 777, until $T/pmxcfs.stop
  while [ ! -e "$T/pmxcfs.stop" ]; do
    if rrdtool update --daemon "$SOCK" "$PVE/100" \
      "$(($(date +%s) + 2)):U:U:U:777:U:U:U:U:U:U:U:U:U:U:U:U:U" 2>>"$T/pmxcfs.err"; then
      echo ok >>"$T/pmxcfs.ok"
    fi
    sleep 1
  done
}
pmxcfs &
PMXCFS=$!
at_exit "touch '$T/pmxcfs.stop'; wait $PMXCFS"

# rows of PVE's file by who wrote them: "theirs" (mem 777) or "ours"
rows_of_100() {
  cat "$EX_DAEMON"/journal/rrd.journal.* 2>/dev/null | awk -v p="$PVE/100" -v who="$1" '
    $1 == "update" && $2 == p { split($3, f, ":")
      if (n && f[1] <= last) next; n++; last = f[1]
      if ((f[5] == 777) == (who == "theirs")) print f[1] }'
}

echo "# as documented: a directory of our own"
{ example_conf pve-node collectd; fixture_cgroup_block "$T/cgroup"; } >"$T/collectd.conf"
start_collectd_as collectd "$T/collectd.conf"
COLLECTD_PID=$(cat "$T/collectd.pid")
wait_for 20 test -f "$EX_DAEMON/db/pvecg/pve-vm-9.0/200"
sleep 2
COLLECTD_PID=
stop_collectd_as collectd
check "our files in our directory" "100 101 200" "$(ls "$EX_DAEMON/db/pvecg/pve-vm-9.0" | sort -n | xargs)"
check "PVE's directory holds only PVE's file" "100" "$(ls "$PVE" | xargs)"
check "nothing of ours in PVE's file" "" "$(rows_of_100 ours)"
check "no word of another writer" 0 "$(grep -c 'Another writer' "$T/collectd.log" || true)"

echo "# misconfigured onto PVE's directory"
mv "$T/collectd.log" "$T/first.log"
sed -i "s|DataDir \".*\"|DataDir \"$EX_DAEMON/db\"\n  RecheckInterval 3|" "$T/collectd.conf"
start_collectd_as collectd "$T/collectd.conf"
COLLECTD_PID=$(cat "$T/collectd.pid")
wait_for 20 grep -q 'Another writer is updating' "$T/collectd.log"
sleep 4 # pmxcfs goes on: the file stays held, silently
touch "$T/pmxcfs.stop"
wait "$PMXCFS"
stopped=$(date +%s)
wait_for 20 grep -q "$PVE/100 is written again" "$T/collectd.log"
sleep 1
COLLECTD_PID=
stop_collectd_as collectd
stop_rrdcached "$EX_DAEMON"

check "one error for PVE's file" 1 "$(grep -c "Another writer is updating $PVE/100" "$T/collectd.log")"
check_true "it names pmxcfs as the likely cause" grep -q "On a Proxmox VE node this is pmxcfs" "$T/collectd.log"
check "pmxcfs's updates all succeeded" "" "$(cat "$T/pmxcfs.err" 2>/dev/null)"
check_true "pmxcfs kept writing while pve_rrd held back" test "$(wc -l <"$T/pmxcfs.ok")" -ge 5
last_theirs=$(rows_of_100 theirs | tail -1)
check_true "none of our rows while pmxcfs wrote (theirs until $last_theirs)" \
  test -z "$(rows_of_100 ours | awk -v l="$last_theirs" '$1 <= l')"
check_true "ours again after pmxcfs stopped" test -n "$(rows_of_100 ours)"
check "one line when it is written again" 1 "$(grep -c "$PVE/100 is written again" "$T/collectd.log")"
check_true "the other guests were written meanwhile" \
  test "$(journal_times "$EX_DAEMON" "$PVE/101" | awk -v s="$stopped" '$1 < s' | wc -l)" -ge 3
check "no other errors" "" \
  "$(grep -iE 'error|fail' "$T/collectd.log" | grep -v "Another writer is updating $PVE/100" || true)"
finish
