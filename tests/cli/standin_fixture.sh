# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the tests against a stand-in server (http_standin.py and
# kin): a private directory T, fail(), STANDIN (the stand-in's pid, set
# by the test) stopped by stop_standin and at exit, then export_fixture.sh's
# files in T.
T=$(mktemp -d)
STANDIN=
fail() { echo "FAIL: $*" >&2; exit 1; }
stop_standin() {
  [ -z "$STANDIN" ] || { kill "$STANDIN" 2>/dev/null || true; wait "$STANDIN" 2>/dev/null || true; }
  STANDIN=
}
trap 'stop_standin; rm -rf "$T"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/export_fixture.sh"
