#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The configuration snippets the package ships (packaging/examples/): each
# is its deployment's block of a guide in docs/ byte for byte (which the
# deployment tests run with values checked), holds nothing but LoadPlugin
# and <Plugin> blocks (it is a drop-in for /etc/collectd/collectd.conf.d/
# and must not collide with collectd.conf), and the real collectd loads it
# through the "main" collectd.conf of the page, whose <Include> names a
# directory holding only the snippet: `collectd -T` (config, init and one
# read of every plugin) succeeds without an error in the log.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"

# top_level_statements FILE: what the file does outside any block.
top_level_statements() {
  awk '/^[ \t]*(#|$)/ { next }
    depth == 0 { s = $1; sub(/^</, "", s); print s }
    /^[ \t]*<\// { depth--; next }
    /^[ \t]*</ { depth++ }' "$1" | sort -u | xargs
}

# the collectd snippets, and the server's fail2ban files (serve_guard tests
# those against docs/serving.md)
listed=("${SERVE_EXAMPLES[@]}")
for pair in "${EXAMPLE_SNIPPETS[@]}"; do
  listed+=("${pair#*:}")
done
check "every file of packaging/examples/ belongs to a deployment" \
  "$(printf '%s\n' "${listed[@]}" | sort | xargs)" "$(ls "$SNIPPET_DIR" | sort | xargs)"

deploy_fixture "$T/cgroup" 100 1
example_block central-passwd >"$T/passwd"
chmod 600 "$T/passwd"
EX_DAEMON=$T/rrdcached
start_rrdcached "$EX_DAEMON"
EX_PORT=$(free_port)
# a sink for write_graphite's lines, and write_prometheus's port
EX_GRAPHITE_PORT=$(free_port)
EX_PROMETHEUS_PORT=$(free_port)
python3 -c 'import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
while True:
    c, _ = s.accept()
    while c.recv(65536): pass' "$EX_GRAPHITE_PORT" &
SINK=$!
at_exit "kill $SINK; wait $SINK"

for pair in "${EXAMPLE_SNIPPETS[@]}"; do
  name=${pair%%:*} file=$SNIPPET_DIR/${pair#*:}
  check "$name: docs/ shows ${file##*/}" "" \
    "$(diff <(example_block "$name") "$file" 2>&1 || true)"
  check "$name: only plugins are loaded and configured" "LoadPlugin Plugin" \
    "$(top_level_statements "$file")"
  # the snippet as installed, with this test's paths, in its own conf.d
  mkdir -p "$T/$name.d"
  example_paths "$name" <"$file" | plugin_dirs >"$T/$name.d/${file##*/}"
  {
    example_main "$name" "$T/$name.d" | example_paths "$name" | plugin_dirs
    fixture_cgroup_block "$T/cgroup"
    printf 'BaseDir "%s"\nPIDFile "%s"\n' "$T" "$T/$name.pid"
  } >"$T/$name.conf"
  out=$("$COLLECTD" -T -C "$T/$name.conf" 2>&1) && status=0 || status=$?
  check "$name: collectd -T with the snippet included" "0" "$status"
  check "$name: the snippet's plugins were loaded" "" \
    "$(for p in $(grep -oE '^<?LoadPlugin "?[a-z_0-9]+' "$file" | awk '{print $2}' | tr -d '"'); do
         grep -q "plugin \"$p\" successfully loaded" "$T/$name.log" || echo "$p"
       done | xargs)"
  check "$name: no errors" "" \
    "$({ cat "$T/$name.log"; echo "$out"; } | grep -iE 'error|fail' || true)"
done
finish
