#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The churn soak of docs/performance.md: the real collectd with both
# plugins (defaults, Interval 1) writing through rrdcached, STANDING guests
# that stay and ROUNDS rounds in which the CHURN guests of the round before
# go and CHURN new ones (VMIDs never seen before) come, ROUND_SECONDS apart.
# After the last round the churned guests go too.  Prints collectd's
# resident memory (VmRSS) and open descriptors at each round, then one line
#
#   churn: rss_start=KiB rss_middle=KiB rss_end=KiB fds_standing=N fds_end=N
#          cached_end=N first_round_on_disk=N
#
# The rounds measured follow a warm-up of the same churn that lasts past
# a minute's turn and at least WARMUP seconds: what a gone guest leaves is
# let go 30 to 40 s later (its files' entries in the store, its owner), and
# at each minute's turn every guest there is sends its once-a-minute rows
# (stall time, KSM) at once, whose burst sets the heap's high-water mark.
# Both are reached once and then hold: a soak that measured from the
# first round would measure them, not what stays.
# start: after the first round measured, middle: after round ROUNDS/2,
# end: after the last; fds_standing with only the standing guests before the churn,
# fds_end once the churned guests are gone again, and cached_end the
# identifiers in collectd's value cache then (LISTVAL), and
# first_round_on_disk how many of the first round's guests have their rows
# in their files on disk (flushed once let go).  Memory kept per
# guest ever seen grows from the middle to the end by CHURN * ROUNDS/2
# times it.
#
# The once-a-minute files of a guest gone are let go later (after four
# missed rows, 4 min; collectd's value cache their identifiers after two):
# a guest there at a minute's turn leaves them for that long, 50 guests
# a minute here.  ROUNDS=300 measures well past that.
#
# usage: bench/churn_soak.sh [BUILD_DIR]                     (build)
# environment: ROUNDS (40), CHURN (50), STANDING (200), ROUND_SECONDS (2),
#   WARMUP (45 s, and a minute's turn),
#   PVE_CGROUP_LINES (extra lines for pve_cgroup's block, e.g. "KSM false"),
#   COLLECTD_WRAPPER (a command put before collectd, e.g. "heaptrack -o F"),
#   PLUGIN_DIR (the plugins, default BUILD_DIR/plugin), KEEP_TMP (keep the
#   temporary directory).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
export PLUGIN_DIR=${PLUGIN_DIR:-$BUILD/plugin}
ROUNDS=${ROUNDS:-40}
CHURN=${CHURN:-50}
STANDING=${STANDING:-200}
ROUND_SECONDS=${ROUND_SECONDS:-2}
WARMUP=${WARMUP:-45}
. "$ROOT/tests/integration/lib.sh"
. "$ROOT/tests/integration/fixture.sh"

CG=$T/cgroup
STAGE=$T/stage
mkdir -p "$CG/qemu.slice" "$STAGE"

# A guest's files (fixture.sh's, made once as a template) are copied
# beside the tree and moved in whole, so the sampler never sees one half
# made; one perl for a round's guests keeps a round within its seconds.
qemu_guest "$T/template" 0 0.10 0.00 0.00 0.00 0.00 0.00
v2_memory "$T/template/qemu.slice/0.scope" 1073741824 4096
make_guests() {
  perl -e '
    my ($tmpl, $stage, $cg, @vmids) = @ARGV;
    opendir(my $d, $tmpl) or die "$tmpl: $!";
    my %file;
    for my $f (grep { !/^\./ } readdir $d) {
      open(my $in, "<", "$tmpl/$f") or die; local $/; $file{$f} = <$in>;
    }
    for my $v (@vmids) {
      my $g = "$stage/$v.scope";
      mkdir $g or die "$g: $!";
      for my $f (keys %file) {
        open(my $out, ">", "$g/$f") or die; print $out $file{$f}; close $out;
      }
      rename $g, "$cg/qemu.slice/$v.scope" or die "$v: $!";
    }' "$T/template/qemu.slice/0.scope" "$STAGE" "$CG" "$@"
}
remove_guests() {
  local paths=("${@/#/$CG/qemu.slice/}")
  mkdir "$STAGE/gone"
  mv "${paths[@]/%/.scope}" "$STAGE/gone/"
  rm -r "$STAGE/gone"
}

