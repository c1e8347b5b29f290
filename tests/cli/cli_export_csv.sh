#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg export --format csv against a file this test fills with known rows
# through rrdtool: every exported row compared with an independent reading
# by `rrdtool fetch` of the archive it must come from (the minute rows of
# the last day, the 30-minute rows before them), for AVERAGE and MAX, with
# --since/--until, --all over a data directory with files that must be
# left out, JSON and line protocol for exact rows, the join with a legacy
# pve2-vm file, reading through rrdcached, and the errors: another layout, a missing file, bad options.
set -euo pipefail

command -v rrdtool >/dev/null || { echo "SKIP: rrdtool is not installed"; exit 77; }
: "${PVECG:?}" "${LAYOUT_DEFS:?}"

T=$(mktemp -d)
DAEMON=
cleanup() {
  if [ -n "$DAEMON" ]; then
    kill -KILL "$DAEMON" 2>/dev/null || true
    wait "$DAEMON" 2>/dev/null || true
  fi
  rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

D=$T/data
mkdir -p "$D/pve-vm-9.0" "$D/pve-node-9.0"
T0=1700002800 # a multiple of 1800
N=4320        # three days of minutes
LAST=$((T0 + 60 * N))

make_file() { # LAYOUT PATH START
  # shellcheck disable=SC2046 # one definition per line
  rrdtool create "$2" --start "$3" --step 60 $("$LAYOUT_DEFS" "$1")
}

# 17 columns: maxcpu 4, cpu in quarters, maxmem, mem with U on every 13th
# row, netin a counter (rate 5/s), memhost growing, pressures in halves
# and U on every 11th row; the rest U.
make_file pve-vm-9.0 "$D/pve-vm-9.0/100" "$T0"
awk -v t0="$T0" -v n="$N" 'BEGIN {
  for (i = 1; i <= n; i++) {
    printf "%d:4:%s:8589934592:%s:U:U:%d:U:U:U:%d:%s:U:%s:U:U:U\n", t0 + 60 * i,
      (i % 4) / 4, (i % 13 == 0 ? "U" : 1048576 * (i % 50)), 300 * i,
      1024 * i, (i % 10) / 2, (i % 11 == 0 ? "U" : (i % 6) / 2)
  }
}' | xargs -n 500 rrdtool update "$D/pve-vm-9.0/100"

# csv_values FILE: the data rows as "time,v,v,..." with every value in
# rrdtool fetch's %.10e form (empty for unknown), the file column dropped.
csv_values() {
  awk -F, 'NR > 1 {
    line = $2
    for (i = 3; i <= NF; i++)
      line = line "," ($i == "" ? "" : sprintf("%.10e", $i))
    print line
  }' "$1"
}

# fetch_values CF RESO START END: the same form from rrdtool fetch for the
# rows ending in (START, END] (rrdtool prints one row past END too), rows
# whose values are all unknown left out.
fetch_values() {
  rrdtool fetch "$D/pve-vm-9.0/100" "$1" -r "$2" -s "$3" -e "$4" |
    awk -v end="$4" 'NR > 2 {
      t = $1; sub(":", "", t); line = t; known = 0
      if (t + 0 > end + 0) next
      for (i = 2; i <= NF; i++) {
        if ($i ~ /nan/) { line = line "," } else { line = line "," $i; known++ }
      }
      if (known) print line
    }'
}

# The rule: the minute archive's 1440 rows end at LAST; 30-minute rows
# are taken up to the start of the first of them.
FINE_START=$((LAST - 1440 * 60))
COARSE_END=$((FINE_START / 1800 * 1800))
for cf in AVERAGE MAX; do
  "$PVECG" export --format csv --vmid 100 --data-dir "$D" --cf "$cf" >"$T/out.csv" ||
    fail "export --cf $cf failed"
  header=$(rrdtool fetch "$D/pve-vm-9.0/100" "$cf" -s "$((LAST - 60))" -e "$LAST" |
    head -1 | awk '{ h = "file,time"; for (i = 1; i <= NF; i++) h = h "," $i; print h }')
  [ "$(head -1 "$T/out.csv")" == "$header" ] || fail "$cf header: $(head -1 "$T/out.csv")"
  [ "$(grep -c '^pve-vm-9.0/100,' "$T/out.csv")" -eq $((1440 + 96)) ] ||
    fail "$cf: $(wc -l <"$T/out.csv") lines, expected a header and 1536 rows"
  { fetch_values "$cf" 1800 "$T0" "$COARSE_END"
    fetch_values "$cf" 60 "$FINE_START" "$LAST"; } >"$T/expected"
  csv_values "$T/out.csv" >"$T/got"
  diff "$T/expected" "$T/got" >"$T/diff" || { head "$T/diff"; fail "$cf rows differ"; }
  awk -F, 'NR > 1 && $2 <= prev { exit 1 } NR > 1 { prev = $2 }' "$T/out.csv" ||
    fail "$cf: times do not strictly increase"
