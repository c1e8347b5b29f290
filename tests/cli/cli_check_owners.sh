#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg check --owners on a data directory: the owners file listed one
# line per file, the owner first, each host seen colliding with the time
# it began (exit 1 while one is); --give hands a file to a host, which is
# then no longer taken as colliding; --forget forgets the collisions; the
# file is saved whole and exactly; a file of another version, a missing
# guest file, a wrong FILE and misused options each give their exact
# answer.  (Under a running collectd: tests/integration/test_vmid_collision.sh.)
set -euo pipefail

: "${PVECG:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
D=$T/data
mkdir -p "$D/pve-vm-9.0" "$D/prod/pve-vm-9.0"
touch "$D/pve-vm-9.0/196" "$D/prod/pve-vm-9.0/100"

# expect STATUS COMMAND...: stdout into $T/out, the exit status checked
expect() {
  local want=$1 rc=0
  shift
  "$@" >"$T/out" 2>"$T/err" || rc=$?
  [ "$rc" -eq "$want" ] || fail "exit status $rc, not $want: $* ($(cat "$T/err"))"
}

"$PVECG" check --owners --data-dir "$D" >"$T/out"
echo "$D has no owners file (pvecg-owners): pve_rrd has written no guest's file there yet" |
  diff -u - "$T/out" || fail "no owners file"

printf '%s\n' 'pvecg-owners 2' 'owner pve-vm-9.0 . 196 1 nodea' \
  'collision pve-vm-9.0 . 196 1800000100 nodeb' \
  'collision pve-vm-9.0 . 196 1800000200 node c' \
  'owner pve-vm-9.0 prod 100 10 pve1' 'end 4' >"$D/pvecg-owners"
expect 1 "$PVECG" check --owners --data-dir "$D"
cat >"$T/expected" <<EOF
pve-vm-9.0/196: owner nodea; nodeb seen colliding since 2027-01-15 08:01:40 UTC; node c seen colliding since 2027-01-15 08:03:20 UTC
prod/pve-vm-9.0/100: owner pve1
EOF
diff -u "$T/expected" "$T/out" || fail "listing"

expect 0 "$PVECG" check --owners --data-dir "$D" --give pve-vm-9.0/196 nodeb
cat >"$T/expected" <<EOF
saved; a running pve_rrd follows within seconds
pve-vm-9.0/196: owner nodeb; node c seen colliding since 2027-01-15 08:03:20 UTC
EOF
diff -u "$T/expected" "$T/out" || fail "--give"

# FILE as a path below the data directory
expect 0 "$PVECG" check --owners --data-dir "$D" --forget "$D/pve-vm-9.0/196"
printf '%s\n' 'saved; a running pve_rrd follows within seconds' \
  'pve-vm-9.0/196: owner nodeb' | diff -u - "$T/out" || fail "--forget"
printf '%s\n' 'pvecg-owners 2' 'owner pve-vm-9.0 . 196 1 nodeb' \
  'owner pve-vm-9.0 prod 100 10 pve1' 'end 2' |
  diff -u - "$D/pvecg-owners" || fail "the file saved"
[ ! -e "$D/.pvecg-owners.tmp" ] || fail "a temporary file left"
expect 0 "$PVECG" check --owners --data-dir "$D"

expect 1 "$PVECG" check --owners --data-dir "$D" --forget pve-vm-9.0/196
echo "pvecg check: pve-vm-9.0/196 has no collision to forget" |
  diff -u - "$T/err" || fail "nothing to forget"
expect 0 "$PVECG" check --owners --data-dir "$D" --give prod/pve-vm-9.0/100 pve2
printf '%s\n' 'saved; a running pve_rrd follows within seconds' \
  'prod/pve-vm-9.0/100: owner pve2' | diff -u - "$T/out" || fail "--give in a cluster"
expect 1 "$PVECG" check --owners --data-dir "$D" --give pve-vm-9.0/197 nodea
echo "pvecg check: $D/pve-vm-9.0/197: no such file" |
  diff -u - "$T/err" || fail "no such file"
expect 2 "$PVECG" check --owners --data-dir "$D" --give pve-node-9.0/n1 nodea
echo "pvecg check: pve-node-9.0/n1: not a guest's file of $D (LAYOUT/VMID or CLUSTER/LAYOUT/VMID, e.g. pve-vm-9.0/196)" |
  diff -u - "$T/err" || fail "not a guest's file"
expect 2 "$PVECG" check --owners --data-dir "$D" --give pve-vm-9.0/196
expect 2 "$PVECG" check --owners --data-dir "$D" --give pve-vm-9.0/196 "$(printf 'node\tb')"
printf 'pvecg check: "node\tb" is no host name\n' | diff -u - "$T/err" ||
  fail "a host name with a control character"
expect 2 "$PVECG" check --owners --data-dir "$D" --forget pve-vm-9.0/196 x
expect 2 "$PVECG" check --give pve-vm-9.0/196 nodeb
expect 2 "$PVECG" check --owners --all

echo 'pvecg-owners 1' >"$D/pvecg-owners"
expect 1 "$PVECG" check --owners --data-dir "$D"
echo "pvecg check: $D/pvecg-owners: not a version 2 owners file (its first line is not \"pvecg-owners 2\")" |
  diff -u - "$T/err" || fail "another version"
expect 1 "$PVECG" check --owners --data-dir "$D" --give pve-vm-9.0/196 nodeb
echo 'pvecg-owners 1' | diff -u - "$D/pvecg-owners" || fail "another version is left alone"
echo ok
