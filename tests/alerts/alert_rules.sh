#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped alert rules (packaging/examples/pvecg-alerts.yml) through
# promtool: `check rules` finds every rule and says nothing else; `test
# rules` with pvecg-alerts.test.yml, where each threshold has a series that
# crosses it and one just under it, gives exactly the alerts, labels and
# annotations expected; and each threshold moved to just under its "under"
# series (or a `for:` lengthened) makes that test fail, so it can.  The
# variant with short durations that the real-server tests load
# (fast_rules.py) passes `check rules` too.
set -euo pipefail
command -v promtool >/dev/null || { echo "SKIP: promtool is not installed"; exit 77; }
HERE=$(cd "$(dirname "$0")" && pwd)
RULES=$HERE/../../packaging/examples/pvecg-alerts.yml
T=$(mktemp -d /tmp/pvecg-alerts.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "not ok - $*"; exit 1; }

out=$(promtool check rules "$RULES" 2>&1) || fail "promtool check rules: $out"
[ "$out" = "Checking $RULES
  SUCCESS: 11 rules found" ] || fail "promtool check rules said: $out"
echo "ok - promtool check rules: 11 rules, nothing else said"

out=$(cd "$HERE" && promtool test rules pvecg-alerts.test.yml 2>&1) ||
  fail "promtool test rules: $out"
echo "ok - promtool test rules: every alert and label exact"

# mutate FROM TO: the rules with the first FROM replaced, against the same
# tests, must fail.
mutate() {
  mkdir -p "$T/m/packaging/examples" "$T/m/tests/alerts"
  python3 -c 'import sys
text = open(sys.argv[1]).read()
assert sys.argv[2] in text, sys.argv[2]
sys.stdout.write(text.replace(sys.argv[2], sys.argv[3], 1))' "$RULES" "$1" "$2" \
    >"$T/m/packaging/examples/pvecg-alerts.yml"
  cp "$HERE/pvecg-alerts.test.yml" "$T/m/tests/alerts/"
  if (cd "$T/m/tests/alerts" && promtool test rules pvecg-alerts.test.yml >/dev/null 2>&1); then
    fail "the tests pass with '$1' made '$2'"
  fi
  echo "ok - the tests fail with '$1' made '$2'"
}
mutate '> 0.15' '> 0.148'                       # memory some: 101 at 14.8 %
mutate 'memory_stalled_seconds_total{id=~"(qemu|lxc)/.+"}[5m])
              * on(id, instance, cluster) group_left(name, node) pve_guest_info,
            "vmid", "$1", "id", "[a-z]+/([0-9]+)")
          > 0.05' 'memory_stalled_seconds_total{id=~"(qemu|lxc)/.+"}[5m])
              * on(id, instance, cluster) group_left(name, node) pve_guest_info,
            "vmid", "$1", "id", "[a-z]+/([0-9]+)")
          > 0.048'                                # memory full: 101 at 4.83 %
mutate '[5m]) > 0.05' '[5m]) > 0.047'           # balloon: 105 at 4.8 %
mutate '+ 268435456))' '+ 269484032))'          # balloon: 103 a MiB above
mutate '> 0.2' '> 0.19'                         # guest cpu: 101 at 19.5 %
mutate '* 1.02 + 268435456' '* 1.02 + 268335456' # host memory: 101 under
mutate 'for: 30m' 'for: 29m'                    # host memory: pending at 29m
mutate '> 0.9' '> 0.898'                        # node memory: pve2 at 89.9 %
mutate 'pvecg_ship_lag_seconds > 900' 'pvecg_ship_lag_seconds >= 900'
mutate 'for: 15m
        labels:
          severity: warning
          scope: guest
        annotations:
          summary: "Guest {{ $labels.vmid }} ({{ $labels.name }}) on {{ $labels.node }} stalls on IO"' \
  'for: 14m
        labels:
          severity: warning
          scope: guest
        annotations:
          summary: "Guest {{ $labels.vmid }} ({{ $labels.name }}) on {{ $labels.node }} stalls on IO"'

"$HERE/fast_rules.py" "$RULES" >"$T/fast.yml"
out=$(promtool check rules "$T/fast.yml" 2>&1) || fail "the fast variant: $out"
echo "ok - the fast variant (durations only) passes promtool check rules"
