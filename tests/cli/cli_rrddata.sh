#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg rrddata against files this test fills with known rows through
# rrdtool: every timeframe's rows compared with two independent readings
# with the same -r/-s/-e (AVERAGE and MAX): the labels and values `rrdtool
# fetch` prints, and, byte for byte, what Proxmox's own reader makes of
# Perl's RRDs::fetch (rrds_rows.pl).  Also: the empty newest row dropped,
# the join with a legacy pve2-vm file (and its .old name) for every
# timeframe and at its exact boundary, a node file, and reading through a
# real rrdcached that still holds rows not written to the file.
set -euo pipefail

for tool in rrdtool jq perl; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
perl -MRRDs -e 1 2>/dev/null || { echo "SKIP: librrds-perl is not installed"; exit 77; }
HERE=$(cd "$(dirname "$0")" && pwd)
: "${PVECG:?}" "${LAYOUT_DEFS:?}"

T=$(mktemp -d)
DAEMON_PID=
cleanup() {
  if [ -n "$DAEMON_PID" ]; then
    kill -KILL "$DAEMON_PID" 2>/dev/null || true
    wait "$DAEMON_PID" 2>/dev/null || true
  fi
  rm -rf "$T"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

T0=1700002800 # a multiple of 1800: every archive's rows align with it
N=4320        # three days of minutes
VM=$T/data/pve-vm-9.0/100
mkdir -p "$T/data/pve-vm-9.0" "$T/data/pve2-vm" "$T/data/pve-node-9.0"

# make_file LAYOUT PATH START
make_file() {
  # shellcheck disable=SC2046 # one definition per line
  rrdtool create "$2" --start "$3" --step 60 $("$LAYOUT_DEFS" "$1")
}

# update_all PATH < rows: rrdtool update in batches of 500 rows.
update_all() {
  xargs -n 500 rrdtool update "$1"
}

# The 9.0 file: 17 columns that vary within every archive's row (so MAX
# differs from AVERAGE), U in some columns on some rows, counters for the
# DERIVE columns, and an all-unknown newest row.
make_file pve-vm-9.0 "$VM" "$T0"
awk -v t0="$T0" -v n="$N" 'BEGIN {
  for (i = 1; i < n; i++) {
    row = t0 + 60 * i
    row = row ":4:" (i % 7) / 8 ":8589934592:" 1048576 * (1000 + i % 37)
    row = row ":34359738368:0:" 300 * i ":" 600 * i
    row = row ":" (i % 17 == 0 ? "U" : 4096 * i) ":" 8192 * i
    row = row ":" (i % 13 == 0 ? "U" : 1048576 * (900 + i % 29))
    row = row ":" (i % 10) * 2.5 ":" (i % 11 == 0 ? "U" : i % 5)
    row = row ":" (i % 11 == 0 ? "U" : (i % 3) / 4) ":" i % 4 ":0:" (i % 9) * 0.25
    print row
  }
  printf "%d:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U\n", t0 + 60 * n
}' | update_all "$VM"

# ref_json PATH CF RESO START END: what `rrdtool fetch` gives, as rrddata
# rows ("time" = the label rrdtool prints, the end of the row's interval;
# unknown values left out), one JSON array.
ref_json() {
  rrdtool fetch "$1" "$2" -r "$3" -s "$4" -e "$5" | awk '
    NR == 1 { for (i = 1; i <= NF; i++) name[i] = $i; n = NF; next }
    /^[0-9]+:/ {
      t = substr($1, 1, length($1) - 1); rows[++r] = t; line[r] = ""
      for (i = 2; i <= NF; i++)
        if ($i !~ /nan/) line[r] = line[r] sprintf(",\"%s\":%s", name[i - 1], $i)
    }
    END {
      printf "["
      for (k = 1; k <= r; k++)
        printf "%s{\"time\":%d%s}", (k > 1 ? "," : ""), rows[k], line[k]
      printf "]\n"
    }'
}

# rrds_ref PATH CF RESO START END [node] [--daemon ADDRESS]: the rows
# Proxmox makes of RRDs::fetch, the newest left out when it holds no value
# (rrdtool's and Perl's text alike: `{"time":N}` alone).
rrds_ref() {
  perl "$HERE/rrds_rows.pl" "$@" | sed 's/,{"time":[0-9]*}\]$/]/'
}

