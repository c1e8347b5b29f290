#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package: scripts/package builds it from the source tree in a
# private build directory; its exact file list (modes, owners, paths: the
# plugins in /usr/lib/collectd, pvecg-types.db, the manual pages, the
# snippets only below /usr/share/doc, nothing in /etc) and control fields;
# then, where this machine permits, `dpkg -i`, the real collectd loading the
# installed plugins from /usr/lib/collectd through the installed single-host
# snippet, exact values in the RRD files, and `dpkg --purge` (also on
# failure) leaving none of the files behind.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"

SRC=$PVECG_SOURCE
VERSION=$(sed -nE 's/^project\(pvecg VERSION ([0-9.]+) .*/\1/p' "$SRC/CMakeLists.txt")
ARCH=$(dpkg --print-architecture)
DEB=$T/build/pvecg_${VERSION}-1_${ARCH}.deb

if ! "$SRC/scripts/package" "$T/build" >"$T/package.out" 2>&1; then
  cat "$T/package.out"
  echo "FAIL - scripts/package"
  exit 1
fi
check "scripts/package names the package it made" "$DEB" "$(tail -n 1 "$T/package.out")"

# expected_contents: "mode owner path" of every member, sorted by path.
expected_contents() {
  local d='drwxr-xr-x root/root' f='-rw-r--r-- root/root' pair
  echo "$d ./"
  echo "$d ./usr/"
  echo "$d ./usr/bin/"
  echo "-rwxr-xr-x root/root ./usr/bin/pvecg"
  echo "$d ./usr/lib/"
  echo "$d ./usr/lib/collectd/"
  echo "$f ./usr/lib/collectd/pve_cgroup.so"
  echo "$f ./usr/lib/collectd/pve_rrd.so"
  echo "$d ./usr/lib/systemd/"
  echo "$d ./usr/lib/systemd/system/"
  echo "$f ./usr/lib/systemd/system/pvecg-serve.service"
  echo "$f ./usr/lib/systemd/system/pvecg-ship.service"
  echo "$d ./usr/share/"
  echo "$d ./usr/share/collectd/"
  echo "$f ./usr/share/collectd/pvecg-types.db"
  echo "$d ./usr/share/doc/"
  echo "$d ./usr/share/doc/pvecg/"
  echo "$f ./usr/share/doc/pvecg/changelog.Debian.gz"
  echo "$f ./usr/share/doc/pvecg/copyright"
  echo "$d ./usr/share/doc/pvecg/examples/"
  for pair in "${EXAMPLE_SNIPPETS[@]}" "${SERVE_EXAMPLES[@]/#/:}"; do
    echo "$f ./usr/share/doc/pvecg/examples/${pair#*:}"
  done
  echo "$d ./usr/share/lintian/"
  echo "$d ./usr/share/lintian/overrides/"
  echo "$f ./usr/share/lintian/overrides/pvecg"
  echo "$d ./usr/share/man/"
  echo "$d ./usr/share/man/man1/"
  for page in pvecg pvecg-check pvecg-export pvecg-graph pvecg-rrddata pvecg-sample pvecg-serve pvecg-ship; do
    echo "$f ./usr/share/man/man1/$page.1.gz"
  done
  echo "$d ./usr/share/man/man5/"
  echo "$f ./usr/share/man/man5/collectd-pve_cgroup.5.gz"
  echo "$f ./usr/share/man/man5/collectd-pve_rrd.5.gz"
}

echo "# the package"
check "dpkg-deb -c: the file list" "$(expected_contents | sort -k3)" \
  "$(dpkg-deb -c "$DEB" | awk '{print $1, $2, $6}' | sort -k3)"
check "control: Package Version Architecture Section" \
  "pvecg $VERSION-1 $ARCH utils" \
  "$(dpkg-deb -f "$DEB" Package Version Architecture Section | cut -d' ' -f2 | xargs)"
check "control: Depends" \
  "collectd-core (>= 5.12.0), libc6 (>= 2.34), libcurl4 (>= 7.16.2), libmicrohttpd12 (>= 0.9.50), librrd8 (>= 1.6.0), libsnappy1v5 (>= 1.1.9), zlib1g (>= 1:1.2.0)" \
  "$(dpkg-deb -f "$DEB" Depends)"
