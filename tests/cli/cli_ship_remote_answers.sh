#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg ship --format remote-write against a stand-in that answers as told
# (http_standin.py), one --once pass at a time on the same port: the
# spec's headers, --header's tenant and basic auth from the URL in every
# request; a store away (503) commits nothing, every cursor stays at
# --since and
# the next pass sends every sample; a Retry-After is waited out; a 400
# refusing every sample (Prometheus' "out of order sample") counts each as
# out_of_order in a bounded number of requests, moves every cursor past
# its rows, and the next pass sends nothing again; a 400 refusing one
# file's samples skips those alone and every other sample arrives; a 413
# halves the requests until everything arrives.
set -euo pipefail
: "${PVECG:?}" "${LAYOUT_DEFS:?}"

. "$(dirname "$0")/standin_fixture.sh" # T, fail, STANDIN, the files
rm -f "$D/pve-vm-9.0/102" # a guest no configuration names: a file problem

export STANDIN_HEADERS="Content-Type Content-Encoding X-Prometheus-Remote-Write-Version X-Scope-OrgID"
STANDIN_PORT=$("$(dirname "$0")/../helpers/free_port")
export STANDIN_PORT
standin() { # ANSWER...: LOG of its requests
  stop_standin
  rm -f "$T/port" "$T/log"
  "$(dirname "$0")/http_standin.py" "$T/port" "$T/log" "$@" &
  STANDIN=$!
  for _ in $(seq 200); do [ -s "$T/port" ] && break; sleep 0.05; done
  touch "$T/log"
}
ship_once() { # STATE [OPTION...]: the pass's status; its stderr in $T/err
  local rc=0
  "$PVECG" ship --once --format remote-write \
    --to "http://prom:s3cret@127.0.0.1:$STANDIN_PORT/api/v1/write" \
    --header 'X-Scope-OrgID: tenant-1' --since "$SINCE" --data-dir "$D" \
    --pve-config-dir "$C" --state-dir "$T/$1" --batch-bytes 4000000 \
    "${@:2}" 2>"$T/err" || rc=$?
  return $rc
}
metric() { # STATE NAME [LABEL]: its value in --status --prometheus
  "$PVECG" ship --status --prometheus --state-dir "$T/$1" |
    awk -v n="$2" -v l="${3:-}" 'index($1, n "{") == 1 && index($1, l) { print $2 }'
}
cursors() { # STATE: the files' cursors, one a line
  awk '$1 == "file" { print $6 }' "$T/$1"/*.state
}

# The samples: those of the Prometheus text export of the same rows, from
# the node's last half hour on (every file has rows after it: a file that
# ended before its cursor would be a file made anew), a time between rows.
SINCE=$((T0 + 60 * 270 + 30))
"$PVECG" export --format prometheus --all --since "$SINCE" --data-dir "$D" \
  --pve-config-dir "$C" >"$T/all.txt" 2>/dev/null
samples=$(grep -vc '^#' "$T/all.txt")
[ "$samples" -gt 1000 ] || fail "only $samples samples"

# Away: nothing committed, every cursor where --since put it.
standin 503:busy
status=0
ship_once a || status=$?
[ $status -eq 1 ] || fail "away: exit $status: $(cat "$T/err")"
[ "$(wc -l <"$T/log")" -eq 2 ] || fail "not 2 tries: $(cat "$T/log")"
[ "$(metric a pvecg_ship_samples_sent_total)" == 0 ] || fail "samples counted while away"
[ "$(metric a pvecg_ship_store_condition away)" == 1 ] || fail "not away"
[ "$(cursors a | sort -u)" == "$SINCE" ] || fail "a cursor moved: $(cursors a)"

# Back after a Retry-After: every sample in one request, with the headers.
standin retry:1 204
ship_once a || fail "back: exit $?: $(cat "$T/err")"
[ "$(wc -l <"$T/log")" -eq 2 ] || fail "not 2 requests: $(cat "$T/log")"
read -r _ path auth _ _ type encoding version tenant < <(tail -1 "$T/log")
[ "$path $auth" == "/api/v1/write Basic_$(printf prom:s3cret | base64)" ] ||
  fail "path or auth: $(cat "$T/log")"
[ "$type $encoding $version $tenant" == "Content-Type=application/x-protobuf Content-Encoding=snappy X-Prometheus-Remote-Write-Version=0.1.0 X-Scope-OrgID=tenant-1" ] ||
  fail "headers: $(cat "$T/log")"
[ "$(metric a pvecg_ship_samples_sent_total)" == "$samples" ] ||
  fail "$(metric a pvecg_ship_samples_sent_total) samples sent, not $samples"
[ "$(cursors a | sort -u)" != "$SINCE" ] || fail "no cursor moved"
grep -q "s3cret" "$T/err" "$T/a"/*.state && fail "the password said"
standin 204
ship_once a || fail "again: exit $?"
[ "$(wc -l <"$T/log")" -eq 0 ] || fail "rows sent again: $(cat "$T/log")"

# Refused whole (every part): counted by reason, the cursors passed,
# never sent again; the parts tried bounded: the halvings down to the
# first unit (a file's rows of a round; 15 of them: 4 halvings), eight
# units refused alone, none taken, then the rest as one request (19).
standin '400:out of order sample'
ship_once b || fail "refused: exit $?: $(cat "$T/err")"
[ "$(wc -l <"$T/log")" -le 20 ] || fail "$(wc -l <"$T/log") requests, not 20 at most"
[ "$(metric b pvecg_ship_samples_sent_total)" == 0 ] || fail "samples taken"
[ "$(metric b pvecg_ship_samples_refused_total out_of_order)" == "$samples" ] ||
  fail "not $samples out_of_order: $("$PVECG" ship --status --state-dir "$T/b")"
[ "$(metric b pvecg_ship_samples_refused_total too_old)" == 0 ] || fail "too_old"
[ "$(cursors b)" == "$(cursors a)" ] || fail "cursors not passed: $(cursors b)"
grep -q "the store refused requests of $samples samples: out of order sample" "$T/err" ||
  fail "the refusal not said: $(cat "$T/err")"
standin 204
ship_once b || fail "after the refusal: exit $?"
[ "$(wc -l <"$T/log")" -eq 0 ] || fail "refused rows sent again: $(cat "$T/log")"

# One file's samples refused (Prometheus rolls a request back at its
# first old sample): the request goes again in halves until that file's
# rows are alone; they alone are skipped, counted and the file named,
# every other sample is taken, in 1 + 2 log2(units) requests at most: with one round (a unit
# per file, 7 of them), 1 + 2 * 3 = 7.
export STANDIN_SAMPLES=1
sent() { # the samples of the requests answered 204, and of those marked
  awk '$(NF-2) == 204 { n += $(NF-1); m += $NF } END { print n + 0, m + 0 }' "$T/log"
}
marked=$(grep -c 'id="lxc/101"' "$T/all.txt")
[ "$marked" -gt 0 ] || fail "no sample of lxc/101"
standin 'mark:lxc/101:400:out of order sample'
ship_once c --rows-per-round 100000 ||
  fail "one file refused: exit $?: $(cat "$T/err")"
[ "$(sent)" == "$((samples - marked)) 0" ] ||
  fail "$(sent) sent, not $((samples - marked)) 0: $(cat "$T/log")"
[ "$(wc -l <"$T/log")" -eq 7 ] ||
  fail "not 7 requests: $(awk "{ print \$(NF-2), \$(NF-1), \$NF }" "$T/log")"
[ "$(metric c pvecg_ship_samples_sent_total)" == $((samples - marked)) ] ||
  fail "$(metric c pvecg_ship_samples_sent_total) samples counted sent"
[ "$(metric c pvecg_ship_samples_refused_total out_of_order)" == "$marked" ] ||
  fail "not $marked out_of_order: $("$PVECG" ship --status --state-dir "$T/c")"
"$PVECG" ship --status --state-dir "$T/c" |
  grep -q " $((samples - marked)) taken, $marked refused: too_old 0, out_of_order $marked," ||
  fail "--status: $("$PVECG" ship --status --state-dir "$T/c")"
grep -q ": pve-vm-9.0/101: $marked samples of its rows were refused: out of order sample; the rows are passed" "$T/err" ||
  fail "the file not named: $(cat "$T/err")"
[ "$(grep -c "samples of its rows were refused" "$T/err")" == 1 ] ||
  fail "more files named: $(cat "$T/err")"
[ "$(cursors c)" == "$(cursors a)" ] || fail "cursors not passed: $(cursors c)"
standin 204
ship_once c --rows-per-round 100000 || fail "after one file refused: exit $?"
[ "$(wc -l <"$T/log")" -eq 0 ] || fail "rows sent again: $(cat "$T/log")"

# Too large (413 above 20000 bytes; a file's 60 rows are less): halved
# until the parts pass, every sample taken once, the size learned kept.
standin limit:20000
ship_once d --rows-per-round 60 || fail "413: exit $?: $(cat "$T/err")"
[ "$(sent)" == "$samples 0" ] || fail "$(sent) sent, not $samples: $(cat "$T/log")"
awk '$(NF-2) == 413' "$T/log" | grep -q . || fail "no 413: $(cat "$T/log")"
[ "$(metric d pvecg_ship_samples_sent_total)" == "$samples" ] || fail "not $samples counted"
cap=$(metric d pvecg_ship_request_bytes_limit)
{ [ "$cap" -gt 0 ] && [ "$cap" -le 20000 ]; } || fail "the size learned: $cap"
[ "$(cursors d)" == "$(cursors a)" ] || fail "cursors not passed: $(cursors d)"
echo PASS