# data_text FILE: the rows of a `pvecg rrddata` output as it printed them.
data_text() {
  sed -e 's/^{"data"://' -e 's/}$//' "$1"
}

# same_rows A B: equal times and keys; values equal to rrdtool's 11 digits.
same_rows() {
  jq -e -n --slurpfile a "$1" --slurpfile b "$2" '
    def close(x; y): (x - y | fabs) <= 1e-9 * ([(x | fabs), (y | fabs), 1] | max);
    ($a[0]) as $a | ($b[0]) as $b |
    ($a | length) == ($b | length) and
    ([range(0; $a | length) | . as $i |
      ($a[$i] | keys) == ($b[$i] | keys) and
      ($a[$i] | to_entries | all(close(.value; $b[$i][.key])))] | all)' \
    >/dev/null
}

# window RESO ROWS NOW: "START END" as the API computes them.
window() {
  local ctime=$(($1 * ($3 / $1)))
  echo "$((ctime - $1 * $2)) $((ctime - 1))"
}

# check_timeframe VMID NOW TIMEFRAME RESO ROWS CF [--ksm|--pressure]
check_timeframe() {
  local vmid=$1 now=$2 tf=$3 reso=$4 rows=$5 cf=$6 start end layout=pve-vm-9.0
  [ "${7:-}" != --ksm ] || layout=pvecg-ksm-vm-1.0
  [ "${7:-}" != --pressure ] || layout=pvecg-pressure-vm-1.0
  local file=$T/data/$layout/$vmid
  read -r start end <<<"$(window "$reso" "$rows" "$now")"
  "$PVECG" rrddata --timeframe "$tf" --cf "$cf" --vmid "$vmid" ${7:-} \
    --data-dir "$T/data" --now "$now" >"$T/out.json"
  jq '.data' "$T/out.json" >"$T/got.json"
  ref_json "$file" "$cf" "$reso" "$start" "$end" >"$T/ref_all.json"
  # the reference's newest row is empty: the API leaves it out
  if jq -e '.[-1] | keys == ["time"]' "$T/ref_all.json" >/dev/null; then
    jq '.[:-1]' "$T/ref_all.json" >"$T/ref.json"
  else
    cp "$T/ref_all.json" "$T/ref.json"
  fi
  same_rows "$T/got.json" "$T/ref.json" || fail "$tf $cf differs from rrdtool fetch"
  # the first row is labelled with the end of its interval
  [ "$(jq '.[0].time' "$T/got.json")" = "$((start + reso))" ] ||
    fail "$tf $cf: first row $(jq '.[0].time' "$T/got.json")"
  rrds_ref "$file" "$cf" "$reso" "$start" "$end" >"$T/rrds.json"
  data_text "$T/out.json" | cmp - "$T/rrds.json" >&2 ||
    fail "$tf $cf differs from RRDs::fetch"
  echo "ok $vmid $tf $cf: $(jq length "$T/got.json") rows"
}
NOW=$((T0 + 60 * N + 30))
for cf in AVERAGE MAX; do
  check_timeframe 100 "$NOW" hour 60 60 $cf
  check_timeframe 100 "$NOW" day 60 1440 $cf
  check_timeframe 100 "$NOW" week 1800 336 $cf
  check_timeframe 100 "$NOW" month 1800 1440 $cf
  check_timeframe 100 "$NOW" year 21600 1440 $cf
done

# The VM's KSM file (--ksm): the same rules, its own columns.
mkdir -p "$T/data/pvecg-ksm-vm-1.0"
make_file pvecg-ksm-vm-1.0 "$T/data/pvecg-ksm-vm-1.0/100" "$T0"
awk -v t0="$T0" -v n="$N" 'BEGIN { for (i = 1; i < n; i++)
  printf "%d:%d:%s:%d:%d\n", t0 + 60 * i, 1000 * (i % 97), (i % 9 == 0 ? "U" : i % 5),
    4096 * (i % 89) - 65536, 3072 * (i % 97) }' | update_all "$T/data/pvecg-ksm-vm-1.0/100"
for cf in AVERAGE MAX; do
  check_timeframe 100 "$NOW" hour 60 60 $cf --ksm
  check_timeframe 100 "$NOW" week 1800 336 $cf --ksm
done
[ "$(jq -c '.data[-1] | keys' "$T/out.json")" = '["ksmmerging","ksmprofit","ksmsaved","ksmzero","time"]' ] ||
  fail "--ksm: not the KSM file's columns: $(jq -c '.data[-1]' "$T/out.json")"

