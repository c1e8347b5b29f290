#!/bin/bash
# pvecg rrddata against files this test fills with known rows through
# rrdtool: every timeframe's rows compared with an independent reading by
# `rrdtool fetch` with the same -r/-s/-e (AVERAGE and MAX), the empty
# newest row dropped, the join with a legacy pve2-vm file (and its .old
# name) at its exact boundary, a node file, and reading through a real
# rrdcached that still holds rows not written to the file.
set -euo pipefail

for tool in rrdtool jq; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
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
# rows ("time" = the row's start, unknown values left out), one JSON array.
ref_json() {
  rrdtool fetch "$1" "$2" -r "$3" -s "$4" -e "$5" | awk '
    NR == 1 { for (i = 1; i <= NF; i++) name[i] = $i; n = NF; next }
    /^[0-9]+:/ {
      t = substr($1, 1, length($1) - 1); rows[++r] = t; line[r] = ""
      for (i = 2; i <= NF; i++)
        if ($i !~ /nan/) line[r] = line[r] sprintf(",\"%s\":%s", name[i - 1], $i)
    }
    END {
      step = r > 1 ? rows[2] - rows[1] : 0
      printf "["
      for (k = 1; k <= r; k++)
        printf "%s{\"time\":%d%s}", (k > 1 ? "," : ""), rows[k] - step, line[k]
      printf "]\n"
    }'
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

NOW=$((T0 + 60 * N + 30))
check_timeframe() {
  local tf=$1 reso=$2 rows=$3 cf=$4 start end
  read -r start end <<<"$(window "$reso" "$rows" "$NOW")"
  "$PVECG" rrddata --timeframe "$tf" --cf "$cf" --vmid 100 \
    --data-dir "$T/data" --now "$NOW" >"$T/out.json"
  jq '.data' "$T/out.json" >"$T/got.json"
  ref_json "$VM" "$cf" "$reso" "$start" "$end" >"$T/ref_all.json"
  # the reference's newest row is empty: the API leaves it out
  if jq -e '.[-1] | keys == ["time"]' "$T/ref_all.json" >/dev/null; then
    jq '.[:-1]' "$T/ref_all.json" >"$T/ref.json"
  else
    cp "$T/ref_all.json" "$T/ref.json"
  fi
  same_rows "$T/got.json" "$T/ref.json" || fail "$tf $cf differs from rrdtool fetch"
  [ "$(jq '.[0].time' "$T/got.json")" = "$start" ] || fail "$tf $cf: first row"
  echo "ok $tf $cf: $(jq length "$T/got.json") rows"
}
for cf in AVERAGE MAX; do
  check_timeframe hour 60 60 $cf
  check_timeframe day 60 1440 $cf
  check_timeframe week 1800 336 $cf
  check_timeframe month 1800 1440 $cf
done

# hour: exact text of the newest rows (the all-unknown row at N is gone):
# the row starting at T0 + 60*(i-1) holds update i; diskread is unknown
# after its U at i = 4318 (17 * 254) and in the rate that follows it.
"$PVECG" rrddata --timeframe hour --vmid 100 --data-dir "$T/data" --now "$NOW" \
  | jq -c '.data[-2:]' >"$T/tail.json"
cat >"$T/tail.expected" <<EOF
[{"time":$((T0 + 60 * 4317)),"maxcpu":4,"cpu":0.75,"maxmem":8589934592,"mem":1075838976,"maxdisk":34359738368,"disk":0,"netin":5,"netout":10,"diskwrite":136.533333333333,"memhost":970981376,"pressurecpusome":20,"pressurecpufull":3,"pressureiosome":0.25,"pressureiofull":2,"pressurememorysome":0,"pressurememoryfull":1.75},{"time":$((T0 + 60 * 4318)),"maxcpu":4,"cpu":0,"maxmem":8589934592,"mem":1076887552,"maxdisk":34359738368,"disk":0,"netin":5,"netout":10,"diskwrite":136.533333333333,"memhost":972029952,"pressurecpusome":22.5,"pressurecpufull":4,"pressureiosome":0.5,"pressureiofull":3,"pressurememorysome":0,"pressurememoryfull":2}]
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

check_join() {
  local cf=$1
  "$PVECG" rrddata --timeframe day --cf "$cf" --vmid 200 --data-dir "$T/data" \
    --now "$NOWJ" | jq '.data' >"$T/got.json"
  ref_json "$OLD" "$cf" 1800 $((T0 + 21600 - 126000)) "$L" |
    jq --argjson first "$L" 'map(select(.time < $first))' >"$T/ref_old.json"
  ref_json "$NEW" "$cf" 60 "$L" $((T0 + 21599)) | jq '.[:-1]' >"$T/ref_new.json"
  jq -s '.[0] + .[1]' "$T/ref_old.json" "$T/ref_new.json" >"$T/ref.json"
  same_rows "$T/got.json" "$T/ref.json" || fail "join $cf differs from rrdtool fetch"
  # 59 legacy rows from CTIME' - 1800*70 up to T0, then 9.0 rows from L on
  # up to the last full row before T0 + 21540 (the empty newest row)
  [ "$(jq -c '[length, .[0].time, .[58].time, .[59].time, .[-1].time]' \
    "$T/got.json")" = "[403,$((T0 - 104400)),$T0,$L,$((T0 + 21480))]" ] ||
    fail "join $cf: row times $(jq -c '[length, .[0].time, .[58].time, .[59].time, .[-1].time]' "$T/got.json")"
  echo "ok join $cf"
}
check_join AVERAGE
check_join MAX
"$PVECG" rrddata --timeframe day --vmid 200 --data-dir "$T/data" --now "$NOWJ" |
  jq -c '.data[56,57,58,59,60]' >"$T/boundary.json"
# the legacy rows before T0 average 0.125 and 0.375 alternately; the row
# from T0 on is not consolidated in the legacy file yet; update 16 of the
# 9.0 file (cpu 0) is the first 9.0 row.
cat >"$T/boundary.expected" <<EOF
{"time":$((T0 - 3600)),"maxcpu":2,"cpu":0.25,"maxmem":4294967296,"mem":1073741824,"netin":100}
{"time":$((T0 - 1800)),"maxcpu":2,"cpu":0.25,"maxmem":4294967296,"mem":1073741824,"netin":100}
{"time":$T0}
{"time":$L,"maxcpu":2,"cpu":0,"maxmem":4294967296,"mem":2147483648,"memhost":1000000}
{"time":$((L + 60)),"maxcpu":2,"cpu":0.25,"maxmem":4294967296,"mem":2147483648,"memhost":1000000}
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
  jq -c '[.data[0].time, (.data | length)]' | grep -qx "\[$((T0 + 18000)),59\]" ||
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
jq -c '.[-1]' "$T/got.json" | grep -qxF "{\"time\":$((T0 + 5340)),\"loadavg\":0.9,\"maxcpu\":8,\"cpu\":0.5,\"iowait\":0.125,\"memtotal\":68719476736,\"memused\":1074110464,\"roottotal\":1000000,\"rootused\":500000,\"netin\":10,\"netout\":20,\"memavailable\":17179869184,\"arcsize\":0,\"pressurecpusome\":1,\"pressureiosome\":2,\"pressureiofull\":3,\"pressurememorysome\":4,\"pressurememoryfull\":5}" ||
  fail "node newest row: $(jq -c '.[-1]' "$T/got.json")"
echo "ok node"

# ---- through rrdcached ----------------------------------------------------
# One daemon on a unix socket and on TCP.  Rows sent to the daemon stay in its cache (-w 3600); read through it they
# are there (the newest row, update 365, starts at T0 + 60*364), read from
# the file they are not yet (only empty rows, the newest of them dropped).
if command -v rrdcached >/dev/null; then
  # a TCP port of 127.0.0.1 that nothing listens on now
  while :; do
    PORT=$(shuf -i 20000-60000 -n 1)
    awk '{print $2}' /proc/net/tcp /proc/net/tcp6 2>/dev/null |
      grep -qi ":$(printf '%04X' "$PORT")\$" || break
  done
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
    jq -c '.data[-1]' | grep -qxF "{\"time\":$((T0 + 60 * 363))}" ||
    fail "rows not flushed are already in the file"
  "$PVECG" rrddata --timeframe hour --vmid 200 --data-dir "$T/data" \
    --daemon "unix:$T/sock" --now "$NOWD" | jq '.data' >"$T/got.json"
  ref_json "$NEW" AVERAGE 60 $((T0 + 60 * 365 - 3600)) $((T0 + 60 * 365 - 1)) >"$T/ref.json"
  same_rows "$T/got.json" "$T/ref.json" || fail "through rrdcached"
  jq -c '.[-2:]' "$T/got.json" | grep -qxF "[{\"time\":$((T0 + 60 * 363)),\"maxcpu\":2,\"cpu\":0.5,\"maxmem\":4294967296,\"mem\":2147483648,\"memhost\":364},{\"time\":$((T0 + 60 * 364)),\"maxcpu\":2,\"cpu\":0.5,\"maxmem\":4294967296,\"mem\":2147483648,\"memhost\":365}]" ||
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
