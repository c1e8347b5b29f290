#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg serve with TLS (a CA this test makes) and a token file:
#   - every API path, /metrics and any other path but the page's own
#     files, existing or not, refuse a request without the right token
#     with the same 401, body and WWW-Authenticate: no header, a wrong
#     Bearer secret, a wrong PVEAPIToken secret, one a byte short or long,
#     "Basic", an empty Bearer, HEAD and POST alike;
#   - the right token as Bearer (the scheme in any case) or PVEAPIToken
#     gets the answer `pvecg rrddata` prints, byte for byte; the page's
#     files need no token; a token file in the USER@REALM!TOKENID form
#     also asks for that token id;
#   - a file of several tokens (comments, blank lines, CRLF): each one is
#     accepted; a symbol-rich secret that only looks like the Proxmox form
#     is accepted whole and refused by its tail after the '=';
#   - plain HTTP to the TLS port gets no answer;
#   - neither the secret nor a wrong one ever reaches the log, which says
#     why it refused;
#   - files refused at start (a token file readable by group or others, a
#     key readable by others, no token, a short secret, a control
#     character on line 3, a key that is not the certificate's; never the
#     secret in the message) and options that do not go together, with their
#     messages and exit codes; a non-loopback --listen without TLS and a
#     token is a usage error naming what is missing, and with --insecure
#     one warning line;
#   - --threads 1 serves without a word from libmicrohttpd.
set -euo pipefail

for tool in rrdtool curl openssl python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
: "${PVECG:?}" "${LAYOUT_DEFS:?}"

T=$(mktemp -d)
SERVE_PID=
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/fixture.sh"
. "$HERE/tls_fixture.sh"
trap 'stop_serve; rm -rf "$T"' EXIT

T0=1700002800
NOW=$((T0 + 300 * 60))
D=$T/data
mkdir -p "$D/pve-vm-9.0" "$D/pve-node-9.0"
make_file pve-vm-9.0 "$D/pve-vm-9.0/100" "$T0"
vm_rows "$T0" 300 | xargs -n 500 rrdtool update "$D/pve-vm-9.0/100"
make_file pve-node-9.0 "$D/pve-node-9.0/pve1" "$T0"
node_rows "$T0" 300 | xargs -n 500 rrdtool update "$D/pve-node-9.0/pve1"
make_tls "$T"
SECRET=$(new_secret)
WRONG=$(new_secret)
printf '%s\n' "$SECRET" >"$T/token"
chmod 600 "$T/token"

PORT=$(loopback_port)
URL=https://127.0.0.1:$PORT
start_serve "$T/serve.log" --listen "127.0.0.1:$PORT" --data-dir "$D" --pve-config-dir "" \
  --now "$NOW" --tls-cert "$T/server.pem" --tls-key "$T/server.key" --token-file "$T/token"
check "the start says TLS and a token" \
  "pvecg serve: listening on 127.0.0.1:$PORT, files in $D, TLS, a token asked" "$(head -n 1 "$T/serve.log")"

# ask URL [curl options...]: "STATUS BODY", each from the next loopback
# address (127.0.0.2, .3, ...): the refusals below are many more wrong
# tokens than one address may send in a minute (serve_guard.sh tests that).
echo 1 >"$T/from"
ask() {
  local n
  n=$(($(cat "$T/from") + 1))
  echo "$n" >"$T/from"
  curl -s --cacert "$T/ca.pem" --interface "127.0.0.$n" -w ' %{http_code}' "$@" |
    awk '{ s = $NF; $NF = ""; sub(/ $/, ""); print s " " $0 }'
}
REFUSED='401 {"data":null,"message":"authentication required"}'
RRD="/api2/json/nodes/pve1/qemu/100/rrddata?timeframe=hour"