# The VM's stall-time file (--pressure): counters (DERIVE) whose rows are
# rates; one counter goes back (a new cgroup): an unknown row.  (%.0f:
# awk's %d stops at 2^31.)
mkdir -p "$T/data/pvecg-pressure-vm-1.0"
make_file pvecg-pressure-vm-1.0 "$T/data/pvecg-pressure-vm-1.0/100" "$T0"
awk -v t0="$T0" -v n="$N" 'BEGIN { for (i = 1; i < n; i++) {
  c = 60 * 250000 * i; if (i > n - 600) c = 60 * 1000 * (i - (n - 600))
  printf "%d:%.0f:0:%.0f:%.0f:%.0f:%.0f\n", t0 + 60 * i, c, 120000 * i, 60000 * i,
    60 * 999999 * i, 7 * i } }' | update_all "$T/data/pvecg-pressure-vm-1.0/100"
for cf in AVERAGE MAX; do
  check_timeframe 100 "$NOW" hour 60 60 $cf --pressure
  check_timeframe 100 "$NOW" day 60 1440 $cf --pressure
  check_timeframe 100 "$NOW" week 1800 336 $cf --pressure
done
[ "$(jq -c '.data[-1] | keys' "$T/out.json")" = '["stallcpufull","stallcpusome","stalliofull","stalliosome","stallmemoryfull","stallmemorysome","time"]' ] ||
  fail "--pressure: not the stall file's columns: $(jq -c '.data[-1]' "$T/out.json")"
"$PVECG" rrddata --timeframe day --vmid 100 --pressure --data-dir "$T/data" \
  --now "$NOW" >"$T/out.json"
[ "$(jq -c '[.data[] | select(.stallmemorysome != null)][-1].stallmemorysome' "$T/out.json")" = 999999 ] ||
  fail "--pressure: memory some is not 999999 µs/s: $(jq -c '.data[-1]' "$T/out.json")"
[ "$(jq -c '[.data[] | select(.stallcpusome == null) | .time]' "$T/out.json")" = "[$((T0 + 60 * (N - 599)))]" ] ||
  fail "--pressure: not one unknown row where the counter went back: $(jq -c '[.data[] | .stallcpusome]' "$T/out.json")"
[ "$(jq -c '[.data[] | select(.stallcpusome != null) | .stallcpusome] | unique' "$T/out.json")" = "[1000,250000]" ] ||
  fail "--pressure: cpu some not 250000 then 1000 µs/s: $(jq -c '[.data[] | .stallcpusome]' "$T/out.json")"
"$PVECG" rrddata --timeframe day --vmid 100 --pressure --ksm --data-dir "$T/data" \
  >/dev/null 2>"$T/err.txt" && fail "--pressure --ksm taken"
grep -q -- "--ksm and --pressure name different files" "$T/err.txt" ||
  fail "--pressure --ksm: $(cat "$T/err.txt")"

# VM 300: two weeks of minutes, so that a year row (6 hours) and a decade
# row (one week, from a Thursday 00:00 UTC) are whole; T0 + 90000 begins
# such a week.
LONG=$T/data/pve-vm-9.0/300
make_file pve-vm-9.0 "$LONG" "$T0"
awk -v t0="$T0" 'BEGIN {
  for (i = 1; i <= 20160; i++)
    printf "%d:2:%s:4294967296:%d:U:U:%d:%d:U:U:%d:U:U:U:U:U:%s\n", t0 + 60 * i,
      (i % 8) / 8, 1048576 * (2000 + i % 61), 120 * i, 240 * i,
      1048576 * (1500 + i % 53), (i % 5) / 4
}' | update_all "$LONG"
NOWL=$((T0 + 60 * 20160 + 30))
for cf in AVERAGE MAX; do
  check_timeframe 300 "$NOWL" year 21600 1440 $cf
  check_timeframe 300 "$NOWL" decade 604800 570 $cf
done
# the decade's newest row is the whole week (T0 + 90000, T0 + 694800]
"$PVECG" rrddata --timeframe decade --vmid 300 --data-dir "$T/data" --now "$NOWL" |
  jq -c '[(.data | length), .data[-1].time, .data[-1].cpu, .data[-1].netin]' |
  grep -qxF "[570,$((T0 + 694800)),0.4375,2]" || fail "decade newest row"

