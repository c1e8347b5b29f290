#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The overview of pvecg serve (GET /api2/json/pvecg/overview and the page's
# start view), checked by overview_check.py against rrdtool itself:
#   1. files of two nodes and seven guests (a container whose newest
#      memhost is U, a guest without configuration, a stale one, a foreign
#      file, a file that is no RRD; KSM files of three guests, one newest
#      ksmsaved U, and a stale one) and the real server: every entry's
#      values equal `rrdtool lastupdate`, its spark `pvecg rrddata
#      --timeframe hour`, its ksmsaved its KSM file's, its age and stale
#      the /metrics rule's;
#   2. through rrdcached holding two newer rows of a guest (-w 3600): the
#      values are the daemon's newest, the spark ends where the file does
#      (no FLUSH: the file is unchanged), and `rrdtool lastupdate
#      --daemon` then agrees;
#   3. the page in headless Chromium: table, values and their format,
#      sorting (also by KSM saved), stale rows greyed with their age, the
#      filter, a click on a row, a screenshot, no console error;
#   4. OVERVIEW_GUESTS (default 1000) guest files: the server's time for
#      the bulk answer (curl), and the page's time to draw the table and
#      the requests it made, over three loads; fewer than 10 requests and
#      under OVERVIEW_DRAW_LIMIT_MS (default 5000) asserted.
# Screenshots are kept in SCREENSHOT_DIR.
set -euo pipefail

for tool in rrdtool rrdcached curl jq python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
: "${PVECG:?}" "${LAYOUT_DEFS:?}"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/fixture.sh"
CHECK=$HERE/overview_check.py
SCREENSHOT_DIR=${SCREENSHOT_DIR:-$PWD/screenshots}
GUESTS=${OVERVIEW_GUESTS:-1000}
DRAW_LIMIT_MS=${OVERVIEW_DRAW_LIMIT_MS:-5000}
mkdir -p "$SCREENSHOT_DIR"

T=$(mktemp -d)
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$T"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL - $*"; failures=$((failures + 1)); }

# serve DATA_DIR [OPTIONS...]: a server on a free port; its URL in URL.
serve() {
  local port
  port=$(loopback_port)
  "$PVECG" serve --listen "127.0.0.1:$port" --data-dir "$@" --now "$NOW" \
    2>>"$T/serve.log" &
  PIDS+=($!)
  URL=http://127.0.0.1:$port
  wait_serving "$URL/" || { echo "pvecg serve did not start"; cat "$T/serve.log"; exit 1; }
}

# rows_until LAYOUT FILE NEWEST COUNT: COUNT rows a minute apart up to NEWEST.
rows_until() {
  local start=$(($3 - 60 * $4))
  make_file "$1" "$2" "$start"
  case $1 in
    pve-node-9.0) node_rows "$start" "$4" ;;
    pvecg-ksm-vm-1.0) ksm_vm_rows "$start" "$4" ;;
    *) vm_rows "$start" "$4" ;;
  esac | xargs -n 500 rrdtool update "$2"
}

NOW=$(date +%s)
LAST=$((NOW / 60 * 60)) # the newest whole minute
D=$T/data
P=$T/pve/nodes
mkdir -p "$D/pve-vm-9.0" "$D/pve-node-9.0" "$D/pvecg-ksm-vm-1.0" "$P/pve1/qemu-server" "$P/pve1/lxc" "$P/pve2/qemu-server"
rows_until pve-node-9.0 "$D/pve-node-9.0/pve1" "$LAST" 100
rows_until pve-node-9.0 "$D/pve-node-9.0/pve2" $((LAST - 60)) 77
rows_until pve-vm-9.0 "$D/pve-vm-9.0/100" "$LAST" 100
rows_until pve-vm-9.0 "$D/pve-vm-9.0/101" "$LAST" 117 # newest memhost U
rows_until pve-vm-9.0 "$D/pve-vm-9.0/102" $((LAST - 60)) 95
rows_until pve-node-9.0 "$D/pve-vm-9.0/103" "$LAST" 10 # foreign
echo 'not an RRD' >"$D/pve-vm-9.0/104"
rows_until pve-vm-9.0 "$D/pve-vm-9.0/105" "$LAST" 88
rows_until pve-vm-9.0 "$D/pve-vm-9.0/107" $((LAST - 10800)) 30 # stale
rows_until pvecg-ksm-vm-1.0 "$D/pvecg-ksm-vm-1.0/100" "$LAST" 100
rows_until pvecg-ksm-vm-1.0 "$D/pvecg-ksm-vm-1.0/102" $((LAST - 60)) 95
rows_until pvecg-ksm-vm-1.0 "$D/pvecg-ksm-vm-1.0/105" "$LAST" 88 # newest ksmsaved U
rows_until pvecg-ksm-vm-1.0 "$D/pvecg-ksm-vm-1.0/107" $((LAST - 10800)) 30 # stale
printf 'name: web-1\nmemory: 4096\n' >"$P/pve1/qemu-server/100.conf"
printf 'hostname: ct\n' >"$P/pve1/lxc/101.conf"
printf 'name: broken\n' >"$P/pve1/qemu-server/104.conf"
printf 'name: db-main\n' >"$P/pve2/qemu-server/105.conf"
printf 'name: web-old\n' >"$P/pve2/qemu-server/107.conf"

# ---- 1. the bulk answer ----------------------------------------------------
echo "# 1. the bulk answer against rrdtool"
serve "$D" --pve-config-dir "$T/pve"
PAGE_URL=$URL
PVECG="$PVECG" python3 "$CHECK" api "$URL" "$D" "$NOW" || fail "the bulk answer"