# ---- refusals ---------------------------------------------------------------
# The first lines of the log (20 a minute) are these: what it says is checked below.
check "no header" "$REFUSED" "$(ask "$URL$RRD")"
check "/metrics, no header" "$REFUSED" "$(ask "$URL/metrics")"
check "a wrong Bearer secret" "$REFUSED" "$(ask -H "Authorization: Bearer $WRONG" "$URL$RRD")"
check "a wrong PVEAPIToken secret" "$REFUSED" "$(ask -H "Authorization: PVEAPIToken=root@pam!mon=$WRONG" "$URL$RRD")"
check "Basic" "$REFUSED" "$(ask -u "root:$SECRET" "$URL$RRD")"
check "a secret a byte short" "$REFUSED" "$(ask -H "Authorization: Bearer ${SECRET%?}" "$URL$RRD")"
check "a secret a byte long" "$REFUSED" "$(ask -H "Authorization: Bearer ${SECRET}0" "$URL$RRD")"
check "a secret of another length" "$REFUSED" "$(ask -H "Authorization: Bearer ${SECRET}${SECRET}" "$URL$RRD")"
check "an empty Bearer" "$REFUSED" "$(ask -H "Authorization: Bearer" "$URL$RRD")"
check "the token id alone" "$REFUSED" "$(ask -H "Authorization: PVEAPIToken=root@pam!mon" "$URL$RRD")"
for path in /api2/json/nodes /api2/json/cluster/resources /api2/json/pvecg/overview \
  /api2/json/nodes/pve1/rrddata?timeframe=day /api2/json/nodes/pve1/qemu/999/rrddata?timeframe=day \
  /api2/json/nodes/pve1/qemu/1e3/rrddata /api2/json/nope /api2/json/ /nope /index.html /app.js/ /app.css.map; do
  check "$path, no header" "$REFUSED" "$(ask "$URL$path")"
done
check "a wrong token on a path that does not exist" "$REFUSED" \
  "$(ask -H "Authorization: Bearer $WRONG" "$URL/api2/json/nope")"
check "POST, no header" "$REFUSED" "$(ask -X POST -d x=1 "$URL/api2/json/nodes")"
headers=$(curl -s --cacert "$T/ca.pem" -I "$URL/metrics" | tr -d '\r')
check "HEAD, no header" "HTTP/1.1 401 Unauthorized" "$(head -n 1 <<<"$headers")"
check "WWW-Authenticate" 'WWW-Authenticate: Bearer realm="pvecg"' "$(grep -i '^www-authenticate:' <<<"$headers")"
check "the refusal is JSON" "Content-Type: application/json;charset=UTF-8" "$(grep -i '^content-type:' <<<"$headers")"

# ---- the right token -------------------------------------------------------
want=$("$PVECG" rrddata --vmid 100 --timeframe hour --data-dir "$D" --now "$NOW")
check "Bearer: pvecg rrddata's bytes" "200 $want" "$(ask -H "Authorization: Bearer $SECRET" "$URL$RRD")"
check "bearer, in lower case" "200 $want" "$(ask -H "Authorization: bearer $SECRET" "$URL$RRD")"
check "PVEAPIToken" "200 $want" "$(ask -H "Authorization: PVEAPIToken=root@pam!monitoring=$SECRET" "$URL$RRD")"
check "the token shows a path that does not exist" \
  '404 {"data":null,"message":"no such path"}' "$(ask -H "Authorization: Bearer $SECRET" "$URL/api2/json/nope")"
