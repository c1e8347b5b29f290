# SPDX-License-Identifier: GPL-2.0-or-later
# The example configurations of the guides in docs/ (node.md,
# central-collector.md, stores.md, serving.md), as the tests load them:
# each is the fenced block after a line "<!-- example: NAME -->" (a name is
# used once in all of docs/*.md), with the
# paths, addresses and intervals of a real host replaced by the test's own.
# A deployment is collectd.conf (the block "main") plus its snippet for
# /etc/collectd/collectd.conf.d/, which ships as a file of packaging/examples/.
# Sourced by the deployment tests, after lib.sh.

PVECG_SOURCE=${PVECG_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
EXAMPLES_DOCS=${EXAMPLES_DOCS:-$PVECG_SOURCE/docs}
SNIPPET_DIR=${SNIPPET_DIR:-$PVECG_SOURCE/packaging/examples}
TYPES_DB=${TYPES_DB:-}

# Each deployment's snippet, "example name:file in SNIPPET_DIR".
EXAMPLE_SNIPPETS=(single-host:pvecg-single-host.conf
  central-sender:pvecg-central-sender.conf
  central-receiver:pvecg-central-collector.conf
  pve-node:pvecg-pve-node.conf
  write-graphite:pvecg-write-graphite.conf
  write-prometheus:pvecg-write-prometheus.conf
  network-receiver:pvecg-network-receiver.conf)
# The other files of packaging/examples/: fail2ban's filter and jail for
# pvecg serve (tests/serve/serve_guard.sh tests them), nginx in front of it
# with fail2ban's filter and jail for nginx's log (tests/serve/serve_nginx.sh)
# the Grafana dashboard for its /metrics (tests/serve/serve_dashboards.sh)
# and Prometheus' alert rules for it (tests/alerts/).
SERVE_EXAMPLES=(pvecg-serve-fail2ban-filter.conf pvecg-serve-fail2ban-jail.conf
  pvecg-serve-nginx.conf pvecg-serve-nginx-fail2ban-filter.conf
  pvecg-serve-nginx-fail2ban-jail.conf pvecg-grafana-dashboard.json
  pvecg-alerts.yml)

# example_block NAME: the block as written in the documentation.
example_block() {
  awk -v want="<!-- example: $1 -->" '
    $0 == want { found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    found && inside { print }' "$EXAMPLES_DOCS"/*.md
}

# example_host NAME: the host name the documentation gives the deployment's
# collectd.conf.
example_host() {
  case $1 in
  central-sender) echo node1 ;;
  central-receiver) echo collector ;;
  *) echo pve1 ;;
  esac
}

# example_main NAME [CONF_D]: the deployment's collectd.conf: the "main"
# block with its host name, including the snippets of CONF_D, or none.
example_main() {
  local main
  main=$(example_block main)
  [ -n "$main" ] || { echo "no example \"main\" in $EXAMPLES_DOCS/*.md" >&2; return 1; }
  printf '%s\n' "$main" | sed "s|^Hostname \"pve1\"$|Hostname \"$(example_host "$1")\"|" |
    if [ -n "${2:-}" ]; then
      sed "s|\"/etc/collectd/collectd.conf.d\"|\"$2\"|"
    else
      sed '/^<Include /,/^<\/Include>/d'
    fi
  # the collector also reads the row types from the generated types.db
  [ "$1" != central-receiver ] || example_block central-typesdb
}

# example_paths LOGNAME: a filter putting this test's paths, addresses and
# interval into a block.  Uses $TYPES_DB, $T, and when set: $EX_DAEMON (an
# rrdcached dir of start_rrdcached), $EX_PORT (the network plugin's port),
# $EX_TCP ("127.0.0.1:<port>" of a TCP rrdcached).
example_paths() {
  sed \
    -e "s|/usr/share/collectd/pvecg-types.db|$TYPES_DB|" \
    -e "s|/var/log/collectd.log|$T/$1.log|" \
    -e "s|/var/lib/pvecg|$T/data|" \
    -e "s|/var/run/rrdcached.sock|${EX_DAEMON:-/nonexistent}/sock|" \
    -e "s|/var/lib/rrdcached/db|${EX_DAEMON:-/nonexistent}/db|" \
    -e "s|/etc/collectd/passwd|$T/passwd|" \
    -e "s|rrd-store.example.net:42217|${EX_TCP:-}|" \
    -e "s|collector.example.net|127.0.0.1|" \
    -e "s|graphite.example.net|127.0.0.1|" \
    -e "s|\"2003\"|\"${EX_GRAPHITE_PORT:-2003}\"|" \
    -e "s|\"9103\"|\"${EX_PROMETHEUS_PORT:-9103}\"|" \
    -e "s|\"0.0.0.0\"|\"127.0.0.1\"|" \
    -e "s|\"25826\"|\"${EX_PORT:-25826}\"|" \
    -e "s|^Interval 10$|Interval 1|" \
    -e "s|FlushInterval 10$|FlushInterval 1|"
}

