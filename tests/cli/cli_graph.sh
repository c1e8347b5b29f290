#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg graph: every graph of a guest (with a legacy pve2-vm file in the
# window) and of the node is drawn as a PNG of exactly the requested size
# (signature, IHDR width and height); bad arguments are refused.
# PVECG_GRAPH_KEEP=DIR keeps the pictures, to look at them.
set -euo pipefail

command -v rrdtool >/dev/null || { echo "SKIP: rrdtool is not installed"; exit 77; }
: "${PVECG:?}" "${LAYOUT_DEFS:?}"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

T0=1700002800
NOW=$((T0 + 60 * 1440 + 30))
mkdir -p "$T/data/pve-vm-9.0" "$T/data/pve2-vm" "$T/data/pve-node-9.0"

make_file() {
  # shellcheck disable=SC2046 # one definition per line
  rrdtool create "$2" --start "$3" --step 60 $("$LAYOUT_DEFS" "$1")
}

# A day of guest and node rows with values that move, and a legacy file
# whose last update (T0 + 3600) lies in the day's window.
make_file pve-vm-9.0 "$T/data/pve-vm-9.0/100" "$T0"
awk -v t0="$T0" 'BEGIN {
  for (i = 1; i <= 1440; i++) {
    s = sin(i / 60)
    printf "%.0f:4:%.4f:8589934592:%.0f:34359738368:0:%.0f:%.0f:%.0f:%.0f:%.0f:%.2f:%.2f:%.2f:%.2f:%.2f:%.2f\n",
      t0 + 60 * i, 0.4 + 0.3 * s, 4294967296 + 2147483648 * s, 60000 * i + 30000 * s,
      120000 * i, 4096 * i, 8192 * i + 4096 * s, 3865470566 + 1073741824 * s,
      10 + 8 * s, 5 + 4 * s, 20 + 10 * s, 8 + 6 * s, 2 + s, 1 + s / 2
  }
}' | xargs -n 500 rrdtool update "$T/data/pve-vm-9.0/100"
make_file pve2-vm "$T/data/pve2-vm/100" $((T0 - 86400))
awk -v t0=$((T0 - 86400)) 'BEGIN {
  for (i = 1; i <= 1500; i++)
    printf "%d:4:0.2:8589934592:3221225472:34359738368:0:%d:%d:%d:%d\n",
      t0 + 60 * i, 30000 * i, 60000 * i, 2048 * i, 4096 * i
}' | xargs -n 500 rrdtool update "$T/data/pve2-vm/100"
make_file pve-node-9.0 "$T/data/pve-node-9.0/n1" "$T0"
awk -v t0="$T0" 'BEGIN {
  for (i = 1; i <= 1440; i++) {
    s = sin(i / 90)
    printf "%.0f:%.2f:8:%.4f:%.4f:68719476736:%.0f:8589934592:%.0f:107374182400:%.0f:%.0f:%.0f:%.0f:0:%.2f:%.2f:%.2f:%.2f:%.2f\n",
      t0 + 60 * i, 2 + s, 0.5 + 0.3 * s, 0.05 + 0.04 * s,
      34359738368 + 8589934592 * s, 1073741824 + 536870912 * s,
      53687091200 + 1073741824 * s, 6000000 * i, 3000000 * i,
      34359738368 - 8589934592 * s, 10 + 5 * s, 3 + 2 * s, 2 + s, 1 + s, 0.5 + s / 2
  }
}' | xargs -n 500 rrdtool update "$T/data/pve-node-9.0/n1"

# png_size FILE: "WIDTHxHEIGHT" from the IHDR chunk, after checking the
# PNG signature and that IHDR is the first chunk.
png_size() {
  local h
  h=$(od -An -tx1 -N24 "$1" | tr -d ' \n')
  [ "${h:0:16}" = 89504e470d0a1a0a ] || { echo "not a PNG"; return; }
  [ "${h:24:8}" = 49484452 ] || { echo "no IHDR"; return; }
  echo "$((16#${h:32:8}))x$((16#${h:40:8}))"
}

graph() {
  "$PVECG" graph --data-dir "$T/data" --now "$NOW" "$@"
}

for what in memory pressure cpu net disk; do
  for who in "--vmid 100" "--node n1"; do
    for tf in hour day; do
      out=$T/${who##* }-$what-$tf.png
      # shellcheck disable=SC2086 # two words
      graph $who --what "$what" --timeframe "$tf" --width 640 --height 240 \
        --out "$out" || fail "$who $what $tf"
      [ "$(png_size "$out")" = 640x240 ] || fail "$out: $(png_size "$out")"
    done
  done
done
graph --vmid 100 --what memory --timeframe week --cf MAX --out "$T/default.png"
[ "$(png_size "$T/default.png")" = 800x300 ] || fail "default size"
graph --file "$T/data/pve-vm-9.0/100" --what cpu --timeframe decade \
  --width 1200 --height 100 --out "$T/decade.png"
[ "$(png_size "$T/decade.png")" = 1200x100 ] || fail "decade"
pngs=("$T"/*.png)
[ ${#pngs[@]} -eq 22 ] || fail "${#pngs[@]} PNGs, not 22"

if [ -n "${PVECG_GRAPH_KEEP:-}" ]; then
  mkdir -p "$PVECG_GRAPH_KEEP"
  cp "$T"/*.png "$PVECG_GRAPH_KEEP"/
fi

expect_usage() {
  local rc=0
  graph "$@" >/dev/null 2>&1 || rc=$?
  [ $rc -eq 2 ] || fail "'$*' gives $rc, not 2"
}
expect_usage --vmid 100 --what memory --timeframe hour
expect_usage --vmid 100 --what swap --timeframe hour --out "$T/x.png"
expect_usage --vmid 100 --what memory --out "$T/x.png"
expect_usage --vmid 100 --what memory --timeframe hour --out "$T/x.png" --width 10
expect_usage --vmid 100 --what memory --timeframe hour --out "$T/x.png" --height 1e3
rc=0
graph --vmid 101 --what memory --timeframe hour --out "$T/x.png" 2>"$T/err" || rc=$?
[ $rc -eq 1 ] && grep -q "pve-vm-9.0/101" "$T/err" || fail "missing file: $rc"
[ ! -e "$T/x.png" ] || fail "a PNG for a missing file"
"$PVECG" graph --help | grep -q "^usage: pvecg graph" || fail "--help"
echo ok
