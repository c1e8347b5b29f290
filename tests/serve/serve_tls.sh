#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The TLS versions and ciphers pvecg serve offers, as a stock scanner sees
# them (Debian's sslscan, which tries every protocol and cipher it knows):
#   - by default, with an ECDSA key and with an RSA key: TLS 1.2 and 1.3
#     only, and exactly the ECDHE + AEAD ciphers written below (no CBC, no
#     SHA-1 MAC, no plain RSA key exchange);
#   - openssl s_client with TLS 1.0, with TLS 1.1, and with TLS 1.2 asking
#     for AES128-SHA (plain RSA, CBC, SHA-1) is refused, while a server
#     started with --tls-priorities NORMAL takes all three from the same
#     client (so the refusals are the server's, not the client's);
#   - a --tls-priorities GnuTLS cannot read is refused at start naming the
#     position, and one without --tls-cert too.
# Skipped (77) without sslscan (scripts/lib/common.sh installs it).
set -euo pipefail

for tool in sslscan openssl python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
: "${PVECG:?}"

T=$(mktemp -d)
SERVE_PID=
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/fixture.sh"
. "$HERE/tls_fixture.sh"
trap 'stop_serve; rm -rf "$T"' EXIT

mkdir "$T/data"
make_tls "$T"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
  -keyout "$T/rsa.key" -out "$T/rsa.pem" >"$T/openssl.log" 2>&1
chmod 600 "$T/rsa.key"

# serve KEY CERT [OPTIONS...]: a server on a new port (PORT).
serve() {
  local key=$1 cert=$2
  shift 2
  PORT=$(loopback_port)
  start_serve "$T/serve.log" --listen "127.0.0.1:$PORT" --data-dir "$T/data" \
    --pve-config-dir "" --tls-key "$key" --tls-cert "$cert" "$@"
}

# scan: sslscan's protocols ("TLSv1.2 enabled") and accepted ciphers
# ("TLSv1.2 ECDHE-ECDSA-AES128-GCM-SHA256"), one a line, sorted.
scan() {
  sslscan --no-colour --no-groups --no-heartbleed --no-check-certificate \
    "127.0.0.1:$PORT" >"$T/scan.txt" 2>&1
  sed -n -E 's/^(SSLv[0-9.]+|TLSv[0-9.]+) +(enabled|disabled)$/\1 \2/p' "$T/scan.txt"
  awk '$1 == "Preferred" || $1 == "Accepted" { print $2, $5 }' "$T/scan.txt" | sort
}

# connects OPTIONS...: the cipher openssl s_client agrees on, "(NONE)"
# when the handshake fails.  SECLEVEL=0: the client itself would refuse
# TLS 1.0/1.1 and SHA-1 otherwise, and this is about the server.
connects() {
  echo | timeout 10 openssl s_client -connect "127.0.0.1:$PORT" "$@" 2>&1 |
    sed -n 's/.*Cipher is \(.*\)$/\1/p' | head -n 1
}
OLD_CLIENTS=("-tls1 -cipher DEFAULT:@SECLEVEL=0" "-tls1_1 -cipher DEFAULT:@SECLEVEL=0"
  "-tls1_2 -cipher AES128-SHA:@SECLEVEL=0")

PROTOCOLS="SSLv2 disabled
SSLv3 disabled
TLSv1.0 disabled
TLSv1.1 disabled
TLSv1.2 enabled
TLSv1.3 enabled"
TLS13="TLSv1.3 TLS_AES_128_GCM_SHA256
TLSv1.3 TLS_AES_256_GCM_SHA384
TLSv1.3 TLS_CHACHA20_POLY1305_SHA256"

serve "$T/server.key" "$T/server.pem"
check "an ECDSA key: exactly these protocols and ciphers" "$PROTOCOLS
TLSv1.2 ECDHE-ECDSA-AES128-GCM-SHA256
TLSv1.2 ECDHE-ECDSA-AES256-GCM-SHA384
TLSv1.2 ECDHE-ECDSA-CHACHA20-POLY1305
$TLS13" "$(scan)"
for client in "${OLD_CLIENTS[@]}"; do
  # shellcheck disable=SC2086
  check "ECDSA: s_client $client is refused" "(NONE)" "$(connects $client)"
done
check "ECDSA: s_client -tls1_3 connects" "TLS_AES_256_GCM_SHA384" "$(connects -tls1_3)"
stop_serve

serve "$T/rsa.key" "$T/rsa.pem"
check "an RSA key: exactly these protocols and ciphers" "$PROTOCOLS
TLSv1.2 ECDHE-RSA-AES128-GCM-SHA256
TLSv1.2 ECDHE-RSA-AES256-GCM-SHA384
TLSv1.2 ECDHE-RSA-CHACHA20-POLY1305
$TLS13" "$(scan)"
for client in "${OLD_CLIENTS[@]}"; do
  # shellcheck disable=SC2086
  check "RSA: s_client $client is refused" "(NONE)" "$(connects $client)"
done
check "RSA: s_client -tls1_2 connects with ECDHE and AES-GCM" "ECDHE-RSA-AES256-GCM-SHA384" "$(connects -tls1_2)"
stop_serve

# The same client against GnuTLS's own defaults: it can make all three.
serve "$T/rsa.key" "$T/rsa.pem" --tls-priorities NORMAL
check "--tls-priorities NORMAL: s_client -tls1 connects" "ECDHE-RSA-AES256-SHA" \
  "$(connects -tls1 -cipher DEFAULT:@SECLEVEL=0)"
check "--tls-priorities NORMAL: s_client -tls1_1 connects" "ECDHE-RSA-AES256-SHA" \
  "$(connects -tls1_1 -cipher DEFAULT:@SECLEVEL=0)"
check "--tls-priorities NORMAL: s_client -cipher AES128-SHA -tls1_2 connects" "AES128-SHA" \
  "$(connects -tls1_2 -cipher AES128-SHA:@SECLEVEL=0)"
check "--tls-priorities NORMAL: the scanner sees TLS 1.0" "TLSv1.0 enabled" "$(scan | grep -x 'TLSv1.0 enabled')"
stop_serve

# refused CODE MESSAGE OPTIONS...: pvecg serve exits with CODE, saying MESSAGE.
refused() {
  local code=$1 message=$2 rc=0
  shift 2
  timeout 10 "$PVECG" serve --data-dir "$T/data" --pve-config-dir "" "$@" 2>"$T/start.log" >/dev/null || rc=$?
  check "refused: $message" "$code $message" "$rc $(tail -n 1 "$T/start.log")"
}
refused 2 "pvecg serve: --tls-priorities 'NORMAL:-VERS-ALL:+VERS-TLS1.9': GnuTLS stops at position 18 ('+VERS-TLS1.9'): The request is invalid." \
  --listen "127.0.0.1:$PORT" --tls-cert "$T/server.pem" --tls-key "$T/server.key" \
  --tls-priorities 'NORMAL:-VERS-ALL:+VERS-TLS1.9'
refused 2 "pvecg serve: --tls-priorities needs --tls-cert and --tls-key" \
  --listen "127.0.0.1:$PORT" --tls-priorities NORMAL

[ "$FAILURES" -eq 0 ] || { echo "$FAILURES failures"; exit 1; }
echo PASS