check "control: no conffiles, no maintainer scripts" "./ ./control ./md5sums" \
  "$(dpkg-deb --ctrl-tarfile "$DEB" | tar -t | sort | xargs)"
check "copyright: GPL-2+, as LICENSE" "License: GPL-2+" \
  "$(dpkg-deb --fsys-tarfile "$DEB" | tar -xO ./usr/share/doc/pvecg/copyright |
    grep -m1 '^License:')"
# The maintainer address stays a build setting (PVECG_PACKAGE_MAINTAINER),
# so lintian's two complaints about its default are expected.
check "lintian: nothing but the default maintainer address" "" \
  "$(lintian --suppress-tags bogus-mail-host,bogus-mail-host-in-debian-changelog \
    "$DEB" 2>&1 | grep -v 'running with root privileges' || true)"

# ---- installed --------------------------------------------------------
package_absent() {
  case $(dpkg-query -W -f='${Status}' pvecg 2>/dev/null || true) in
  '' | *not-installed) return 0 ;;
  *) return 1 ;;
  esac
}

# dpkg_retry ARGS...: dpkg, waiting up to a minute for another dpkg or apt
# to release the lock.
dpkg_retry() {
  local deadline=$((SECONDS + 60)) out
  until out=$(DEBIAN_FRONTEND=noninteractive dpkg "$@" 2>&1); do
    if ! grep -q lock <<<"$out" || [ $SECONDS -ge $deadline ]; then
      echo "$out"
      return 1
    fi
    sleep 1
  done
  echo "$out"
}

why_not=
if [ "$(id -u)" -ne 0 ]; then
  why_not="dpkg -i needs root"
elif ! package_absent; then
  why_not="the machine has a pvecg package already; not replacing it"