# ---- 2. through rrdcached --------------------------------------------------
echo "# 2. through rrdcached holding rows"
DC=$T/daemon
mkdir -p "$DC/pve-vm-9.0" "$T/journal"
rows_until pve-vm-9.0 "$DC/pve-vm-9.0/100" $((LAST - 180)) 60
SOCK=$T/rrdcached.sock
rrdcached -g -l "unix:$SOCK" -p "$T/rrdcached.pid" -w 3600 -j "$T/journal" \
  >"$T/rrdcached.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.05; done
vm_rows $((LAST - 240)) 3 | tail -n 2 | while read -r row; do
  rrdtool update --daemon "unix:$SOCK" "$DC/pve-vm-9.0/100" "$row"
done
serve "$DC" --daemon "unix:$SOCK"
got=$(curl -sf "$URL/api2/json/pvecg/overview" | jq -c '.data[0]')
file_time=$(rrdtool lastupdate "$DC/pve-vm-9.0/100" | tail -n 1 | cut -d: -f1)
want=$(rrdtool lastupdate --daemon "unix:$SOCK" "$DC/pve-vm-9.0/100" | tail -n 1)
want_memhost=$(awk '{ print $11 }' <<<"${want#*: }")
if [ "$file_time" = $((LAST - 180)) ] &&
   jq -e --argjson t "${want%%:*}" --argjson m "$want_memhost" --argjson last "$LAST" '
     .time == $t and $t == $last - 60 and .memhost == $m and
     (.spark | length) == 60 and .spark[-1] == null and .spark[-2] == null and
     .spark[-4] != null' <<<"$got" >/dev/null; then
  echo "ok - through rrdcached: the values are its newest row (time ${want%%:*}), the spark ends where the file does, nothing flushed"
else
  fail "through rrdcached: file at $file_time, got $got, rrdtool lastupdate --daemon says $want"
fi

# ---- 3. the page ---------------------------------------------------------
echo "# 3. the page in headless Chromium"
r=0
python3 "$CHECK" page "$PAGE_URL" "$D" "$SCREENSHOT_DIR/overview.png" "$NOW" || r=$?
[ "$r" -eq 77 ] && { echo "SKIP: no chromium"; exit 77; }
[ "$r" -eq 0 ] || fail "the page"

# ---- 3b. the page of a server that wants a token -----------------------------
echo "# 3b. the page with --token-file"
printf 'monitor@pve!page=%s\n' "$(cat /proc/sys/kernel/random/uuid)" >"$T/token"
chmod 600 "$T/token"
serve "$D" --pve-config-dir "$T/pve" --token-file "$T/token"
entries=$(curl -sf -H "Authorization: PVEAPIToken=$(cat "$T/token")" \
  "$URL/api2/json/pvecg/overview" | jq '.data | length')
python3 "$CHECK" token "$URL" "$(cat "$T/token")" "$entries" "$SCREENSHOT_DIR/overview-token.png" ||
  fail "the page with a token"

# ---- 4. many guests --------------------------------------------------------
echo "# 4. $GUESTS guests"
M=$T/many
mkdir -p "$M/pve-vm-9.0" "$M/pve-node-9.0" "$T/many-pve/nodes/pve1/qemu-server"
rows_until pve-node-9.0 "$M/pve-node-9.0/pve1" "$LAST" 90
# ten different files, copied: a real file each, made in a second
for k in $(seq 0 9); do
  rows_until pve-vm-9.0 "$T/src$k" "$LAST" $((90 + k))
done
for i in $(seq 1 "$GUESTS"); do
  vmid=$((1000 + i))
  cp "$T/src$((i % 10))" "$M/pve-vm-9.0/$vmid"
  printf 'name: guest-%s\n' "$vmid" >"$T/many-pve/nodes/pve1/qemu-server/$vmid.conf"
done
serve "$M" --pve-config-dir "$T/many-pve"
for _ in 1 2 3; do
  curl -s -o "$T/many.json" -w "%{time_total} %{size_download}\n" \
    "$URL/api2/json/pvecg/overview" >>"$T/curl.times"
done
entries=$(jq '.data | length' "$T/many.json")
[ "$entries" = $((GUESTS + 1)) ] || fail "the bulk answer has $entries entries, not $((GUESTS + 1))"
echo "# bulk answer, $entries entries: seconds and bytes per request: $(tr '\n' ';' <"$T/curl.times")"
r=0
python3 "$CHECK" measure "$URL" "$SCREENSHOT_DIR/overview-$GUESTS.png" 3 >"$T/measure.out" || r=$?
cat "$T/measure.out"
if [ "$r" -eq 0 ]; then
  if tail -n 1 "$T/measure.out" | jq -e --argjson n $((GUESTS + 1)) --argjson limit "$DRAW_LIMIT_MS" '
       all(.[]; .rows == $n and .requests < 10 and .drawn_ms < $limit)' >/dev/null; then
    echo "ok - $GUESTS guests: every load drew $((GUESTS + 1)) rows in under $DRAW_LIMIT_MS ms with fewer than 10 requests"
  else
    fail "$GUESTS guests: $(tail -n 1 "$T/measure.out")"
  fi
else
  fail "the measurement"
fi

if [ "$failures" -ne 0 ]; then
  echo "--- serve.log ---"; cat "$T/serve.log"
  echo "$failures check(s) failed"; exit 1
fi
echo "all checks passed; screenshots in $SCREENSHOT_DIR"
