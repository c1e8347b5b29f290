#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg check: a file of each layout is named as such (exit 0); a file of
# another layout in a layout's directory, a foreign file elsewhere, a file
# that is not an RRD, a directory and a missing file are each reported with
# the exact difference or problem (exit 1).
set -euo pipefail

command -v rrdtool >/dev/null || { echo "SKIP: rrdtool is not installed"; exit 77; }
: "${PVECG:?}" "${LAYOUT_DEFS:?}"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# make_file LAYOUT PATH [SED]: a file of the layout's definitions, edited
# by the sed script when given.
make_file() {
  mkdir -p "$(dirname "$2")"
  # shellcheck disable=SC2046 # one definition per line
  rrdtool create "$2" --start 1700000000 --step 60 \
    $("$LAYOUT_DEFS" "$1" | sed "${3:-}")
}

for l in pve-vm-9.0 pve-node-9.0 pve2-vm pve2-node; do
  make_file "$l" "$T/$l/100"
done
# every layout recognised, also outside its directory
make_file pve-node-9.0 "$T/elsewhere/n1"
"$PVECG" check "$T/pve-vm-9.0/100" "$T/pve-node-9.0/100" "$T/pve2-vm/100" \
  "$T/pve2-node/100" "$T/elsewhere/n1" >"$T/out"
cat >"$T/expected" <<EOF
$T/pve-vm-9.0/100: pve-vm-9.0
$T/pve-node-9.0/100: pve-node-9.0
$T/pve2-vm/100: pve2-vm
$T/pve2-node/100: pve2-node
$T/elsewhere/n1: pve-node-9.0
EOF
diff -u "$T/expected" "$T/out" || fail "layouts"

# a legacy file where a 9.0 file belongs; a 9.0 file with one archive
# shorter and one with a DS renamed, outside any layout's directory; a node
# file with a DS heartbeat changed in its directory; something that is not
# an RRD; a directory; nothing
make_file pve2-vm "$T/pve-vm-9.0/101"
make_file pve-vm-9.0 "$T/other/a" 's/^RRA:MAX:0.5:360:1440$/RRA:MAX:0.5:360:1000/'
make_file pve-vm-9.0 "$T/other/b" 's/^DS:memhost:/DS:memhost2:/'
make_file pve-node-9.0 "$T/pve-node-9.0/n2" 's/^DS:arcsize:GAUGE:120:/DS:arcsize:GAUGE:300:/'
rrdtool create "$T/other/c" --step 30 DS:x:GAUGE:60:0:U RRA:AVERAGE:0.5:1:10
printf 'not an rrd\n' >"$T/other/text"
set +e
"$PVECG" check "$T/pve-vm-9.0/101" "$T/other/a" "$T/other/b" \
  "$T/pve-node-9.0/n2" "$T/other/c" "$T/other/text" "$T/other" \
  "$T/other/none" "$T/pve-vm-9.0/100" >"$T/out"
rc=$?
set -e
[ $rc -eq 1 ] || fail "exit status $rc with differing files"
cat >"$T/expected" <<EOF
$T/pve-vm-9.0/101: differs from pve-vm-9.0 (the layout of its directory): ds[10] is missing, expected 'memhost' (GAUGE); it is a pve2-vm file
$T/other/a: differs from pve-vm-9.0 (the closest layout): rra[6] is MAX 360:1000, expected MAX 360:1440
$T/other/b: differs from pve-vm-9.0 (the closest layout): ds[10] is 'memhost2' (GAUGE), expected 'memhost' (GAUGE)
$T/pve-node-9.0/n2: differs from pve-node-9.0 (the layout of its directory): ds[13] 'arcsize' has heartbeat 300, expected 120
$T/other/c: differs from pve-vm-9.0 (the closest layout): step is 30 s, expected 60 s
$T/other/text: not an RRD file (librrd: reached EOF while loading header rrd->stat_head)
$T/other: not an RRD file (not a regular file)
$T/other/none: no such file
$T/pve-vm-9.0/100: pve-vm-9.0
EOF
diff -u "$T/expected" "$T/out" || fail "differences"

# a pve2-node file is closer to pve-node-9.0 than to pve2-vm
make_file pve2-node "$T/other/d" 's/^RRA:AVERAGE:0.5:1:70$/RRA:AVERAGE:0.5:1:71/'
set +e
"$PVECG" check "$T/other/d" >"$T/out"
rc=$?
set -e
[ $rc -eq 1 ] || fail "exit status $rc for one differing file"
echo "$T/other/d: differs from pve2-node (the closest layout): rra[0] is AVERAGE 1:71, expected AVERAGE 1:70" |
  diff -u - "$T/out" || fail "closest layout"

set +e
"$PVECG" check >/dev/null 2>&1
rc=$?
set -e
[ $rc -eq 2 ] || fail "no file: exit status $rc"
"$PVECG" check --help | grep -q "^usage: pvecg check" || fail "--help"
echo ok