# plugin_dirs: a filter that loads our plugins from $PLUGIN_DIR and
# collectd's own from $SYSTEM_PLUGIN_DIR (the documented configs rely on
# both being in collectd's default /usr/lib/collectd, as the package has it).
plugin_dirs() {
  awk -v ours="$PLUGIN_DIR" -v stock="$SYSTEM_PLUGIN_DIR" '
    /^[ \t]*PluginDir[ \t]/ { next }
    match($0, /^[ \t]*<?LoadPlugin[ \t]+"?/) {
      dir = substr($0, RLENGTH + 1) ~ /^pve_/ ? ours : stock
      if (dir != last) print "PluginDir \"" dir "\""
      last = dir
    }
    { print }'
}

# example_conf NAME LOGNAME: the deployment NAME as one collectd.conf, with
# the snippet in place of the Include and this test's paths.
example_conf() {
  local block
  block=$(example_block "$1")
  [ -n "$block" ] || { echo "no example \"$1\" in $EXAMPLES_DOCS/*.md" >&2; return 1; }
  { example_main "$1" && printf '%s\n' "$block"; } | example_paths "$2" | plugin_dirs
  # what every instance of a test needs of its own
  cat <<CONF
BaseDir "$T"
PIDFile "$T/$2.collectd.pid"
CONF
}

# fixture_cgroup_block ROOT: pve_cgroup reading a fixture tree.
fixture_cgroup_block() {
  cat <<CONF
<Plugin pve_cgroup>
  CgroupRoot "$1"
  MemoryCgroupRoot ""
</Plugin>
CONF
}

# unixsock_block SOCKET: collectd's unixsock plugin, for FLUSH and LISTVAL.
unixsock_block() {
  cat <<CONF
PluginDir "$SYSTEM_PLUGIN_DIR"
LoadPlugin unixsock
<Plugin unixsock>
  SocketFile "$1"
</Plugin>
CONF
}

# csv_block DIR: collectd's csv plugin: what collectd dispatched, row by row.
csv_block() {
  cat <<CONF
PluginDir "$SYSTEM_PLUGIN_DIR"
LoadPlugin csv
<Plugin csv>
  DataDir "$1"
  StoreRates false
</Plugin>
CONF
}

# start_central: the central collector of docs/central-collector.md on loopback --
# an rrdcached ($EX_DAEMON, files in $DB), the example's AuthFile, and the
# central-receiver example as collectd instance "collector" with a unixsock
# socket at $T/collector.sock -- plus the configs $T/nodeN.conf of the
# central-sender example for each N given, each reading a fixture tree
# $T/nodeN made by the caller.
start_central() {
  local n
  [ -f "$TYPES_DB" ] || { echo "no pvecg-types.db (TYPES_DB)"; exit 1; }
  EX_DAEMON=$T/rrdcached
  EX_PORT=$(free_port)
  start_rrdcached "$EX_DAEMON"
  DB=$EX_DAEMON/db/pvecg
  example_block central-passwd >"$T/passwd"
  chmod 600 "$T/passwd"
  # UDP: the collector listens before anyone sends.
  { example_conf central-receiver collector; unixsock_block "$T/collector.sock"; } >"$T/collector.conf"
  start_collectd_as collector "$T/collector.conf"
  wait_for 10 test -S "$T/collector.sock"
  # One write thread on the senders, so that the network plugin sends a
  # guest's rows in the order they were read: with several, two rows of a
  # guest queued at once (collectd's first reads, a loaded host) can leave
  # in either order, and the collector rightly drops the older one with a
  # warning these tests do not expect.
  for n in "$@"; do
    { example_conf central-sender "node$n" | sed "s/node1/node$n/g"
      echo "WriteThreads 1"
      fixture_cgroup_block "$T/node$n"; } >"$T/node$n.conf"
  done
}

