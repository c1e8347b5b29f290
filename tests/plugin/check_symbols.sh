#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every undefined dynamic symbol of a plugin must be provided by collectd
# itself or by a library the plugin links: collectd only resolves them when
# it dlopens the plugin, so a miss would otherwise show up only at
# LoadPlugin time on a user's host.
#
# usage: check_symbols.sh COLLECTD_BINARY PLUGIN.so...
set -euo pipefail

collectd=$1
shift
[ -x "$collectd" ] || { echo "no collectd binary at $collectd"; exit 77; }

defined_by() { nm -D --defined-only "$@" 2>/dev/null | awk '{print $3}' | sed 's/@.*//'; }

status=0
for plugin in "$@"; do
  # Linked libraries, and the dynamic loader itself (no "=>" in ldd's list).
  libs=$(ldd "$plugin" | awk '/=> \// {print $3} /^\t\/.*ld-linux/ {print $1}')
  # shellcheck disable=SC2086
  provided=$( { defined_by "$collectd"; defined_by $libs; } | sort -u)
  missing=$(nm -D --undefined-only "$plugin" | awk '{print $2}' | sed 's/@.*//' \
            | sort -u | comm -23 - <(echo "$provided"))
  # Weak symbols (w) are optional by definition.  (The list is taken once:
  # grep -q closing a pipe from nm would kill nm under pipefail.)
  undefined=$(nm -D --undefined-only "$plugin")
  missing=$(for s in $missing; do
              grep -qE "^ +w $s(@|$)" <<<"$undefined" || echo "$s"
            done)
  if [ -n "$missing" ]; then
    echo "$(basename "$plugin"): unresolved symbols:" $missing
    status=1
  else
    echo "$(basename "$plugin"): all $(nm -D --undefined-only "$plugin" | wc -l) undefined symbols resolve"
  fi
done
exit $status