metrics=$(curl -s --cacert "$T/ca.pem" -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $SECRET" "$URL/metrics")
check "/metrics with the token is not refused" "yes" "$([ "$metrics" != 401 ] && [ "$metrics" != 000 ] && echo yes || echo "no ($metrics)")"
for path in / /app.js /app.css; do
  check "$path needs no token" 200 "$(curl -s --cacert "$T/ca.pem" -o /dev/null -w '%{http_code}' "$URL$path")"
done

# ---- plain HTTP to the TLS port ---------------------------------------------
set +e
plain=$(curl -s -m 5 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $SECRET" "http://127.0.0.1:$PORT$RRD")
plain_rc=$?
set -e
check "plain HTTP gets no answer" "000 failed" "$plain $([ "$plain_rc" -ne 0 ] && echo failed)"

# ---- the log ----------------------------------------------------------------
check "the log never holds the secret" 0 "$(grep -cF -- "${SECRET:0:8}" "$T/serve.log" || true)"
check "nor a wrong one" 0 "$(grep -cF -- "${WRONG:0:8}" "$T/serve.log" || true)"
check "nor a header" 0 "$(grep -ci 'authorization\|PVEAPIToken=\|root@pam' "$T/serve.log" || true)"
check "a refusal without a token is logged" 1 "$(grep -cx 'pvecg serve: GET /metrics: 401 no token' "$T/serve.log" || true)"
# a presented token that is wrong in Proxmox's words (fail2ban's filter)
FAILED='pvecg serve: authentication failure; rhost=127\.0\.0\.[0-9]+ user=- msg'
check "a wrong token is logged" 6 "$(grep -cxE "$FAILED=wrong token \(GET /api2/json/nodes/pve1/qemu/100/rrddata\)" "$T/serve.log" || true)"
check "another scheme is logged" 2 "$(grep -cxE "$FAILED=not a Bearer or PVEAPIToken credential \(GET /api2/json/nodes/pve1/qemu/100/rrddata\)" "$T/serve.log" || true)"
check "each from its address (the log's 20 lines a minute)" 8 "$(grep -oE 'rhost=[0-9.]+' "$T/serve.log" | sort -u | wc -l)"
stop_serve

# ---- a token file with the token id ----------------------------------------
printf 'root@pam!monitoring=%s\n' "$SECRET" >"$T/token"
PORT=$(loopback_port)
URL=https://127.0.0.1:$PORT
start_serve "$T/serve.log" --listen "127.0.0.1:$PORT" --data-dir "$D" --pve-config-dir "" \
  --now "$NOW" --tls-cert "$T/server.pem" --tls-key "$T/server.key" --token-file "$T/token"
check "USER@REALM!TOKENID=: that id" "200 $want" "$(ask -H "Authorization: PVEAPIToken=root@pam!monitoring=$SECRET" "$URL$RRD")"
check "USER@REALM!TOKENID=: another id" "$REFUSED" "$(ask -H "Authorization: PVEAPIToken=root@pam!other=$SECRET" "$URL$RRD")"
check "USER@REALM!TOKENID=: Bearer and the secret" "200 $want" "$(ask -H "Authorization: Bearer $SECRET" "$URL$RRD")"
stop_serve

# ---- several tokens, and a secret that only looks like the Proxmox form -----
OTHER=$(new_secret)
RICH='a@b!c=defghijklmnopq'
printf '# pvecg serve tokens\r\n\n%s\r\n   \nroot@pam!grafana=%s\n#%s\n%s\n' \
  "$SECRET" "$OTHER" "$WRONG" "$RICH" >"$T/token"
PORT=$(loopback_port)
URL=https://127.0.0.1:$PORT
start_serve "$T/serve.log" --listen "127.0.0.1:$PORT" --data-dir "$D" --pve-config-dir "" \
  --now "$NOW" --tls-cert "$T/server.pem" --tls-key "$T/server.key" --token-file "$T/token"
check "several tokens: the first" "200 $want" "$(ask -H "Authorization: Bearer $SECRET" "$URL$RRD")"
check "several tokens: the second, with its id" "200 $want" \
  "$(ask -H "Authorization: PVEAPIToken=root@pam!grafana=$OTHER" "$URL$RRD")"
check "several tokens: the second, another id" "$REFUSED" \
  "$(ask -H "Authorization: PVEAPIToken=root@pam!other=$OTHER" "$URL$RRD")"
check "several tokens: a commented-out one" "$REFUSED" "$(ask -H "Authorization: Bearer $WRONG" "$URL$RRD")"
check "a symbol-rich secret, whole" "200 $want" "$(ask -H "Authorization: Bearer $RICH" "$URL$RRD")"
check "a symbol-rich secret: its tail" "$REFUSED" "$(ask -H "Authorization: Bearer defghijklmnopq" "$URL$RRD")"
check "a symbol-rich secret: as a PVEAPIToken" "$REFUSED" "$(ask -H "Authorization: PVEAPIToken=$RICH" "$URL$RRD")"
stop_serve

# ---- refused at start ------------------------------------------------------
# refused CODE MESSAGE OPTIONS...: pvecg serve exits with CODE, saying MESSAGE.
refused() {
  local code=$1 message=$2 rc=0
  shift 2
  timeout 10 "$PVECG" serve --data-dir "$D" --pve-config-dir "" "$@" 2>"$T/start.log" >/dev/null || rc=$?
  check "refused: $message" "$code $message" "$rc $(tail -n 1 "$T/start.log")"
}
TLS=(--tls-cert "$T/server.pem" --tls-key "$T/server.key")
printf '%s\n' "$SECRET" >"$T/token"
refused 2 "pvecg serve: --listen 0.0.0.0:$PORT is not a loopback address: it needs TLS (--tls-cert, --tls-key) and a token (--token-file), or --insecure" \
  --listen "0.0.0.0:$PORT"
refused 2 "pvecg serve: --listen 0.0.0.0:$PORT is not a loopback address: it needs a token (--token-file), or --insecure" \
  --listen "0.0.0.0:$PORT" "${TLS[@]}"
refused 2 "pvecg serve: --listen [::]:$PORT is not a loopback address: it needs TLS (--tls-cert, --tls-key), or --insecure" \
  --listen "[::]:$PORT" --token-file "$T/token"
refused 2 "pvecg serve: --tls-cert and --tls-key go together" --listen "127.0.0.1:$PORT" --tls-cert "$T/server.pem"
chmod 640 "$T/token"
refused 1 "pvecg serve: --token-file $T/token: group or others may read it (mode 0640); chmod 0600 $T/token" \
  --listen "127.0.0.1:$PORT" --token-file "$T/token"
chmod 604 "$T/token"
refused 1 "pvecg serve: --token-file $T/token: group or others may read it (mode 0604); chmod 0600 $T/token" \
  --listen "127.0.0.1:$PORT" --token-file "$T/token"
chmod 600 "$T/token"
chmod 644 "$T/server.key"
refused 1 "pvecg serve: --tls-key $T/server.key: others may read it (mode 0644); chmod 0640 $T/server.key" \
  --listen "127.0.0.1:$PORT" "${TLS[@]}"
chmod 640 "$T/server.key"
: >"$T/empty"
printf '# only a comment\n\n' >"$T/comment"
printf 'root@pam!monitoring=0123456789abcde\n' >"$T/short"
printf '%s\n# the next one is bad\n%s\001%s\n' "$SECRET" "$OTHER" "$WRONG" >"$T/control"
chmod 600 "$T/empty" "$T/comment" "$T/short" "$T/control"
refused 1 "pvecg serve: --token-file $T/empty: it holds no token (one a line: SECRET or USER@REALM!TOKENID=SECRET)" \
  --listen "127.0.0.1:$PORT" --token-file "$T/empty"
refused 1 "pvecg serve: --token-file $T/comment: it holds no token (one a line: SECRET or USER@REALM!TOKENID=SECRET)" \
  --listen "127.0.0.1:$PORT" --token-file "$T/comment"
refused 1 "pvecg serve: --token-file $T/short: line 1: the secret is shorter than 16 bytes: make a longer one (openssl rand -hex 32)" \
  --listen "127.0.0.1:$PORT" --token-file "$T/short"
refused 1 "pvecg serve: --token-file $T/control: line 3: it holds a space, a control character or a byte that is not ASCII" \
  --listen "127.0.0.1:$PORT" --token-file "$T/control"
check "a refused token file's message holds no secret" 0 \
  "$(grep -cF -e "${OTHER:0:8}" -e "${WRONG:0:8}" -e "${SECRET:0:8}" "$T/start.log" || true)"
refused 1 "pvecg serve: --tls-key $T/missing.key: No such file or directory" --listen "127.0.0.1:$PORT" \
  --tls-cert "$T/server.pem" --tls-key "$T/missing.key"
refused 1 "pvecg serve: --tls-cert $T/server.ext: not a PEM file" --listen "127.0.0.1:$PORT" \
  --tls-cert "$T/server.ext" --tls-key "$T/server.key"
refused 1 "pvecg serve: cannot listen on 127.0.0.1:$PORT: GnuTLS failed to setup x509 certificate/key: The certificate and the given key do not match." \
  --listen "127.0.0.1:$PORT" --tls-cert "$T/server.pem" --tls-key "$T/ca.key"

# ---- beyond loopback ---------------------------------------------------------
chmod 600 "$T/token"
PORT=$(loopback_port)
start_serve "$T/serve.log" --listen "0.0.0.0:$PORT" --data-dir "$D" --pve-config-dir "" --insecure
stop_serve
check "--insecure: one warning line" \
  "pvecg serve: warning: --insecure: 0.0.0.0:$PORT is served without TLS (--tls-cert, --tls-key) and a token (--token-file)" \
  "$(grep -i warning "$T/serve.log")"
check "--insecure: nothing else before the start" 2 "$(grep -c '' <(sed '/listening on/q' "$T/serve.log"))"
start_serve "$T/serve.log" --listen "0.0.0.0:$PORT" --data-dir "$D" --pve-config-dir "" "${TLS[@]}" --token-file "$T/token"
stop_serve
check "TLS and a token: no warning, no --insecure" 0 "$(grep -ci warning "$T/serve.log" || true)"

# ---- one thread ----------------------------------------------------------------
start_serve "$T/serve.log" --listen "127.0.0.1:$PORT" --data-dir "$D" --pve-config-dir "" --threads 1
check "--threads 1 answers" 200 "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/api2/json/nodes")"
stop_serve
check "--threads 1: libmicrohttpd says nothing" \
  "pvecg serve: listening on 127.0.0.1:$PORT, files in $D|pvecg serve: stopping (Terminated)" \
  "$(paste -sd'|' "$T/serve.log")"

[ "$FAILURES" -eq 0 ] || { echo "$FAILURES failures"; exit 1; }
echo PASS
