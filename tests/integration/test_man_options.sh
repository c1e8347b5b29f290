#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The manual pages against the code: every option a plugin's config
# callback accepts (its strcasecmp("Option", ...->key) calls) is an item of
# the OPTIONS section of the plugin's page with a "Default:" line, and the
# page documents no option the plugin does not accept.  podchecker finds
# every page of docs/man/ clean, and the build made each one into
# NAME.SECTION.gz with that name and section.
#
# Needs MAN_BUILD_DIR: the build's docs/man directory.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
MAN_BUILD_DIR=${MAN_BUILD_DIR:?the build directory of docs/man}
FAILURES=0

check() { # check DESCRIPTION EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then
    echo "ok   - $1"
  else
    printf 'FAIL - %s:\n  expected: %s\n  got:      %s\n' "$1" "$2" "$3"
    FAILURES=$((FAILURES + 1))
  fi
}

# code_options FILE: the option names the config callback compares keys to.
code_options() {
  grep -oE 'strcasecmp\("[A-Za-z0-9]+", *[a-z_]+->key\)' "$1" |
    sed -E 's/^strcasecmp\("([A-Za-z0-9]+)".*/\1/' | sort -u
}

# pod_options POD: "NAME DEFAULT" for each =item of the OPTIONS section,
# DEFAULT 1 when its text has a line starting "Default:".
pod_options() {
  awk '
    function item_end() { if (name != "") print name, has_default; name = "" }
    /^=head1 / { item_end(); in_options = ($0 == "=head1 OPTIONS"); next }
    !in_options { next }
    /^=item / { item_end(); name = $2; sub(/^B</, "", name); sub(/>.*$/, "", name)
                has_default = 0; next }
    /^=back/ { item_end(); next }
    /^Default: / { has_default = 1 }
    END { item_end() }' "$1"
}

for plugin in pve_cgroup pve_rrd; do
  pod=$SRC/docs/man/collectd-$plugin.5.pod
  # pve_cgroup hands its KSM and StallTime options to the files that use them
  files=("$SRC/plugin/$plugin.c")
  [ "$plugin" = pve_cgroup ] &&
    files+=("$SRC/plugin/ksm_schedule.c" "$SRC/plugin/stall_dispatch.c")
  code=$(cat "${files[@]}" | code_options /dev/stdin)
  # a plugin without options found means the key matching changed form
  check "$plugin: options found in the code" true "$([ -n "$code" ] && echo true || echo false)"
  check "$plugin: the options of collectd-$plugin(5) are the code's" \
    "$(echo "$code" | xargs)" "$(pod_options "$pod" | awk '{print $1}' | sort -u | xargs)"
  check "$plugin: every option has its default" "" \
    "$(pod_options "$pod" | awk '$2 != 1 {print $1}' | xargs)"
done

pods=("$SRC"/docs/man/*.pod)
check "the plugins' pages are among docs/man/*.pod" 2 \
  "$(printf '%s\n' "${pods[@]##*/}" | grep -cE '^collectd-pve_(cgroup|rrd)\.5\.pod$')"
for pod in "${pods[@]}"; do
  page=$(basename "$pod" .pod) # NAME.SECTION
  out=$(podchecker "$pod" 2>&1) && status=0 || status=$?
  check "podchecker $page: no errors or warnings" "0 " \
    "$status $(grep -E 'ERROR|WARNING' <<<"$out" | xargs)"
  check "$page.gz made by the build, titled ${page%.*}(${page##*.})" \
    ".TH ${page%.*} ${page##*.}" \
    "$(zcat "$MAN_BUILD_DIR/$page.gz" 2>/dev/null | awk '$1 == ".TH" {print $1, $2, $3; exit}')"
done

if [ "$FAILURES" -ne 0 ]; then
  echo "$FAILURES check(s) failed"
  exit 1
fi
echo "all checks passed"