else
  for f in $(dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ {print substr($6, 2)}'); do
    [ ! -e "$f" ] || why_not="$f exists already; not overwriting it"
  done
fi
if [ -n "$why_not" ]; then
  [ "$FAILURES" -eq 0 ] || finish
  echo "SKIP: installing: $why_not"
  exit 77
fi

# purge_package: dpkg --purge pvecg, if installed by now.
purge_package() {
  package_absent || dpkg_retry --purge pvecg >>"$T/dpkg.out"
}
at_exit purge_package
if ! dpkg_retry -i "$DEB" >"$T/dpkg.out"; then
  cat "$T/dpkg.out"
  echo "FAIL - dpkg -i"
  exit 1
fi
check "dpkg -i: installed" "install ok installed" "$(dpkg-query -W -f='${Status}' pvecg)"
for pair in "${EXAMPLE_SNIPPETS[@]}" "${SERVE_EXAMPLES[@]/#/:}"; do
  check_true "installed ${pair#*:} is the tree's" \
    cmp -s "$SRC/packaging/examples/${pair#*:}" "/usr/share/doc/pvecg/examples/${pair#*:}"
done
check "nothing enabled in /etc" "" "$(dpkg -L pvecg | grep '^/etc' || true)"
check "/usr/bin/pvecg runs" "pvecg $VERSION" "$(/usr/bin/pvecg --version 2>&1)"
check "pvecg-export(1) installed" 1 \
  "$(zcat /usr/share/man/man1/pvecg-export.1.gz | grep -c '^\.TH pvecg-export 1 ')"

# collectd with the installed plugins, as docs/node.md has it: its
# collectd.conf including a conf.d with the installed single-host snippet.
deploy_fixture "$T/cgroup" 100 1
mkdir -p "$T/conf.d"
example_paths collectd </usr/share/doc/pvecg/examples/pvecg-single-host.conf \
  >"$T/conf.d/pvecg-single-host.conf"
{
  echo 'PluginDir "/usr/lib/collectd"'
  example_main single-host "$T/conf.d" | example_paths collectd
  fixture_cgroup_block "$T/cgroup"
  printf 'BaseDir "%s"\nPIDFile "%s"\n' "$T" "$T/collectd.pid"
} >"$T/collectd.conf"
check "no plugin of the build tree is named" "" \
  "$(grep -h PluginDir "$T/collectd.conf" "$T/conf.d/"* | grep -v '"/usr/lib/collectd"' || true)"
VM=$T/data/pve-vm-9.0
start_collectd_as collectd "$T/collectd.conf"
COLLECTD_PID=$(cat "$T/collectd.pid")
wait_for 20 has_update "$VM/100"
wait_for 20 has_update "$VM/200"
wait_for 20 has_update "$T/data/pve-node-9.0/pve1"
sleep 1.5
COLLECTD_PID=
stop_collectd_as collectd
check "files of the guests" "100 101 200" "$(ls "$VM" | sort -n | xargs)"
check_deploy_values "$VM" 100 1
check "both plugins loaded" 2 \
  "$(grep -cE 'plugin "pve_(cgroup|rrd)" successfully loaded' "$T/collectd.log")"
check "no errors" "" "$(grep -iE 'error|fail' "$T/collectd.log" || true)"
check "the installed pvecg knows the files" "$VM/100: pve-vm-9.0" \
  "$(/usr/bin/pvecg check "$VM/100")"

# The server's unit, and the installed server answering from the files.
UNIT=/usr/lib/systemd/system/pvecg-serve.service
if command -v systemd-analyze >/dev/null; then
  # Only what it says of our unit: it also loads the units ours names
  # (After=, WantedBy=), and reports on other packages' units it meets.
  check "pvecg-serve.service passes systemd-analyze verify" "" \
    "$(systemd-analyze verify --man=no "$UNIT" 2>&1 | grep -F "$(basename "$UNIT")" || true)"
fi
check "pvecg-serve.service starts the installed pvecg serve" \
  'ExecStart=/usr/bin/pvecg serve $PVECG_SERVE_OPTS' "$(grep '^ExecStart=' "$UNIT")"
check "pvecg-serve.service is not enabled" "" \
  "$(find /etc/systemd -name pvecg-serve.service 2>/dev/null)"
SHIP_UNIT=/usr/lib/systemd/system/pvecg-ship.service
if command -v systemd-analyze >/dev/null; then
  check "pvecg-ship.service passes systemd-analyze verify" "" \
    "$(systemd-analyze verify --man=no "$SHIP_UNIT" 2>&1 | grep -F "$(basename "$SHIP_UNIT")" || true)"
fi
check "pvecg-ship.service starts the installed pvecg ship" \
  'ExecStart=/usr/bin/pvecg ship $PVECG_SHIP_OPTS' "$(grep '^ExecStart=' "$SHIP_UNIT")"
check "pvecg-ship.service keeps its state where pvecg ship does by default" \
  "StateDirectory=pvecg/ship /var/lib/pvecg/ship" \
  "$(grep '^StateDirectory=' "$SHIP_UNIT") $(/usr/bin/pvecg ship --help | sed -n 's/.*cursors and totals (\(.*\)), one/\1/p')"
check "pvecg-ship.service is not enabled" "" \
  "$(find /etc/systemd -name pvecg-ship.service 2>/dev/null)"
PORT=$(free_port) NOW=$(date +%s)
/usr/bin/pvecg serve --listen "127.0.0.1:$PORT" --data-dir "$T/data" --now "$NOW" 2>"$T/serve.log" &
SERVE_PID=$!
at_exit "kill $SERVE_PID 2>/dev/null; wait $SERVE_PID 2>/dev/null"
wait_for 10 curl -s -o /dev/null "http://127.0.0.1:$PORT/"
check "the installed pvecg serve answers what pvecg rrddata prints" \
  "$(/usr/bin/pvecg rrddata --data-dir "$T/data" --vmid 100 --timeframe hour --now "$NOW")" \
  "$(curl -s "http://127.0.0.1:$PORT/api2/json/nodes/pve1/qemu/100/rrddata?timeframe=hour" --max-time 10)"
kill -TERM "$SERVE_PID"
wait "$SERVE_PID" 2>/dev/null || true

purge_package
check_true "dpkg --purge: gone" package_absent
check "dpkg --purge: no file left" "" \
  "$(for f in $(dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ {print substr($6, 2)}'); do
       [ ! -e "$f" ] || echo "$f"
     done)"
finish
