#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian's nginx in front of pvecg serve with the shipped site
# (packaging/examples/pvecg-serve-nginx.conf), included from a copy of
# Debian's own nginx.conf whose paths point into the test's directory, on a
# certificate the test made; pvecg serve on loopback without TLS, with
# --connections-per-client 0, --trusted-proxy 127.0.0.1 and a token file of
# an unscoped token and one scoped to vmids=100:
#   - through nginx the unscoped token gets the listings as pvecg serve
#     answers them directly and a guest's rrddata byte for byte as
#     `pvecg rrddata` prints it; the scoped token sees guest 100 alone, and
#     another guest's rrddata is the missing one's answer; no token is
#     pvecg serve's 401;
#   - TLS as pvecg serve offers it: sslscan sees exactly TLS 1.2 and 1.3 and
#     the ciphers serve_tls expects of pvecg serve (Debian's defaults would
#     add CBC, CCM, ARIA and Camellia); s_client -tls1_1 refused, -tls1_2 and
#     -tls1_3 connect;
#   - 300 requests from 127.0.0.6 at once: the first 51 (1 + burst) answered
#     200, at least 200 of them nginx's 429 (limit_req), while 127.0.0.2 is
#     answered 200 right after, and 127.0.0.6 again once the burst is over;
#   - behind nginx pvecg serve's guard counts the client nginx forwards
#     for (X-Forwarded-For): after 5 wrong tokens from 127.0.0.3 that
#     address gets pvecg serve's 429 even with the right token, while
#     127.0.0.5 with the right token is answered; its log names 127.0.0.3,
#     and a client that forges the header straight to pvecg serve is
#     logged under its own address;
#   - the access log names each client; the shipped fail2ban filter for it
#     (fail2ban-regex) matches exactly the wrong tokens' 401s and nginx's
#     429s by their real addresses, not a request without a token, not
#     pvecg serve's 429; its jail as fail2ban-client -d reads it; the log
#     holds no secret; docs/serving.md shows the three files as shipped.
# Skipped (77) where nginx is not installed or cannot run here.
set -euo pipefail

for tool in rrdtool curl python3 openssl sslscan fail2ban-regex; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || { echo "SKIP: nginx is not installed (Debian's nginx)"; exit 77; }
: "${PVECG:?}" "${LAYOUT_DEFS:?}"

T=$(mktemp -d)
SERVE_PID=
NGINX_PID=
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
EX=$SRC/packaging/examples
. "$HERE/fixture.sh"
. "$HERE/tls_fixture.sh"
stop_nginx() {
  [ -z "$NGINX_PID" ] || { kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; }
  NGINX_PID=
}
trap 'stop_nginx; stop_serve; rm -rf "$T"' EXIT

# ---- pvecg serve on loopback --------------------------------------------------
T0=1700002800
NOW=$((T0 + 300 * 60))
D=$T/data
mkdir -p "$D/pve-vm-9.0" "$D/pve-node-9.0"
make_file pve-node-9.0 "$D/pve-node-9.0/pve1" "$T0"
node_rows "$T0" 300 | xargs -n 500 rrdtool update "$D/pve-node-9.0/pve1"
for vmid in 100 101; do
  make_file pve-vm-9.0 "$D/pve-vm-9.0/$vmid" "$T0"
  vm_rows "$T0" 300 | xargs -n 500 rrdtool update "$D/pve-vm-9.0/$vmid"
done
ADMIN=$(new_secret)
TENANT=$(new_secret)
WRONG=$(new_secret)
printf '# the team\n%s\n# a tenant\nmonitor@pve!tenant=%s vmids=100\n' "$ADMIN" "$TENANT" >"$T/token"
chmod 600 "$T/token"
SPORT=$(loopback_port)
start_serve "$T/serve.log" --listen "127.0.0.1:$SPORT" --data-dir "$D" --pve-config-dir "" \
  --now "$NOW" --token-file "$T/token" --connections-per-client 0 \
  --trusted-proxy 127.0.0.1

# ---- nginx with the shipped site ---------------------------------------------
# Debian's nginx.conf with its pid, logs and includes in $T/nginx, nginx's
# temporary files there too, the workers as this user; the site with the
# test's port, certificate, log directory and pvecg serve's port.
N=$T/nginx
mkdir -p "$N/sites-enabled" "$N/conf.d" "$N/log" "$N/tmp"
make_tls "$T"
NPORT=$(loopback_port)
user_line="user $(id -un);"
[ "$(id -u)" -eq 0 ] || user_line=
sed -e "s|^user .*;$|$user_line|" -e "s|/run/nginx.pid|$N/nginx.pid|" \
  -e "s|/var/log/nginx/|$N/log/|g" -e "s|/etc/nginx/conf.d/|$N/conf.d/|" \
  -e "s|/etc/nginx/sites-enabled/|$N/sites-enabled/|" /etc/nginx/nginx.conf >"$N/nginx.conf"