# hour: exact text of the newest rows (the all-unknown row at N is gone):
# the row labelled T0 + 60*i (it ends there) holds update i; diskread is unknown
# after its U at i = 4318 (17 * 254) and in the rate that follows it.
"$PVECG" rrddata --timeframe hour --vmid 100 --data-dir "$T/data" --now "$NOW" \
  | jq -c '.data[-2:]' >"$T/tail.json"
cat >"$T/tail.expected" <<EOF
[{"time":$((T0 + 60 * 4318)),"maxcpu":4,"cpu":0.75,"maxmem":8589934592,"mem":1075838976,"maxdisk":34359738368,"disk":0,"netin":5,"netout":10,"diskwrite":136.533333333333,"memhost":970981376,"pressurecpusome":20,"pressurecpufull":3,"pressureiosome":0.25,"pressureiofull":2,"pressurememorysome":0,"pressurememoryfull":1.75},{"time":$((T0 + 60 * 4319)),"maxcpu":4,"cpu":0,"maxmem":8589934592,"mem":1076887552,"maxdisk":34359738368,"disk":0,"netin":5,"netout":10,"diskwrite":136.533333333333,"memhost":972029952,"pressurecpusome":22.5,"pressurecpufull":4,"pressureiosome":0.5,"pressureiofull":3,"pressurememorysome":0,"pressurememoryfull":2}]
EOF
diff -u "$T/tail.expected" "$T/tail.json" || fail "hour: newest rows"
# the whole output is exactly one line of {"data":[...]}
"$PVECG" rrddata --timeframe hour --vmid 100 --data-dir "$T/data" --now "$NOW" >"$T/raw"
[ "$(wc -l <"$T/raw")" -eq 1 ] && [ "$(head -c 9 "$T/raw")" = '{"data":[' ] ||
  fail "output shape"
# --file names the same file
"$PVECG" rrddata --timeframe hour --file "$VM" --now "$NOW" | cmp - "$T/raw" ||
  fail "--file differs from --vmid"

# ---- the legacy join --------------------------------------------------------
# VM 200: a 9.0 file from T0 (6 hours of rows, the last all unknown) and a
# pve2-vm file of the day before, last updated at L = T0 + 900.  The day
# view at NOWJ reaches back to T0 - 64800 < L, so the legacy file is read
# (-r 1800 -s CTIME' - 1800*70 -e L) and the 9.0 file from L on.
NEW=$T/data/pve-vm-9.0/200 OLD=$T/data/pve2-vm/200
L=$((T0 + 900)) NOWJ=$((T0 + 21630))
make_file pve-vm-9.0 "$NEW" "$T0"
awk -v t0="$T0" 'BEGIN {
  for (i = 1; i < 360; i++)
    printf "%d:2:%s:4294967296:2147483648:U:U:U:U:U:U:1000000:U:U:U:U:U:U\n",
      t0 + 60 * i, (i % 4) / 4
  printf "%d:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U\n", t0 + 21600
}' | update_all "$NEW"
make_file pve2-vm "$OLD" $((T0 - 86400))
awk -v t0=$((T0 - 86400)) 'BEGIN {
  for (i = 1; i <= 1455; i++)
    printf "%d:2:%s:4294967296:1073741824:U:U:%d:U:U:U\n",
      t0 + 60 * i, 0.125 + (i % 2) / 4, 6000 * i
}' | update_all "$OLD"
[ "$(rrdtool last "$OLD")" = "$L" ] || fail "legacy file's last update"

# The timeframe tables, "RESO ROWS": PVE 9's for 9.0 files, and pve2's
# for legacy files, where decade reads as year (Proxmox's own code has no
# pve2 decade and fails; see pvecg-rrddata(1)).
span_9_0() {
  case $1 in
  hour) echo 60 60 ;; day) echo 60 1440 ;; week) echo 1800 336 ;;
  month) echo 1800 1440 ;; year) echo 21600 1440 ;; decade) echo 604800 570 ;;
  esac
}
span_pve2() {
  case $1 in
  hour) echo 60 60 ;; day) echo 1800 70 ;; week) echo 10800 70 ;;
  month) echo 43200 70 ;; year | decade) echo 604800 70 ;;
  esac
}

