# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# TLS and a token for the tests of reaching `pvecg serve` safely: a CA of
# the test's own made by openssl, a server certificate it signed for
# 127.0.0.1 and localhost, and a server started on them.  Sourced by the
# test scripts after fixture.sh.

# check DESCRIPTION EXPECTED ACTUAL: one line of the test's report; a test
# ends with FAILURES as its exit status.
FAILURES=0
check() {
  if [ "$2" == "$3" ]; then echo "ok   - $1"; else
    echo "FAIL - $1: expected '$2', got '$3'"; FAILURES=$((FAILURES + 1)); fi
}

# make_tls DIR: DIR/ca.pem, DIR/server.pem and DIR/server.key (mode 0600).
make_tls() {
  local d=$1
  local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  {
    openssl req -x509 "${ec[@]}" -days 2 -subj "/CN=pvecg test CA" \
      -keyout "$d/ca.key" -out "$d/ca.pem" &&
      openssl req "${ec[@]}" -subj "/CN=localhost" -keyout "$d/server.key" \
        -out "$d/server.csr" &&
      printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" \
        "basicConstraints=CA:FALSE" "extendedKeyUsage=serverAuth" >"$d/server.ext" &&
      openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" \
        -CAcreateserial -days 2 -extfile "$d/server.ext" -out "$d/server.pem"
  } >"$d/openssl.log" 2>&1 || { cat "$d/openssl.log" >&2; return 1; }
  chmod 600 "$d/server.key" "$d/ca.key"
}

# new_secret: a secret in Proxmox's form (a lowercase UUID).
new_secret() {
  python3 -c 'import uuid; print(uuid.uuid4())'
}

# start_serve LOG OPTIONS...: pvecg serve in the background (SERVE_PID)
# until its start is logged in LOG (at most 5 s); fails if it exits.
start_serve() {
  local log=$1 _
  shift
  # emptied here, not only by the child's redirection: a log reused from
  # an earlier server would otherwise show its "listening" line at once
  : >"$log"
  "$PVECG" serve "$@" 2>>"$log" &
  SERVE_PID=$!
  for _ in $(seq 100); do
    grep -q '^pvecg serve: listening on' "$log" && return 0
    kill -0 "$SERVE_PID" 2>/dev/null || { cat "$log" >&2; return 1; }
    sleep 0.05
  done
  cat "$log" >&2
  return 1
}

# stop_serve: stops the server start_serve started, if any.
stop_serve() {
  [ -z "${SERVE_PID:-}" ] || { kill "$SERVE_PID" 2>/dev/null || true; wait "$SERVE_PID" 2>/dev/null || true; }
  SERVE_PID=
}
