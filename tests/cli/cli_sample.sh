#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg sample on a fixture cgroup tree (tests/integration/fixture.sh):
# the exact table and JSON for a QEMU VM with a name from its config, a
# container with swap, a VM without a cpu "full" line and without memory
# files; --watch in JSON mode gives one object per refresh and exits 0 on
# SIGTERM and SIGINT; bad options are usage errors.
set -euo pipefail

: "${PVECG:?}"
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../integration/fixture.sh
source "$HERE/../integration/fixture.sh"

T=$(mktemp -d)
WATCHER=
cleanup() {
  if [ -n "$WATCHER" ]; then
    kill -KILL "$WATCHER" 2>/dev/null || true
    wait "$WATCHER" 2>/dev/null || true
  fi
  rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

R=$T/cgroup
qemu_guest "$R" 100 1.50 0.25 2.25 0.50 3.00 0.75
v2_memory "$R/qemu.slice/100.scope" 1610612736 536870912   # memhost 1 GiB
lxc_guest "$R" 200 0.10 0.00 0.20 0.00 12.34 5.67
v2_memory "$R/lxc/200" 2101248 1048576                      # memhost 1 MiB + 4 KiB
echo 1536 >"$R/lxc/200/memory.swap.current"
qemu_guest "$R" 101 0.00 0.00 0.00 0.00 0.00 0.00
psi_file "$R/qemu.slice/101.scope/cpu.pressure" 7.00 0 nofull
mkdir -p "$T/pve/qemu-server" "$T/pve/lxc"
printf 'cores: 2\nmemory: 2048\nname: web-frontend\n' >"$T/pve/qemu-server/100.conf"
printf 'hostname: ct1\nmemory: 512\n' >"$T/pve/lxc/200.conf"

ARGS=(--cgroup-root "$R" --memory-cgroup-root "" --pve-config-dir "$T/pve")
"$PVECG" sample "${ARGS[@]}" >"$T/table"
cat >"$T/expected" <<'EOF2'
     VMID TYPE NAME            MEMHOST CPU-SOME CPU-FULL  IO-SOME  IO-FULL MEM-SOME MEM-FULL       SWAP
      100 qemu web-frontend    1.0 GiB     1.50     0.25     2.25     0.50     3.00     0.75          -
      101 qemu -                     -     7.00        -     0.00     0.00     0.00     0.00          -
      200 lxc  ct1             1.0 MiB     0.10     0.00     0.20     0.00    12.34     5.67    1.5 KiB
EOF2
head -4 "$T/table" | diff "$T/expected" - || fail "table"
tail -1 "$T/table" | grep -Eqx '3 guests sampled in [0-9]+ us' || fail "$(tail -1 "$T/table")"
[ "$(wc -l <"$T/table")" -eq 5 ] || fail "table has $(wc -l <"$T/table") lines"

"$PVECG" sample "${ARGS[@]}" --json >"$T/json"
[ "$(wc -l <"$T/json")" -eq 1 ] || fail "json is not one line"
sed -E 's/^\{"time":[0-9]+,"took_us":[0-9]+,/{"time":T,"took_us":U,/' "$T/json" >"$T/json.masked"
cat >"$T/expected" <<'EOF2'
{"time":T,"took_us":U,"guests":[{"vmid":100,"type":"qemu","name":"web-frontend","memhost":1073741824,"pressurecpusome":1.5,"pressurecpufull":0.25,"pressureiosome":2.25,"pressureiofull":0.5,"pressurememorysome":3,"pressurememoryfull":0.75,"swap":null},{"vmid":101,"type":"qemu","name":null,"memhost":null,"pressurecpusome":7,"pressurecpufull":null,"pressureiosome":0,"pressureiofull":0,"pressurememorysome":0,"pressurememoryfull":0,"swap":null},{"vmid":200,"type":"lxc","name":"ct1","memhost":1052672,"pressurecpusome":0.1,"pressurecpufull":0,"pressureiosome":0.2,"pressureiofull":0,"pressurememorysome":12.34,"pressurememoryfull":5.67,"swap":1536}]}
EOF2
diff "$T/expected" "$T/json.masked" || fail "json"
now=$(date +%s)
t=$(sed -E 's/^\{"time":([0-9]+),.*/\1/' "$T/json")
[ $((now - t)) -ge 0 ] && [ $((now - t)) -le 5 ] || fail "time $t, now $now"

# No guests at all: an empty table, not an error.
mkdir "$T/empty"
"$PVECG" sample --cgroup-root "$T/empty" --memory-cgroup-root "" --json |
  grep -Eqx '\{"time":[0-9]+,"took_us":[0-9]+,"guests":\[\]\}' || fail "empty tree"

# --watch: one JSON line per refresh until SIGTERM or SIGINT, exit 0.
for sig in TERM INT; do
  "$PVECG" sample "${ARGS[@]}" --json --watch 0.2 >"$T/watch" &
  WATCHER=$!
  for _ in $(seq 100); do [ "$(wc -l <"$T/watch")" -ge 3 ] && break; sleep 0.05; done
  kill -"$sig" "$WATCHER"
  rc=0
  wait "$WATCHER" || rc=$?
  WATCHER=
  [ "$rc" -eq 0 ] || fail "--watch: exit $rc on SIG$sig"
  [ "$(wc -l <"$T/watch")" -ge 3 ] || fail "--watch: $(wc -l <"$T/watch") refreshes"
  sed -E 's/^\{"time":[0-9]+,"took_us":[0-9]+,/{"time":T,"took_us":U,/' "$T/watch" |
    sort -u | diff "$T/expected" - || fail "--watch lines"
done
# The table mode clears the screen before each refresh.
timeout --preserve-status -s INT 1 "$PVECG" sample "${ARGS[@]}" --watch 0.3 >"$T/watch" || fail "--watch table"
[ "$(grep -c $'\033\\[H\033\\[2J' "$T/watch")" -ge 2 ] || fail "no screen clearing"

for args in "--watch 0" "--watch x" "--cgroup-root relative" "--json extra" "--bogus"; do
  rc=0
  # shellcheck disable=SC2086 # the words are the options
  "$PVECG" sample $args >/dev/null 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || fail "'$args': exit $rc, expected 2"
done
"$PVECG" sample --help | grep -q '^usage: pvecg sample' || fail "--help"
echo "PASS"