# csv_times FILE...: the times of the rows collectd dispatched, in order,
# as pve_rrd turns them into whole seconds (rounded), "+" marking one that
# is within 2 ms of half a second and so may have gone either way.
csv_times() {
  cat "$@" 2>/dev/null | awk -F, '$1 ~ /^[0-9]/ { print $1 }' | sort -n | uniq |
    awk '{ s = int($1 + 0.5); f = $1 - int($1)
           print s ((f > 0.498 && f < 0.502) ? "+" : "") }'
}

# same_rows EXPECTED ACTUAL: the lists of csv_times and journal_times match,
# a "+" time also matching the second before.  A dispatched row of the
# same second as the one accepted before it needs no row of its own: an
# RRD holds one row per second, and collectd's reads can come less than a
# second apart (its first two, or two on a loaded host).
same_rows() {
  awk -v want="$1" -v got="$2" 'BEGIN {
    ne = split(want, e, "\n"); na = split(got, a, "\n"); j = 1; prev = ""
    for (i = 1; i <= ne; i++) {
      t = e[i]; half = sub(/\+$/, "", t)
      if (j <= na && (a[j] == t || (half && a[j] == t - 1))) {
        prev = a[j++]; continue }
      if (prev != "" && (prev == t || (half && prev == t - 1))) continue
      exit 1
    }
    exit !(ne > 0 && j == na + 1) }'
}

# deploy_fixture ROOT VMID FACTOR: a fixture tree with QEMU guests VMID and
# VMID+1 and the container VMID+100, memory figures scaled by FACTOR.
deploy_fixture() {
  local root=$1 id=$2 k=$3
  mkdir -p "$root"
  qemu_guest "$root" "$id" 1.50 0.75 2.25 1.00 0.50 0.25
  v2_memory "$root/qemu.slice/$id.scope" $((1073741824 * k)) 104857600
  qemu_guest "$root" $((id + 1)) 3.00 2.00 4.00 3.00 5.00 4.00
  v2_memory "$root/qemu.slice/$((id + 1)).scope" $((2147483648 * k)) 0
  lxc_guest "$root" $((id + 100)) 11.11 5.55 22.22 11.11 33.33 22.22
  v2_memory "$root/lxc/$((id + 100))" $((314572800 * k)) 52428800
}

# check_deploy_values DIR VMID FACTOR: the last rows in DIR/pve-vm-9.0/
# hold exactly what deploy_fixture put in the tree (read from disk: flush
# first when a daemon writes them).
check_deploy_values() {
  local dir=$1 id=$2 k=$3 f
  f=$dir/$id
  check "$id memhost" $((1073741824 * k - 104857600)) "$(rrd_last "$f" memhost)"
  check "$id mem" $((1073741824 * k - 104857600)) "$(rrd_last "$f" mem)"
  check "$id pressurecpusome" 1.5 "$(rrd_last "$f" pressurecpusome)"
  check "$id pressurecpufull" 0.75 "$(rrd_last "$f" pressurecpufull)"
  check "$id pressureiosome" 2.25 "$(rrd_last "$f" pressureiosome)"
  check "$id pressurememoryfull" 0.25 "$(rrd_last "$f" pressurememoryfull)"
  f=$dir/$((id + 1))
  check "$((id + 1)) memhost" $((2147483648 * k)) "$(rrd_last "$f" memhost)"
  check "$((id + 1)) pressurememorysome" 5 "$(rrd_last "$f" pressurememorysome)"
  f=$dir/$((id + 100))
  check "$((id + 100)) lxc memhost U" U "$(rrd_last "$f" memhost)"
  check "$((id + 100)) lxc mem" $((314572800 * k - 52428800)) "$(rrd_last "$f" mem)"
  check "$((id + 100)) lxc pressurecpusome" 11.11 "$(rrd_last "$f" pressurecpusome)"
  check "$((id + 100)) lxc pressurememoryfull" 22.22 "$(rrd_last "$f" pressurememoryfull)"
}