for t in client_body proxy fastcgi uwsgi scgi; do echo "${t}_temp_path $N/tmp/$t;"; done >"$N/conf.d/tmp.conf"
sed -e "s|^    listen 443 ssl http2;$|    listen 127.0.0.1:$NPORT ssl http2;|" \
  -e '/^    listen \[::\]:443 ssl http2;$/d' \
  -e "s|/etc/ssl/certs/pvecg-serve.pem|$T/server.pem|" \
  -e "s|/etc/ssl/private/pvecg-serve.key|$T/server.key|" \
  -e "s|/var/log/nginx/|$N/log/|" \
  -e "s|http://127.0.0.1:8016;|http://127.0.0.1:$SPORT;|" \
  "$EX/pvecg-serve-nginx.conf" >"$N/sites-enabled/pvecg-serve"
check "the site, its place-holders all replaced" \
  "listen 127.0.0.1:$NPORT ssl http2;|$T/server.pem;|$T/server.key;|$N/log/pvecg-serve.access.log|http://127.0.0.1:$SPORT;" \
  "$(grep -o -e 'listen .*;' -e "$T/server[.a-z]*;" -e "$N/log/[a-z.-]*access.log" -e 'http://[0-9.:]*;' \
    "$N/sites-enabled/pvecg-serve" | paste -sd '|')"
if ! "$NGINX" -t -p "$N" -c "$N/nginx.conf" -e "$N/log/start.log" >"$N/test.log" 2>&1; then
  cat "$N/test.log"
  if grep -q 'Permission denied\|Operation not permitted' "$N/test.log"; then
    echo "SKIP: nginx cannot run here"
    exit 77
  fi
  echo "FAIL - nginx -t refuses the shipped site"
  exit 1
fi
"$NGINX" -p "$N" -c "$N/nginx.conf" -e "$N/log/start.log" -g 'daemon off;' 2>"$N/stderr.log" &
NGINX_PID=$!
URL=https://localhost:$NPORT
CURL=(curl -s --cacert "$T/ca.pem" --resolve "localhost:$NPORT:127.0.0.1")
for _ in $(seq 100); do "${CURL[@]}" -o /dev/null "$URL/" && break; sleep 0.05; done
kill -0 "$NGINX_PID" 2>/dev/null || { cat "$N/stderr.log" "$N/log/"*; echo "FAIL - nginx did not start"; exit 1; }

# get [CURL OPTIONS...] PATH: "STATUS BODY" through nginx
get() {
  local path=${*: -1}
  "${CURL[@]}" -w ' %{http_code}' "${@:1:$#-1}" "$URL$path" |
    awk '{ s = $NF; $NF = ""; sub(/ $/, ""); print s " " $0 }'
}
direct() {
  curl -s -w ' %{http_code}' -H "$1" "http://127.0.0.1:$SPORT$2" |
    awk '{ s = $NF; $NF = ""; sub(/ $/, ""); print s " " $0 }'
}
AS_ADMIN="Authorization: Bearer $ADMIN"
AS_TENANT="Authorization: PVEAPIToken=monitor@pve!tenant=$TENANT"

# ---- the answers through nginx ----------------------------------------------
for path in /api2/json/cluster/resources /api2/json/nodes /api2/json/pvecg/overview; do
  want=$(direct "$AS_ADMIN" "$path")
  check "unscoped $path: pvecg serve's own answer" "$want" "$(get -H "$AS_ADMIN" "$path")"
done
BOTH='200 {"data":[{"id":"node/pve1","type":"node","node":"pve1"},{"id":"guest/100","type":"guest","vmid":100},{"id":"guest/101","type":"guest","vmid":101}]}'
check "unscoped cluster/resources: the node and both guests" "$BOTH" "$(get -H "$AS_ADMIN" /api2/json/cluster/resources)"
for vmid in 100 101; do
  want=$("$PVECG" rrddata --vmid "$vmid" --timeframe day --data-dir "$D" --now "$NOW")
  check "unscoped rrddata of $vmid: pvecg rrddata's bytes" "200 $want" \
    "$(get -H "$AS_ADMIN" "/api2/json/nodes/pve1/qemu/$vmid/rrddata?timeframe=day")"
done
check "scoped cluster/resources: guest 100 alone" \
  '200 {"data":[{"id":"guest/100","type":"guest","vmid":100}]}' \
  "$(get -H "$AS_TENANT" /api2/json/cluster/resources)"