done
# The mem column really has holes: exported as empty fields, not 0
# (row 2886, a minute row, 2886 % 13 == 0).
grep -q "^pve-vm-9.0/100,$((T0 + 60 * 2886)),4,0.5,8589934592,," "$T/out.csv" ||
  fail "row 2886 (mem unknown) not as expected"

# --since/--until: rows whose time lies in the range, ends included.
"$PVECG" export --format csv --vmid 100 --data-dir "$D" \
  --since $((LAST - 3600)) --until $((LAST - 600)) >"$T/range.csv"
fetch_values AVERAGE 60 $((LAST - 3660)) $((LAST - 600)) >"$T/expected"
csv_values "$T/range.csv" >"$T/got"
[ "$(wc -l <"$T/got")" -eq 51 ] || fail "range: $(wc -l <"$T/got") rows, expected 51"
diff "$T/expected" "$T/got" >/dev/null || fail "range rows differ"

# --all: the guest, then the node; names that are not files of ours, dot
# files, directories and symlinks are left out.
make_file pve-node-9.0 "$D/pve-node-9.0/node1" "$T0"
rrdtool update "$D/pve-node-9.0/node1" "$((T0 + 60)):0.5:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U" \
  "$((T0 + 120)):1.5:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U"
cp "$D/pve-vm-9.0/100" "$D/pve-vm-9.0/100.old"
cp "$D/pve-vm-9.0/100" "$D/pve-vm-9.0/0100"
cp "$D/pve-vm-9.0/100" "$D/pve-vm-9.0/.100.tmp"
mkdir "$D/pve-vm-9.0/102"
ln -s 100 "$D/pve-vm-9.0/103"
"$PVECG" export --format csv --all --data-dir "$D" --since "$((LAST - 120))" >"$T/all.csv"
cat >"$T/expected" <<EOF2
pve-vm-9.0/100,$((LAST - 120))
pve-vm-9.0/100,$((LAST - 60))
pve-vm-9.0/100,$LAST
EOF2
grep -v '^file,' "$T/all.csv" | cut -d, -f1,2 | diff "$T/expected" - ||
  fail "--all --since: wrong rows"
# The guest's rows of that time are 30-minute rows now (ending after
# --until): only the node's minute rows are left.
"$PVECG" export --format json --all --data-dir "$D" --until "$((T0 + 120))" >"$T/all.json"
"$PVECG" export --format json --vmid 100 --data-dir "$D" --since "$LAST" >>"$T/all.json"
cat >"$T/expected" <<EOF2
{"file":"pve-node-9.0/node1","node":"node1","time":1700002860,"step":60,"loadavg":0.5}
{"file":"pve-node-9.0/node1","node":"node1","time":1700002920,"step":60,"loadavg":1.5}
{"file":"pve-vm-9.0/100","vmid":100,"time":1700262000,"step":60,"maxcpu":4,"cpu":0,"maxmem":8589934592,"mem":20971520,"netin":5,"memhost":4423680,"pressurecpusome":0,"pressureiosome":0}
EOF2
diff "$T/expected" "$T/all.json" || fail "--all --format json"

# A legacy pve2-vm file (PVE <= 8 history) in front of the 9.0 file that
# overlaps it by 30 minutes: its rows up to its last update, then the 9.0
# file's rows after it, each file with its own header; a legacy-only
# guest (pve2-vm/301.old) is found by --all.
L=$T/legacy
mkdir -p "$L/pve2-vm" "$L/pve-vm-9.0"
TL0=1700006400
make_file pve2-vm "$L/pve2-vm/300" "$TL0"
awk -v t0="$TL0" 'BEGIN { for (i = 1; i <= 60; i++)
  printf "%d:1:0.5:1073741824:%d:U:U:U:U:U:U\n", t0 + 60 * i, 1000 * i }' |
  xargs rrdtool update "$L/pve2-vm/300"
make_file pve-vm-9.0 "$L/pve-vm-9.0/300" "$((TL0 + 1800))"
awk -v t0="$TL0" 'BEGIN { for (j = 31; j <= 120; j++)
  printf "%d:2:0.25:2147483648:%d:U:U:U:U:U:U:U:U:U:U:U:U:U\n", t0 + 60 * j, 2000 * j }' |
  xargs rrdtool update "$L/pve-vm-9.0/300"
