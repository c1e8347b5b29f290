#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg export --format remote-write against a stand-in that answers as
# told (http_standin.py): the spec's headers (Content-Type
# application/x-protobuf, Content-Encoding snappy, the version 0.1.0),
# --header's tenant, basic auth from the URL (never in a message); 503 and
# Retry-After waited out; a 400 refusing samples counted by refusal for
# every request, each sent once, status 1; 401 and 413 end the export
# with their fix; options that do not fit refused with status 2.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}"

. "$(dirname "$0")/standin_fixture.sh" # T, fail, STANDIN, the files

export STANDIN_HEADERS="Content-Type Content-Encoding X-Prometheus-Remote-Write-Version X-Scope-OrgID"
standin() { # ANSWER...: PORT, and LOG of its requests
  stop_standin
  rm -f "$T/port" "$T/log"
  "$(dirname "$0")/http_standin.py" "$T/port" "$T/log" "$@" &
  STANDIN=$!
  for _ in $(seq 200); do [ -s "$T/port" ] && break; sleep 0.05; done
  PORT=$(cat "$T/port")
  touch "$T/log"
}
# The VM's last two hours.
SINCE=$((T0 + 60 * 2040))
UNTIL=$((T0 + 60 * 2160))
export_vm() { # URL-TAIL [OPTIONS]
  local tail=$1
  shift
  "$PVECG" export --format remote-write --vmid 100 --data-dir "$D" \
    --pve-config-dir "$C" --since "$SINCE" --until "$UNTIL" \
    --to "http://$tail" "$@"
}
run() { # expected-exit COMMAND...: stderr in $T/err
  local want=$1 rc
  shift
  set +e
  "$@" 2>"$T/err"
  rc=$?
  set -e
  [ "$rc" -eq "$want" ] || fail "$*: exit $rc, expected $want; $(cat "$T/err")"
}
# The samples: those of the Prometheus text export of the same rows.
"$PVECG" export --format prometheus --vmid 100 --data-dir "$D" \
  --pve-config-dir "$C" --since "$SINCE" --until "$UNTIL" >"$T/all.txt"
samples=$(grep -vc '^#' "$T/all.txt")

# Taken: one request with the spec's headers, the tenant's, basic auth.
standin 204
run 0 export_vm "prom:s3cret@127.0.0.1:$PORT/api/v1/write" \
  --header 'X-Scope-OrgID: tenant-1'
[ "$(cat "$T/err")" == "pvecg export: sent $samples samples in 1 request to http://127.0.0.1:$PORT/api/v1/write" ] ||
  fail "summary: $(cat "$T/err")"
[ "$(wc -l <"$T/log")" -eq 1 ] || fail "not one request: $(cat "$T/log")"
read -r _ path auth _ _ type encoding version tenant <"$T/log"
[ "$path $auth" == "/api/v1/write Basic_$(printf prom:s3cret | base64)" ] ||
  fail "path or auth: $(cat "$T/log")"
[ "$type $encoding $version $tenant" == "Content-Type=application/x-protobuf Content-Encoding=snappy X-Prometheus-Remote-Write-Version=0.1.0 X-Scope-OrgID=tenant-1" ] ||
  fail "headers: $(cat "$T/log")"

# Away, then taken: 503 and a Retry-After of 1 s waited out.
standin 503:busy retry:1 204
run 0 export_vm "127.0.0.1:$PORT/api/v1/write"
[ "$(wc -l <"$T/log")" -eq 3 ] || fail "not 3 tries: $(cat "$T/log")"
grep -q "sent $samples samples in 1 request to" "$T/err" || fail "$(cat "$T/err")"

# Refused samples: every request once, its samples counted, status 1.
standin '400:out of order sample'
run 1 export_vm "127.0.0.1:$PORT/api/v1/write" --batch-bytes 4096
requests=$(wc -l <"$T/log")
[ "$requests" -gt 1 ] || fail "one request: $(cat "$T/log")"
grep -q "^pvecg export: sent 0 samples in $requests requests to http://127.0.0.1:$PORT/api/v1/write; $samples samples refused: out_of_order $samples\$" "$T/err" ||
  fail "refusals: $(cat "$T/err")"
grep -q "the server said: out of order sample" "$T/err" || fail "no words: $(cat "$T/err")"
grep -q "out_of_order_time_window" "$T/err" || fail "no fix: $(cat "$T/err")"

# The target refused: one try, the fix, status 1; the password unsaid.
standin 401:unauthorized
run 1 export_vm "prom:s3cret@127.0.0.1:$PORT/api/v1/write"
[ "$(wc -l <"$T/log")" -eq 1 ] || fail "401 tried again: $(cat "$T/log")"
grep -q "HTTP 401" "$T/err" || fail "401 unsaid: $(cat "$T/err")"
grep -q "check --token-file or the user:password in the URL" "$T/err" ||
  fail "401's fix: $(cat "$T/err")"
grep -q s3cret "$T/err" && fail "the password is in a message"
standin 413:too large
run 1 export_vm "127.0.0.1:$PORT/api/v1/write"
grep -q "lower --batch-bytes" "$T/err" || fail "413's fix: $(cat "$T/err")"
stop_standin

# Options that do not fit.
run 2 "$PVECG" export --format remote-write --vmid 100 --data-dir "$D"
grep -q "posts to an http(s):// --to" "$T/err" || fail "$(cat "$T/err")"
run 2 export_vm "127.0.0.1:1/api/v1/write" --header 'no colon'
run 2 export_vm "127.0.0.1:1/api/v1/write" --header "$(printf 'A: b\r\nC: d')"
run 2 "$PVECG" export --format json --vmid 100 --data-dir "$D" --header 'A: b'
run 2 export_vm "127.0.0.1:1/api/v1/write" --names pvecg
echo PASS