want=$("$PVECG" rrddata --vmid 100 --timeframe hour --data-dir "$D" --now "$NOW")
check "scoped nodes: none" '200 {"data":[]}' "$(get -H "$AS_TENANT" /api2/json/nodes)"
check "scoped rrddata of 100: pvecg rrddata's bytes" "200 $want" \
  "$(get -H "$AS_TENANT" "/api2/json/nodes/pve1/qemu/100/rrddata?timeframe=hour")"
MISSING='404 {"data":null,"message":"no RRD file for this guest"}'
for vmid in 101 999; do
  check "scoped rrddata of $vmid: the missing guest's answer" "$MISSING" \
    "$(get -H "$AS_TENANT" "/api2/json/nodes/pve1/qemu/$vmid/rrddata?timeframe=hour")"
done
check "no token: pvecg serve's 401" '401 {"data":null,"message":"authentication required"}' \
  "$(get --interface 127.0.0.4 /api2/json/cluster/resources)"
# (HTTP/2: header names in lower case)
check "no token: pvecg serve's WWW-Authenticate" 'www-authenticate: Bearer realm="pvecg"' \
  "$("${CURL[@]}" -D - -o /dev/null "$URL/metrics" | tr -d '\r' | grep -i '^www-authenticate:')"
check "the page's own file without a token" 200 "$("${CURL[@]}" -o /dev/null -w '%{http_code}' "$URL/")"

# ---- TLS --------------------------------------------------------------------
sslscan --no-colour --no-groups --no-heartbleed --no-check-certificate \
  "127.0.0.1:$NPORT" >"$T/scan.txt" 2>&1
check "sslscan: exactly pvecg serve's protocols and ciphers" "SSLv2 disabled
SSLv3 disabled
TLSv1.0 disabled
TLSv1.1 disabled
TLSv1.2 enabled
TLSv1.3 enabled
TLSv1.2 ECDHE-ECDSA-AES128-GCM-SHA256
TLSv1.2 ECDHE-ECDSA-AES256-GCM-SHA384
TLSv1.2 ECDHE-ECDSA-CHACHA20-POLY1305
TLSv1.3 TLS_AES_128_GCM_SHA256
TLSv1.3 TLS_AES_256_GCM_SHA384
TLSv1.3 TLS_CHACHA20_POLY1305_SHA256" \
  "$(sed -n -E 's/^(SSLv[0-9.]+|TLSv[0-9.]+) +(enabled|disabled)$/\1 \2/p' "$T/scan.txt"
    awk '$1 == "Preferred" || $1 == "Accepted" { print $2, $5 }' "$T/scan.txt" | sort)"
connects() {
  echo | timeout 10 openssl s_client -connect "127.0.0.1:$NPORT" "$@" 2>&1 |
    sed -n 's/.*Cipher is \(.*\)$/\1/p' | head -n 1
}
check "s_client -tls1_1 is refused" "(NONE)" "$(connects -tls1_1 -cipher 'DEFAULT:@SECLEVEL=0')"
check "s_client -tls1_2 -cipher AES128-SHA is refused" "(NONE)" \
  "$(connects -tls1_2 -cipher 'AES128-SHA:@SECLEVEL=0')"
check "s_client -tls1_2 connects with ECDHE and AES-GCM" "ECDHE-ECDSA-AES256-GCM-SHA384" "$(connects -tls1_2)"
check "s_client -tls1_3 connects" "TLS_AES_256_GCM_SHA384" "$(connects -tls1_3)"

# ---- a burst from one address -----------------------------------------------
BURST=300
mkdir "$T/burst"
for i in $(seq "$BURST"); do printf 'url = "%s"\noutput = "%s"\n' "$URL/api2/json/cluster/resources" "$T/burst/$i"; done >"$T/urls"
"${CURL[@]}" -w '%{http_code}\n' --interface 127.0.0.6 -H "$AS_ADMIN" -K "$T/urls" >"$T/statuses"
second=$(get --interface 127.0.0.2 -H "$AS_ADMIN" /api2/json/cluster/resources)
check "the burst: the first 51 answered 200" "51" "$(head -n 51 "$T/statuses" | grep -cx 200)"
check "the burst: 200 or nginx's 429, nothing else" "" "$(grep -vx -e 200 -e 429 "$T/statuses" | sort -u | xargs)"
refused=$(grep -cx 429 "$T/statuses" || true)
check "the burst: at least 200 of $BURST refused" yes "$([ "$refused" -ge 200 ] && echo yes || echo "no ($refused)")"
first=$(grep -nx -m 1 429 "$T/statuses" | cut -d: -f1)
check "the burst: the 429 is nginx's" "<html> <head><title>429 Too Many Requests</title></head>" \
  "$(tr -d '\r' <"$T/burst/${first:-0}" | head -n 2 | paste -sd ' ')"
check "127.0.0.2 right after the burst: 200" "$BOTH" "$second"
sleep 0.5
check "127.0.0.6 once the burst is over: the page" 200 \
  "$("${CURL[@]}" -o /dev/null -w '%{http_code}' --interface 127.0.0.6 "$URL/")"
