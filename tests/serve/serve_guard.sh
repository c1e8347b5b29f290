#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg serve slowing a client that guesses tokens, on loopback: 1,000
# wrong tokens from 127.0.0.1 (one curl, one connection) are answered 401
# five times, then 429 with Retry-After, even with the right token, while
# 127.0.0.2 with the right token gets 200 in under a second and 127.0.0.3's
# wrong token a 401.  The log holds exactly one line in Proxmox's words
# ("authentication failure; rhost=...") per checked wrong token, one line
# for the block, none for the 429s, never a secret; the shipped fail2ban
# filter (packaging/examples/) matches exactly those lines and addresses
# (fail2ban-regex; the test ends with 77 without it, after the rest), and
# is the block docs/serving.md shows, as is the jail.
set -euo pipefail

for tool in rrdtool curl python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
: "${PVECG:?}" "${LAYOUT_DEFS:?}"

T=$(mktemp -d)
SERVE_PID=
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
. "$HERE/fixture.sh"
. "$HERE/tls_fixture.sh"
trap 'stop_serve; rm -rf "$T"' EXIT

T0=1700002800
NOW=$((T0 + 300 * 60))
D=$T/data
mkdir -p "$D/pve-vm-9.0"
make_file pve-vm-9.0 "$D/pve-vm-9.0/100" "$T0"
vm_rows "$T0" 300 | xargs -n 500 rrdtool update "$D/pve-vm-9.0/100"
SECRET=$(new_secret)
WRONG=$(new_secret)
printf '%s\n' "$SECRET" >"$T/token"
chmod 600 "$T/token"
PORT=$(loopback_port)
URL=http://127.0.0.1:$PORT/api2/json/nodes/pve1/qemu/100/rrddata?timeframe=hour
start_serve "$T/serve.log" --listen "127.0.0.1:$PORT" --data-dir "$D" --pve-config-dir "" \
  --now "$NOW" --token-file "$T/token"

# ---- 1,000 wrong tokens from one address ------------------------------------
for _ in $(seq 1000); do printf 'url = "%s"\noutput = "/dev/null"\n' "$URL"; done >"$T/urls"
curl -s -w '%{http_code}\n' --interface 127.0.0.1 -H "Authorization: Bearer $WRONG" \
  -K "$T/urls" >"$T/statuses" &
FLOOD=$!
# another address while they come (once the first few are in)
for _ in $(seq 100); do [ "$(wc -l <"$T/statuses")" -ge 10 ] && break; sleep 0.01; done
want=$("$PVECG" rrddata --vmid 100 --timeframe hour --data-dir "$D" --now "$NOW")
out=$(curl -s -w ' %{http_code} %{time_total}' --interface 127.0.0.2 -H "Authorization: Bearer $SECRET" "$URL")
flooding=$(kill -0 "$FLOOD" 2>/dev/null && echo yes || echo no)
wait "$FLOOD"
statuses=$(sort "$T/statuses" | uniq -c | awk '{print $2 "x" $1}' | xargs)
check "1,000 wrong tokens: 5 refused, then held off" "401x5 429x995" "$statuses"
check "held off even with the right token" 429 \
  "$(curl -s -o /dev/null -w '%{http_code}' --interface 127.0.0.1 -H "Authorization: Bearer $SECRET" "$URL")"
headers=$(curl -s -D - -o "$T/body" --interface 127.0.0.1 -H "Authorization: Bearer $WRONG" "$URL" | tr -d '\r')
check "429 and its body" '429 {"data":null,"message":"too many wrong tokens, try again later"}' \
  "$(head -n 1 <<<"$headers" | awk '{print $2}') $(cat "$T/body")"
retry=$(awk -F': ' 'tolower($1) == "retry-after" {print $2}' <<<"$headers")
check "Retry-After: the seconds left of 60" yes "$([ "${retry:-0}" -ge 1 ] && [ "$retry" -le 60 ] && echo yes || echo "no ($retry)")"