make_guests $(seq 100 $((100 + STANDING - 1)))

start_rrdcached "$T/rrdcached"
write_conf "$T/collectd.conf" "
<Plugin pve_cgroup>
  CgroupRoot \"$CG\"
  MemoryCgroupRoot \"\"
$(printf '%s\n' "${PVE_CGROUP_LINES:-}")
</Plugin>
<Plugin pve_rrd>
  DataDir \"$T/rrdcached/db/pvecg\"
  DaemonAddress \"unix:$T/rrdcached/sock\"
</Plugin>
PluginDir \"$SYSTEM_PLUGIN_DIR\"
LoadPlugin unixsock
<Plugin unixsock>
  SocketFile \"$T/collectd.sock\"
</Plugin>"
${COLLECTD_WRAPPER:-} "$COLLECTD" -f -C "$T/collectd.conf" >"$T/collectd.stdout" 2>&1 &
COLLECTD_PID=$!
wait_for 60 test -f "$T/rrdcached/db/pvecg/pve-vm-9.0/$((100 + STANDING - 1))"
sleep 3

# The pid whose memory counts: collectd itself, under a wrapper too.
collectd_pid() {
  local p
  p=$(pgrep -P "$COLLECTD_PID" -x collectd 2>/dev/null | head -n 1 || true)
  echo "${p:-$COLLECTD_PID}"
}
PID=$(collectd_pid)
fds() { find "/proc/$PID/fd" -mindepth 1 | wc -l; }
rss_kib() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$PID/status"; }
FDS_STANDING=$(fds)
echo "# $STANDING standing guests: $FDS_STANDING fds, RSS $(rss_kib) KiB"

next=$((100 + STANDING))
CHURN_START=$(date +%s)
churned=()
churn_round() { # the guests of the round before go, CHURN new ones come
  [ ${#churned[@]} -eq 0 ] || remove_guests "${churned[@]}"
  churned=($(seq $next $((next + CHURN - 1))))
  make_guests "${churned[@]}"
  next=$((next + CHURN))
  sleep "$ROUND_SECONDS"
}
warm_until=$((CHURN_START + WARMUP))
minute_turn=$(((CHURN_START / 60 + 1) * 60 + 5)) # its rows written too
[ "$minute_turn" -le "$warm_until" ] || warm_until=$minute_turn
while [ "$(date +%s)" -lt "$warm_until" ]; do churn_round; done
echo "# warm-up: $((next - 100)) guests seen, $(fds) fds, RSS $(rss_kib) KiB"
for ((round = 1; round <= ROUNDS; round++)); do
  churn_round
  rss=$(rss_kib)
  echo "# round $round: $((next - 100)) guests seen, $(fds) fds, RSS $rss KiB"
  [ $round -eq 1 ] && RSS_START=$rss
  [ $round -eq $((ROUNDS / 2)) ] && RSS_MIDDLE=$rss
  RSS_END=$rss
done
remove_guests "${churned[@]}"
sleep 3
FDS_END=$(fds)
# collectd's value cache: an entry per value list identifier
unixsock "$T/collectd.sock" LISTVAL >"$T/listval"
CACHED=$(awk 'NR == 1 { n = $1 } END { print n }' "$T/listval")
# The first round's guests went long ago: their rows are on disk, not
# only in rrdcached's cache (which writes after 300 s by default).
flushed=0
for ((v = 100 + STANDING; v < 100 + STANDING + CHURN; v++)); do
  f=$T/rrdcached/db/pvecg/pve-vm-9.0/$v
  if [ -f "$f" ] && [ "$(rrdtool last "$f")" -ge "$CHURN_START" ]; then
    flushed=$((flushed + 1))
  fi
done
echo "churn: rss_start=$RSS_START rss_middle=$RSS_MIDDLE rss_end=$RSS_END" \
  "fds_standing=$FDS_STANDING fds_end=$FDS_END cached_end=$CACHED" \
  "first_round_on_disk=$flushed"
kill -TERM "$PID" # collectd itself: a wrapper finishes after it
wait "$COLLECTD_PID" || true
COLLECTD_PID=
errors=$(grep -ciE 'error' "$T/collectd.log" || true)
echo "# collectd logged $errors error lines"