# joined REF OLD_ROWS NEW_ROWS OLD_RESO NEW_RESO: the legacy rows that begin
# before the first 9.0 row begins, then the 9.0 rows, without an empty
# newest row; in jq's compact text.
joined() {
  jq -c -n --slurpfile o "$2" --slurpfile c "$3" --argjson ro "$4" --argjson rn "$5" '
    ($o[0]) as $o | ($c[0]) as $c |
    (if ($c | length) > 0 then $c[0].time - $rn else null end) as $first |
    ($o | map(select($first == null or .time - $ro < $first))) as $o |
    if ($c | length) > 0 and ($c[-1] | keys) == ["time"] then $o + $c[:-1]
    elif ($c | length) == 0 and ($o | length) > 0 and ($o[-1] | keys) == ["time"]
    then $o[:-1] else $o + $c end' >"$1"
}

# check_join TIMEFRAME CF: VM 200 at NOWJ against rrdtool fetch and
# RRDs::fetch of both files with the fetch arguments of the plan.
check_join() {
  local tf=$1 cf=$2 reso rows start end oreso orows ostart oend
  read -r reso rows <<<"$(span_9_0 "$tf")"
  read -r start end <<<"$(window "$reso" "$rows" "$NOWJ")"
  read -r oreso orows <<<"$(span_pve2 "$tf")"
  read -r ostart oend <<<"$(window "$oreso" "$orows" "$NOWJ")"
  [ "$start" -lt "$L" ] || fail "$tf: the legacy file is not needed"
  # the legacy part up to L, the 9.0 part from L (neither start after its end)
  oend=$L start=$L
  [ "$ostart" -le "$oend" ] || ostart=$oend
  [ "$start" -le "$end" ] || start=$end
  "$PVECG" rrddata --timeframe "$tf" --cf "$cf" --vmid 200 --data-dir "$T/data" \
    --now "$NOWJ" | jq -c '.data' >"$T/got.json"
  ref_json "$OLD" "$cf" "$oreso" "$ostart" "$oend" >"$T/ref_old.json"
  ref_json "$NEW" "$cf" "$reso" "$start" "$end" >"$T/ref_new.json"
  joined "$T/ref.json" "$T/ref_old.json" "$T/ref_new.json" "$oreso" "$reso"
  same_rows "$T/got.json" "$T/ref.json" || fail "join $tf $cf differs from rrdtool fetch"
  perl "$HERE/rrds_rows.pl" "$OLD" "$cf" "$oreso" "$ostart" "$oend" >"$T/rrds_old.json"
  perl "$HERE/rrds_rows.pl" "$NEW" "$cf" "$reso" "$start" "$end" >"$T/rrds_new.json"
  joined "$T/rrds.json" "$T/rrds_old.json" "$T/rrds_new.json" "$oreso" "$reso"
  cmp "$T/got.json" "$T/rrds.json" >&2 || fail "join $tf $cf differs from RRDs::fetch"
  echo "ok join $tf $cf: $(jq length "$T/got.json") rows"
}
for tf in day week month year decade; do
  check_join $tf AVERAGE
  check_join $tf MAX
done
# day: 59 legacy rows, labelled from CTIME' - 1800*69 to T0 + 1800 (the
# row (T0, T0 + 1800] begins before the first 9.0 row (L, L + 60] and is
# kept, as in Proxmox, though its label is later), then 9.0 rows from L + 60
# up to the last full row, T0 + 21540 (before the empty newest row)
"$PVECG" rrddata --timeframe day --vmid 200 --data-dir "$T/data" --now "$NOWJ" |
  jq -c '.data | [length, .[0].time, .[58].time, .[59].time, .[-1].time]' |
  grep -qxF "[403,$((T0 - 102600)),$((T0 + 1800)),$((L + 60)),$((T0 + 21540))]" ||
  fail "join: row times"
"$PVECG" rrddata --timeframe day --vmid 200 --data-dir "$T/data" --now "$NOWJ" |
  jq -c '.data[56,57,58,59,60]' >"$T/boundary.json"
