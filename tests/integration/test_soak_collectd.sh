#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Churn soak of the real collectd with both plugins: thousands of intervals
# (Interval 0.02) while guests are removed, re-created under the same VMID
# and added back at random.  Each guest's memhost encodes its VMID and its
# generation, and every row is also written by collectd's csv plugin, so:
#   - no row carries another guest's numbers, or an older generation's;
#   - once every guest is back, every one of them has rows again;
#   - collectd's descriptors are exactly those it had before the churn, and
#     its resident memory has not grown beyond allocator noise.
# SOAK_SECONDS (default 40) sets the length.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
[ -f "$SYSTEM_PLUGIN_DIR/csv.so" ] || { echo "SKIP: no csv plugin"; exit 77; }

SECONDS_TOTAL=${SOAK_SECONDS:-40}
GUESTS=16
CG=$T/cgroup
STAGE=$T/stage
mkdir -p "$CG/qemu.slice" "$STAGE"
declare -A GEN

# make_guest VMID: a new generation of the guest, moved into place whole so
# the sampler never sees it half made.  memhost = VMID * 10^6 + generation.
make_guest() {
  local vmid=$1 g=$((${GEN[$1]:-0} + 1))
  GEN[$vmid]=$g
  qemu_guest "$STAGE" "$vmid" 0.10 0.00 0.00 0.00 0.00 0.00
  v2_memory "$STAGE/qemu.slice/$vmid.scope" $((vmid * 1000000 + g + 4096)) 4096
  mv "$STAGE/qemu.slice/$vmid.scope" "$CG/qemu.slice/$vmid.scope"
}
remove_guest() {
  mv "$CG/qemu.slice/$1.scope" "$STAGE/gone.$1"
  rm -r "$STAGE/gone.$1"
}
present() { [ -d "$CG/qemu.slice/$1.scope" ]; }

for ((i = 0; i < GUESTS; i++)); do make_guest $((100 + i)); done

write_conf "$T/collectd.conf" "
PluginDir \"$SYSTEM_PLUGIN_DIR\"
LoadPlugin csv
<Plugin csv>
  DataDir \"$T/csv\"
</Plugin>
$(plugin_blocks "$T/cgroup" "$T/data" 'PveConfigDir ""' 'Node false')"
sed -i 's/^Interval 1$/Interval 0.02/' "$T/collectd.conf"
start_collectd "$T/collectd.conf"
wait_for 20 has_update "$T/data/pve-vm-9.0/$((100 + GUESTS - 1))"
sleep 2

fds() { find "/proc/$COLLECTD_PID/fd" -mindepth 1 | wc -l; }
rss_kib() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$COLLECTD_PID/status"; }
FDS_BEFORE=$(fds)
RSS_BEFORE=$(rss_kib)

# The churn: a random guest goes, comes back as a new directory, or both.
end=$((SECONDS + SECONDS_TOTAL))
changes=0
while [ $SECONDS -lt $end ]; do
  vmid=$((100 + RANDOM % GUESTS))
  if present "$vmid"; then
    remove_guest "$vmid"
    [ $((RANDOM % 2)) -eq 0 ] && make_guest "$vmid"
  else
    make_guest "$vmid"
  fi
  changes=$((changes + 1))
  sleep 0.01
done
for ((i = 0; i < GUESTS; i++)); do present $((100 + i)) || make_guest $((100 + i)); done
RESTORED=$(date +%s.%N)
sleep 2
FDS_AFTER=$(fds)
RSS_AFTER=$(rss_kib)
stop_collectd

INTERVALS=$(awk -v s="$SECONDS_TOTAL" 'BEGIN { print int(s / 0.02) }')
echo "# $changes changes over about $INTERVALS intervals; fds $FDS_BEFORE -> $FDS_AFTER, RSS $RSS_BEFORE -> $RSS_AFTER KiB"
check "collectd's descriptors are those it had before" "$FDS_BEFORE" "$FDS_AFTER"
# glibc's arenas may keep a few pages; growth with the number of changes
# would be tens of MiB here.
check_true "RSS grew by less than 1 MiB" [ $((RSS_AFTER - RSS_BEFORE)) -lt 1024 ]

# Every csv row: memhost (column "memhost" of the type) must be this
# guest's, of a generation it had.  collectd's csv plugin creates a file
# with fopen("w") when stat() finds none, so two write threads writing a
# guest's first rows at once can truncate each other's lines: rows that are
# not whole (field count, epoch) are told apart, and allowed only among the
# first rows of a file.
bad=0 rows=0 late="" torn=0
for ((i = 0; i < GUESTS; i++)); do
  vmid=$((100 + i))
  file=$(ls "$T"/csv/testnode/pve_cgroup-$vmid/pve_vm_9_0-qemu-* 2>/dev/null | head -n 1)
  [ -n "$file" ] || { bad=$((bad + 1)); echo "no csv rows for $vmid"; continue; }
  read -r b r l t < <(awk -F, -v vmid="$vmid" -v gen="${GEN[$vmid]}" -v since="$RESTORED" '
    /^epoch,/ { w = NF; for (i = 1; i <= NF; i++) if ($i == "memhost") c = i; next }
    { n++ }
    NF != w || $1 !~ /^[0-9]+(\.[0-9]+)?$/ {
      t++; print "torn row " n " for " vmid ": " $0 > "/dev/stderr"
      if (n > 5) bad++
      next
    }
    $c != "nan" && $c != "" {
      v = $c + 0; g = v - vmid * 1000000
      if (g < 1 || g > gen) { bad++; print "wrong row for " vmid ": " $0 > "/dev/stderr" }
    }
    $1 > since + 0.5 && g == gen { late = 1 }
    END { print bad + 0, n + 0, late + 0, t + 0 }' "$file")
  bad=$((bad + b))
  torn=$((torn + t))
  rows=$((rows + r))
  [ "$l" == 1 ] || late="$late $vmid"
done
echo "# $rows rows checked, $torn torn by the csv plugin's file creation"
check "rows with another guest's or a future generation's memhost" 0 "$bad"
check "guests without a row of their last generation after the churn" "" "$late"
check_true "thousands of rows" [ "$rows" -gt 5000 ]
check "collectd logged no error" "" "$(grep -iE 'error|fail' "$T/collectd.log" | grep -v 'is missing\|no longer' || true)"
finish