make_file pve2-vm "$L/pve2-vm/301.old" "$TL0"
rrdtool update "$L/pve2-vm/301.old" "$((TL0 + 60)):3:U:U:U:U:U:U:U:U:U"
"$PVECG" export --format csv --all --data-dir "$L" >"$T/legacy.csv"
awk -v t0="$TL0" 'BEGIN {
  print "file,time,maxcpu,cpu,maxmem,mem,maxdisk,disk,netin,netout,diskread,diskwrite"
  for (i = 1; i <= 60; i++)
    printf "pve2-vm/300,%d,1,0.5,1073741824,%d,,,,,,\n", t0 + 60 * i, 1000 * i
  print "file,time,maxcpu,cpu,maxmem,mem,maxdisk,disk,netin,netout,diskread,diskwrite,memhost,pressurecpusome,pressurecpufull,pressureiosome,pressureiofull,pressurememorysome,pressurememoryfull"
  for (j = 61; j <= 120; j++)
    printf "pve-vm-9.0/300,%d,2,0.25,2147483648,%d,,,,,,,,,,,,,\n", t0 + 60 * j, 2000 * j
  print "file,time,maxcpu,cpu,maxmem,mem,maxdisk,disk,netin,netout,diskread,diskwrite"
  printf "pve2-vm/301.old,%d,3,,,,,,,,,\n", t0 + 60
}' >"$T/expected"
diff "$T/expected" "$T/legacy.csv" >"$T/diff" || { head "$T/diff"; fail "legacy join"; }
"$PVECG" export --format graphite --names pvecg --vmid 300 --data-dir "$L" --since "$((TL0 + 3540))" \
  --until "$((TL0 + 3660))" >"$T/legacy.txt"
cat >"$T/expected" <<EOF2
pve.vm.300.maxcpu 1 $((TL0 + 3540))
pve.vm.300.cpu 0.5 $((TL0 + 3540))
pve.vm.300.maxmem 1073741824 $((TL0 + 3540))
pve.vm.300.mem 59000 $((TL0 + 3540))
pve.vm.300.maxcpu 1 $((TL0 + 3600))
pve.vm.300.cpu 0.5 $((TL0 + 3600))
pve.vm.300.maxmem 1073741824 $((TL0 + 3600))
pve.vm.300.mem 60000 $((TL0 + 3600))
pve.vm.300.maxcpu 2 $((TL0 + 3660))
pve.vm.300.cpu 0.25 $((TL0 + 3660))
pve.vm.300.maxmem 2147483648 $((TL0 + 3660))
pve.vm.300.mem 122000 $((TL0 + 3660))
EOF2
diff "$T/expected" "$T/legacy.txt" || fail "legacy join at the boundary"

# Through rrdcached on a unix socket: rows the daemon still holds (its
# write delay is an hour) are exported, because it flushes the file first.
if command -v rrdcached >/dev/null; then
  rrdcached -g -l "unix:$T/sock" -w 3600 -f 7200 -B -b "$D" -p "$T/rrdcached.pid" \
    >"$T/rrdcached.log" 2>&1 &
  DAEMON=$!
  for _ in $(seq 100); do [ -S "$T/sock" ] && break; sleep 0.05; done
  rrdtool update --daemon "unix:$T/sock" "$D/pve-node-9.0/node1" \
    "$((T0 + 180)):2.5:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U" \
    "$((T0 + 240)):3.5:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U:U"
  [ "$(rrdtool lastupdate "$D/pve-node-9.0/node1" | tail -1 | cut -d: -f1)" -eq $((T0 + 120)) ] ||
    fail "the daemon wrote the rows already"
  "$PVECG" export --format influx --names pvecg --node node1 --data-dir "$D" --daemon "unix:$T/sock" \
    --since $((T0 + 120)) >"$T/daemon.txt" 2>"$T/err" || fail "daemon: $(cat "$T/err")"
  kill "$DAEMON"
  wait "$DAEMON" 2>/dev/null || true
  DAEMON=
  cat >"$T/expected" <<EOF2
pve_node,node=node1 loadavg=1.5 1700002920000000000
pve_node,node=node1 loadavg=2.5 1700002980000000000
pve_node,node=node1 loadavg=3.5 1700003040000000000
EOF2
  diff "$T/expected" "$T/daemon.txt" || fail "through rrdcached"
fi

# Errors: a file of another layout is refused (exit 1, the others still
# exported), a missing file too; bad options are usage errors (2).
make_file pve2-vm "$D/pve-vm-9.0/101" "$T0"
set +e
"$PVECG" export --format csv --vmid 101 --vmid 100 --vmid 104 --data-dir "$D" \
  --since "$LAST" >"$T/mixed.csv" 2>"$T/err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "another layout: exit $rc"
grep -q "pve-vm-9.0/101: not a pve-vm-9.0 file" "$T/err" || fail "$(cat "$T/err")"
grep -q "pve-vm-9.0/104: no such file" "$T/err" || fail "$(cat "$T/err")"
[ "$(grep -c "^pve-vm-9.0/100,$LAST," "$T/mixed.csv")" -eq 1 ] || fail "100 not exported"
for args in "--vmid 100" "--format csv" "--format xml --vmid 100" \
  "--format csv --vmid abc" "--format csv --vmid 100 --since -1x" \
  "--format csv --vmid 100 --since now --until -1h" "--format csv --all --vmid 100" \
  "--format csv --vmid 100 --to http://x:1" "--format csv --vmid 100 --prefix a..b" \
  "--format csv --node ../x" "--format csv --vmid 100 --timeout 0"; do
  set +e
  # shellcheck disable=SC2086 # the words are the options
  "$PVECG" export $args --data-dir "$D" >/dev/null 2>&1
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "'$args': exit $rc, expected 2"
done
"$PVECG" export --help | grep -q '^usage: pvecg export' || fail "--help"
echo "PASS"