# the legacy rows up to T0 average 0.125 and 0.375 alternately; the row
# (T0, T0 + 1800] is not consolidated in the legacy file yet; update 16 of
# the 9.0 file (cpu 0) is the first 9.0 row.
cat >"$T/boundary.expected" <<EOF
{"time":$((T0 - 1800)),"maxcpu":2,"cpu":0.25,"maxmem":4294967296,"mem":1073741824,"netin":100}
{"time":$T0,"maxcpu":2,"cpu":0.25,"maxmem":4294967296,"mem":1073741824,"netin":100}
{"time":$((T0 + 1800))}
{"time":$((L + 60)),"maxcpu":2,"cpu":0,"maxmem":4294967296,"mem":2147483648,"memhost":1000000}
{"time":$((L + 120)),"maxcpu":2,"cpu":0.25,"maxmem":4294967296,"mem":2147483648,"memhost":1000000}
EOF
diff -u "$T/boundary.expected" "$T/boundary.json" || fail "join boundary"
"$PVECG" rrddata --timeframe day --cf MAX --vmid 200 --data-dir "$T/data" \
  --now "$NOWJ" | jq -c '.data[57].cpu' | grep -qx 0.375 || fail "join MAX value"

# the same from the migrated name, <vmid>.old
"$PVECG" rrddata --timeframe day --vmid 200 --data-dir "$T/data" --now "$NOWJ" >"$T/join"
mv "$OLD" "$OLD.old"
"$PVECG" rrddata --timeframe day --vmid 200 --data-dir "$T/data" --now "$NOWJ" |
  cmp - "$T/join" || fail "join from 200.old"
# an hour view starts after L: the legacy file is not read
"$PVECG" rrddata --timeframe hour --vmid 200 --data-dir "$T/data" --now "$NOWJ" |
  jq -c '[.data[0].time, (.data | length)]' | grep -qx "\[$((T0 + 18060)),59\]" ||
  fail "hour view with a legacy file"
mv "$OLD.old" "$OLD"

# ---- a node file ----------------------------------------------------------
NODE=$T/data/pve-node-9.0/n1
make_file pve-node-9.0 "$NODE" "$T0"
awk -v t0="$T0" 'BEGIN {
  for (i = 1; i <= 90; i++)
    printf "%d:%s:8:0.5:0.125:68719476736:%d:U:U:1000000:500000:%d:%d:17179869184:0:1:2:3:4:5\n",
      t0 + 60 * i, i / 100, 1073741824 + 4096 * i, 600 * i, 1200 * i
}' | update_all "$NODE"
"$PVECG" rrddata --timeframe hour --node n1 --data-dir "$T/data" \
  --now $((T0 + 5430)) | jq '.data' >"$T/got.json"
ref_json "$NODE" AVERAGE 60 $((T0 + 5400 - 3600)) $((T0 + 5399)) >"$T/ref.json"
same_rows "$T/got.json" "$T/ref.json" || fail "node hour"
"$PVECG" rrddata --timeframe hour --node n1 --data-dir "$T/data" \
  --now $((T0 + 5430)) >"$T/out.json"
rrds_ref "$NODE" AVERAGE 60 $((T0 + 5400 - 3600)) $((T0 + 5399)) node |
  cmp - <(data_text "$T/out.json") >&2 || fail "node hour differs from RRDs::fetch"
jq -c '.[-1]' "$T/got.json" | grep -qxF "{\"time\":$((T0 + 5400)),\"loadavg\":0.9,\"maxcpu\":8,\"cpu\":0.5,\"iowait\":0.125,\"memtotal\":68719476736,\"memused\":1074110464,\"roottotal\":1000000,\"rootused\":500000,\"netin\":10,\"netout\":20,\"memavailable\":17179869184,\"arcsize\":0,\"pressurecpusome\":1,\"pressureiosome\":2,\"pressureiofull\":3,\"pressurememorysome\":4,\"pressurememoryfull\":5}" ||
  fail "node newest row: $(jq -c '.[-1]' "$T/got.json")"
echo "ok node"