check "127.0.0.6 once the burst is over: the API" "$BOTH" \
  "$(get --interface 127.0.0.6 -H "$AS_ADMIN" /api2/json/cluster/resources)"

# ---- wrong tokens: pvecg serve's guard counts the client behind nginx -------
for i in 1 2 3 4 5; do
  check "127.0.0.3's wrong token $i: pvecg serve's 401" '401 {"data":null,"message":"authentication required"}' \
    "$(get --interface 127.0.0.3 -H "Authorization: Bearer $WRONG" /api2/json/nodes)"
done
check "then 127.0.0.3, the right token: pvecg serve's 429" \
  '429 {"data":null,"message":"too many wrong tokens, try again later"}' \
  "$(get --interface 127.0.0.3 -H "$AS_ADMIN" /api2/json/nodes)"
check "127.0.0.5, the right token: answered" "$(direct "$AS_ADMIN" /api2/json/nodes)" \
  "$(get --interface 127.0.0.5 -H "$AS_ADMIN" /api2/json/nodes)"
# straight to pvecg serve, not through the proxy: a forged header counts
# for nothing
check "127.0.0.7 straight to pvecg serve, a forged X-Forwarded-For: 401" 401 \
  "$(curl -s -o /dev/null -w '%{http_code}' --interface 127.0.0.7 \
    -H 'X-Forwarded-For: 127.0.0.9' -H "Authorization: Bearer $WRONG" \
    "http://127.0.0.1:$SPORT/api2/json/nodes")"
stop_serve
check "the forged header is not believed: the log names 127.0.0.7" "1 0" \
  "$(grep -c 'rhost=127.0.0.7 ' "$T/serve.log" || true) $(grep -c 'rhost=127.0.0.9 ' "$T/serve.log" || true)"
check "pvecg serve's log names the client, not the proxy" "5 0" \
  "$(grep -c '^pvecg serve: authentication failure; rhost=127.0.0.3 ' "$T/serve.log" || true) $(grep -c 'rhost=127.0.0.1 ' "$T/serve.log" || true)"

# ---- the access log and fail2ban --------------------------------------------
stop_nginx
LOG=$N/log/pvecg-serve.access.log
check "the access log names 127.0.0.4's 401 without a token" 1 \
  "$(grep -c '^127\.0\.0\.4 - - \[[^]]*\] "GET /api2/json/cluster/resources HTTP/2\.0" 401 [0-9]* "-" "curl/[^"]*" token=none upstream=401$' "$LOG" || true)"
check "the access log never holds a secret" 0 \
  "$(grep -cF -e "${ADMIN:0:8}" -e "${TENANT:0:8}" -e "${WRONG:0:8}" "$LOG" || true)"
FILTER=$EX/pvecg-serve-nginx-fail2ban-filter.conf
JAIL=$EX/pvecg-serve-nginx-fail2ban-jail.conf
ips=$(fail2ban-regex -o ip "$LOG" "$FILTER" | sort | uniq -c | awk '{print $2 "x" $1}' | xargs)
check "fail2ban-regex: nginx's 429s and the wrong tokens, by address" "127.0.0.3x5 127.0.0.6x$refused" "$ips"
cp -r /etc/fail2ban "$T/f2b"
cp "$FILTER" "$T/f2b/filter.d/pvecg-serve-nginx.conf"
sed "s|/var/log/nginx/|$N/log/|" "$JAIL" >"$T/f2b/jail.d/pvecg-serve-nginx.conf"
dump=$(fail2ban-client -c "$T/f2b" -d 2>&1 | grep "'pvecg-serve-nginx'" || true)
check "the jail reads the site's access log" 1 \
  "$(grep -cF "['set', 'pvecg-serve-nginx', 'addlogpath', '$LOG'" <<<"$dump")"
check "the jail: the filter's two failregexes, maxretry 3" "2 1" \
  "$(grep "'addfailregex'" <<<"$dump" | grep -o 'upstream=' | wc -l) $(grep -cF "['set', 'pvecg-serve-nginx', 'maxretry', 3]" <<<"$dump")"

# ---- docs/serving.md shows the files as shipped --------------------------
example_block() {
  awk -v want="<!-- example: $1 -->" '
    $0 == want { found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    found && inside { print }' "$SRC/docs/serving.md"
}
for f in nginx nginx-fail2ban-filter nginx-fail2ban-jail; do
  check "docs/serving.md shows pvecg-serve-$f.conf" "" \
    "$(diff <(example_block "serve-$f") "$EX/pvecg-serve-$f.conf" 2>&1 || true)"
done

[ "$FAILURES" -eq 0 ] || { echo "$FAILURES failed"; exit 1; }
echo "all passed"