# ---- other addresses --------------------------------------------------------
echo "# 127.0.0.2 asked while 127.0.0.1 was still sending: $flooding"
check "127.0.0.2, the right token: 200 and the rows" "$want 200" "$(awk '{$NF = ""; sub(/ $/, ""); print}' <<<"$out")"
check "127.0.0.2: in under a second" yes "$(awk -v t="${out##* }" 'BEGIN { print (t < 1 ? "yes" : "no (" t " s)") }')"
check "127.0.0.3, a wrong token: 401" 401 \
  "$(curl -s -o /dev/null -w '%{http_code}' --interface 127.0.0.3 -H "Authorization: Bearer $WRONG" "$URL")"
check "127.0.0.3, no token: 401, not counted" 401 \
  "$(curl -s -o /dev/null -w '%{http_code}' --interface 127.0.0.3 "$URL")"

# ---- the log ----------------------------------------------------------------
# The server has answered; its last line may still be on its way: it is
# read once the server has stopped.
stop_serve
LINE='pvecg serve: authentication failure; rhost=%s user=- msg=wrong token (GET /api2/json/nodes/pve1/qemu/100/rrddata)'
check "127.0.0.1: one line per checked wrong token" 5 \
  "$(grep -cxF "$(printf "$LINE" 127.0.0.1)" "$T/serve.log" || true)"
check "127.0.0.1: one line for the block" 1 \
  "$(grep -cxF 'pvecg serve: 127.0.0.1: 5 wrong tokens within 60 s, answered 429 for 60 s' "$T/serve.log" || true)"
check "127.0.0.3: its line" 1 "$(grep -cxF "$(printf "$LINE" 127.0.0.3)" "$T/serve.log" || true)"
# (the first line names the port and the directory, which may hold "429")
check "no line per 429" 0 \
  "$(grep -v '^pvecg serve: listening on ' "$T/serve.log" | grep -c '429' | awk '{print $1 - 1}')"
check "every line accounted for (and the stop)" 10 "$(wc -l <"$T/serve.log")"
check "the log never holds a secret" 0 "$(grep -cF -e "${SECRET:0:8}" -e "${WRONG:0:8}" "$T/serve.log" || true)"

# ---- the shipped fail2ban files ---------------------------------------------
# example_block NAME: the fenced block after "<!-- example: NAME -->".
example_block() {
  awk -v want="<!-- example: $1 -->" '
    $0 == want { found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    found && inside { print }' "$SRC/docs/serving.md"
}
FILTER=$SRC/packaging/examples/pvecg-serve-fail2ban-filter.conf
JAIL=$SRC/packaging/examples/pvecg-serve-fail2ban-jail.conf
check "docs/serving.md shows the filter" "" "$(diff <(example_block serve-fail2ban-filter) "$FILTER" 2>&1 || true)"
check "docs/serving.md shows the jail" "" "$(diff <(example_block serve-fail2ban-jail) "$JAIL" 2>&1 || true)"
if ! command -v fail2ban-regex >/dev/null; then
  echo "SKIP: fail2ban-regex is not installed (Debian's fail2ban)"
  [ "$FAILURES" -eq 0 ] && exit 77
  exit 1
fi
ips=$(fail2ban-regex -o ip --datepattern '{NONE}' "$T/serve.log" "$FILTER" | sort | uniq -c | awk '{print $2 "x" $1}' | xargs)
check "fail2ban-regex: the failures' addresses, each line once" "127.0.0.1x5 127.0.0.3x1" "$ips"
# The jail as fail2ban reads it, from a copy of Debian's configuration.
cp -r /etc/fail2ban "$T/f2b"
cp "$FILTER" "$T/f2b/filter.d/pvecg-serve.conf"
cp "$JAIL" "$T/f2b/jail.d/pvecg-serve.conf"
dump=$(fail2ban-client -c "$T/f2b" -d 2>&1 | grep "'pvecg-serve'" || true)
check "the jail reads pvecg-serve.service's journal" yes \
  "$(grep -qF "['add', 'pvecg-serve', 'systemd']" <<<"$dump" &&
     grep -qF "'addjournalmatch', '_SYSTEMD_UNIT=pvecg-serve.service'" <<<"$dump" && echo yes || echo "no: $dump")"
check "the jail's failregex is the filter's" 1 \
  "$(grep -cF "'addfailregex', 'pvecg serve: authentication failure; rhost=<HOST> user=\\\\S* msg='" <<<"$dump")"

[ "$FAILURES" -eq 0 ] || { echo "$FAILURES failed"; exit 1; }
echo "all passed"