# ---- through rrdcached ----------------------------------------------------
# One daemon on a unix socket and on TCP.  Rows sent to the daemon stay in its cache (-w 3600); read through it they
# are there (the newest row, update 365, is labelled T0 + 60*365), read from
# the file they are not yet (only empty rows, the newest of them dropped).
if command -v rrdcached >/dev/null; then
  PORT=$("$(dirname "$0")/../helpers/free_port")
  rrdcached -g -l "unix:$T/sock" -l "127.0.0.1:$PORT" -b "$T/data" -B \
    -p "$T/rrdcached.pid" -w 3600 -z 1 >"$T/rrdcached.out" 2>&1 &
  DAEMON_PID=$!
  for _ in $(seq 100); do
    [ -S "$T/sock" ] && (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
    sleep 0.05
  done
  [ -S "$T/sock" ] || fail "rrdcached does not start: $(cat "$T/rrdcached.out")"
  for i in 361 362 363 364 365; do
    rrdtool update --daemon "unix:$T/sock" "$NEW" \
      "$((T0 + 60 * i)):2:0.5:4294967296:2147483648:U:U:U:U:U:U:$i:U:U:U:U:U:U"
  done
  NOWD=$((T0 + 60 * 365 + 30))
  "$PVECG" rrddata --timeframe hour --vmid 200 --data-dir "$T/data" --now "$NOWD" |
    jq -c '.data[-1]' | grep -qxF "{\"time\":$((T0 + 60 * 364))}" ||
    fail "rows not flushed are already in the file"
  "$PVECG" rrddata --timeframe hour --vmid 200 --data-dir "$T/data" \
    --daemon "unix:$T/sock" --now "$NOWD" | jq '.data' >"$T/got.json"
  ref_json "$NEW" AVERAGE 60 $((T0 + 60 * 365 - 3600)) $((T0 + 60 * 365 - 1)) >"$T/ref.json"
  same_rows "$T/got.json" "$T/ref.json" || fail "through rrdcached"
  # Proxmox reads through the daemon too (--daemon unix:...)
  "$PVECG" rrddata --timeframe hour --vmid 200 --data-dir "$T/data" \
    --daemon "unix:$T/sock" --now "$NOWD" >"$T/out.json"
  rrds_ref "$NEW" AVERAGE 60 $((T0 + 60 * 365 - 3600)) $((T0 + 60 * 365 - 1)) \
    --daemon "unix:$T/sock" | cmp - <(data_text "$T/out.json") >&2 ||
    fail "through rrdcached differs from RRDs::fetch"
  jq -c '.[-2:]' "$T/got.json" | grep -qxF "[{\"time\":$((T0 + 60 * 364)),\"maxcpu\":2,\"cpu\":0.5,\"maxmem\":4294967296,\"mem\":2147483648,\"memhost\":364},{\"time\":$((T0 + 60 * 365)),\"maxcpu\":2,\"cpu\":0.5,\"maxmem\":4294967296,\"mem\":2147483648,\"memhost\":365}]" ||
    fail "rows through rrdcached: $(jq -c '.[-2:]' "$T/got.json")"
  # over TCP the daemon reads the file (its path relative to the daemon's
  # base directory) and picks the archive: the finest that covers the
  # window, which for these layouts is the timeframe's resolution.  The
  # legacy file cannot be looked at that way: compared without it.
  "$PVECG" rrddata --timeframe hour --vmid 200 --daemon "127.0.0.1:$PORT" \
    --now "$NOWD" | jq '.data' | cmp - "$T/got.json" || fail "hour over TCP"
  mv "$OLD" "$OLD.away"
  "$PVECG" rrddata --timeframe week --vmid 200 --data-dir "$T/data" \
    --daemon "unix:$T/sock" --now "$NOWD" >"$T/week"
  mv "$OLD.away" "$OLD"
  "$PVECG" rrddata --timeframe week --vmid 200 --daemon "127.0.0.1:$PORT" \
    --now "$NOWD" | cmp - "$T/week" || fail "week over TCP"
  [ "$(jq '.data | length' "$T/week")" = 336 ] || fail "week rows"
  echo "ok rrdcached"
else
  echo "no rrdcached: reading through it not tested"
fi

# ---- errors ---------------------------------------------------------------
set +e
"$PVECG" rrddata --timeframe hour --vmid 999 --data-dir "$T/data" 2>"$T/err"
rc=$?
set -e
[ $rc -eq 1 ] && grep -q "pve-vm-9.0/999" "$T/err" || fail "missing file: rc $rc"
for bad in "--timeframe hours --vmid 100" "--timeframe hour --vmid 99" \
  "--timeframe hour --node ../x" "--timeframe hour" "--vmid 100" \
  "--timeframe hour --vmid 100 --node n1" "--timeframe hour --vmid 100 --cf MIN" \
  "--timeframe hour --vmid 100 --now 12x"; do
  set +e
  # shellcheck disable=SC2086 # the words are the arguments
  "$PVECG" rrddata $bad --data-dir "$T/data" >/dev/null 2>&1
  rc=$?
  set -e
  [ $rc -eq 2 ] || fail "'$bad' gives $rc, not 2"
done
"$PVECG" rrddata --help | grep -q "^usage: pvecg rrddata" || fail "--help"
echo "ok errors"
