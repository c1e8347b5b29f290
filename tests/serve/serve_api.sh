#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg serve against files this test fills through rrdtool and reads
# through a real rrdcached that still holds rows it has not written:
#   - every API path's body is byte for byte what `pvecg rrddata` prints
#     for the same file, timeframe, CF, daemon and now (guest with and
#     without a legacy pve2 file, qemu and lxc paths, node), with the
#     API's headers;
#   - ksm=1 reads the KSM file (pvecg-ksm-vm-1.0, pvecg-ksm-node-1.0):
#     byte for byte `pvecg rrddata --ksm`; a guest without one gets the
#     missing file's 404; pressure=1 the same for the stall-time file
#     (pvecg-pressure-vm-1.0, pvecg-pressure-node-1.0) and `pvecg rrddata
#     --pressure`, never with ksm=1;
#   - the listings, with names, types and nodes from a PVE configuration;
#   - hostile paths, parameters and raw requests get their exact 4xx JSON,
#     never a file outside the data directory, and the server lives on;
#   - 64 clients at once all get their exact answers;
#   - failures are logged at most 20 lines a minute; SIGTERM stops it
#     cleanly.
set -euo pipefail

for tool in rrdtool rrdcached curl jq; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
: "${PVECG:?}" "${LAYOUT_DEFS:?}"

T=$(mktemp -d)
RRDCACHED_PID= SERVE_PID=
cleanup() {
  for pid in $SERVE_PID $RRDCACHED_PID; do
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$T"
}
trap cleanup EXIT
FAILURES=0
check() { # check DESCRIPTION EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then echo "ok   - $1"; else
    echo "FAIL - $1: expected '$2', got '$3'"; FAILURES=$((FAILURES + 1)); fi
}

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/fixture.sh"
T0=1700002800
NOW=$((T0 + 86400 * 3 + 1234))
D=$T/data
mkdir -p "$D/pve-vm-9.0" "$D/pve2-vm" "$D/pve-node-9.0" "$D/pvecg-ksm-vm-1.0" "$D/pvecg-ksm-node-1.0" "$D/pvecg-pressure-vm-1.0" "$D/pvecg-pressure-node-1.0" "$T/pve/nodes/pve1/qemu-server" "$T/pve/nodes/pve1/lxc"
# VM 100: three days of 9.0 rows after a legacy pve2 file of the three
# days before; VM 101 (an LXC container): 9.0 rows only; node pve1.
make_file pve-vm-9.0 "$D/pve-vm-9.0/100" "$T0"
vm_rows "$T0" 4320 | xargs -n 500 rrdtool update "$D/pve-vm-9.0/100"
make_file pve2-vm "$D/pve2-vm/100" $((T0 - 259200))
awk -v t0=$((T0 - 259200)) 'BEGIN {
  for (i = 1; i <= 4320; i++)
    printf "%d:2:%s:4294967296:1073741824:U:U:%d:U:U:U\n", t0 + 60 * i, (i % 4) / 8, 6000 * i
}' | xargs -n 500 rrdtool update "$D/pve2-vm/100"
make_file pve-vm-9.0 "$D/pve-vm-9.0/101" "$T0"
vm_rows "$T0" 4000 | xargs -n 500 rrdtool update "$D/pve-vm-9.0/101"
make_file pve-node-9.0 "$D/pve-node-9.0/pve1" "$T0"
node_rows "$T0" 4320 | xargs -n 500 rrdtool update "$D/pve-node-9.0/pve1"
# KSM files of VM 100 and the node; VM 101 has none.
make_file pvecg-ksm-vm-1.0 "$D/pvecg-ksm-vm-1.0/100" "$T0"
ksm_vm_rows "$T0" 4320 | xargs -n 500 rrdtool update "$D/pvecg-ksm-vm-1.0/100"
make_file pvecg-ksm-node-1.0 "$D/pvecg-ksm-node-1.0/pve1" "$T0"
ksm_node_rows "$T0" 4320 | xargs -n 500 rrdtool update "$D/pvecg-ksm-node-1.0/pve1"
# Stall-time files of VM 100 and the node; VM 101 has none.
make_file pvecg-pressure-vm-1.0 "$D/pvecg-pressure-vm-1.0/100" "$T0"
stall_rows "$T0" 4320 | xargs -n 500 rrdtool update "$D/pvecg-pressure-vm-1.0/100"
make_file pvecg-pressure-node-1.0 "$D/pvecg-pressure-node-1.0/pve1" "$T0"
stall_rows "$T0" 4320 | xargs -n 500 rrdtool update "$D/pvecg-pressure-node-1.0/pve1"
cat >"$T/pve/nodes/pve1/qemu-server/100.conf" <<'CONF'
name: web-1
memory: 4096
CONF
printf 'hostname: ct\n' >"$T/pve/nodes/pve1/lxc/101.conf"

# rrdcached takes the newest rows and holds them: the server must see them.
rrdcached -g -l "unix:$T/sock" -b "$D" -B -p "$T/rrdcached.pid" -j "$T" -w 3600 -z 1 >"$T/rrdcached.out" 2>&1 &
RRDCACHED_PID=$!
for _ in $(seq 100); do [ -S "$T/sock" ] && break; sleep 0.05; done
vm_rows $((T0 + 259200)) 20 | xargs rrdtool update --daemon "unix:$T/sock" "$D/pve-vm-9.0/100"
check "rrdcached holds rows the file does not have" $((T0 + 259200)) "$(rrdtool last "$D/pve-vm-9.0/100")"

PORT=$(loopback_port)
# Under strace where it can run, so that the files the server touches can
# be checked (-s 4096: whole paths, not strace's first 32 bytes).
TRACE=()
strace -f -qq -o /dev/null true 2>/dev/null && TRACE=(strace -f -qq -s 4096 -e trace=%file -o "$T/strace.log")
"${TRACE[@]}" "$PVECG" serve --listen "127.0.0.1:$PORT" --data-dir "$D" --daemon "unix:$T/sock" \
  --pve-config-dir "$T/pve" --now "$NOW" 2>"$T/serve.log" &
SERVE_PID=$!
URL=http://127.0.0.1:$PORT
wait_serving "$URL/api2/json/nodes"
check "the start is logged" "pvecg serve: listening on 127.0.0.1:$PORT, files in $D, through rrdcached at unix:$T/sock" "$(head -n 1 "$T/serve.log")"

# ---- the API against pvecg rrddata -----------------------------------------
same=0 compared=0
for tf in hour day week month year decade; do
  for cf in AVERAGE MAX; do
    for target in "qemu 100" "lxc 100" "lxc 101" "node pve1"; do
      set -- $target
      if [ "$1" = node ]; then
        path=/api2/json/nodes/$2/rrddata; want=$("$PVECG" rrddata --node "$2" --timeframe "$tf" --cf "$cf" --data-dir "$D" --daemon "unix:$T/sock" --now "$NOW"; echo .)
      else
        path=/api2/json/nodes/pve1/$1/$2/rrddata; want=$("$PVECG" rrddata --vmid "$2" --timeframe "$tf" --cf "$cf" --data-dir "$D" --daemon "unix:$T/sock" --now "$NOW"; echo .)
      fi
      got=$(curl -s "$URL$path?timeframe=$tf&cf=$cf"; echo; echo .)
      compared=$((compared + 1))
      if [ "$got" == "$want" ] && [ ${#got} -gt 100 ]; then same=$((same + 1)); else
        echo "# differs: $path $tf $cf"; fi
    done
  done
done
check "all 48 bodies are pvecg rrddata's bytes" "48 48" "$compared $same"
# the KSM files: ksm=1, as pvecg rrddata --ksm; the stall-time files:
# pressure=1, as pvecg rrddata --pressure
for flag in ksm:ksmsaved pressure:stallcpusome; do
  column=${flag#*:} flag=${flag%%:*}
  same=0 compared=0
  for tf in hour day week month year decade; do
    for cf in AVERAGE MAX; do
      for target in "qemu 100" "node pve1"; do
        set -- $target
        if [ "$1" = node ]; then
          path=/api2/json/nodes/$2/rrddata; who=(--node "$2")
        else
          path=/api2/json/nodes/pve1/$1/$2/rrddata; who=(--vmid "$2")
        fi
        want=$("$PVECG" rrddata "--$flag" "${who[@]}" --timeframe "$tf" --cf "$cf" --data-dir "$D" --daemon "unix:$T/sock" --now "$NOW"; echo .)
        got=$(curl -s "$URL$path?timeframe=$tf&cf=$cf&$flag=1"; echo; echo .)
        compared=$((compared + 1))
        # a decade's rows of three days are all unknown: no value named
        if [ "$got" == "$want" ] && [ ${#got} -gt 100 ] && { [ "$tf" = decade ] || [[ $got == *"$column"* ]]; }; then same=$((same + 1)); else
          echo "# differs: $path $flag=1 $tf $cf"; fi
      done
    done
  done
  check "all 24 $flag=1 bodies are pvecg rrddata --$flag's bytes" "24 24" "$compared $same"
done
check "pressure=0 is the pve file" "$(curl -s "$URL/api2/json/nodes/pve1/rrddata?timeframe=day")" "$(curl -s "$URL/api2/json/nodes/pve1/rrddata?timeframe=day&pressure=0")"
check "ksm=0 is the pve file" "$(curl -s "$URL/api2/json/nodes/pve1/rrddata?timeframe=day")" "$(curl -s "$URL/api2/json/nodes/pve1/rrddata?timeframe=day&ksm=0")"
day=$(curl -s "$URL/api2/json/nodes/pve1/qemu/100/rrddata?timeframe=hour")
check "the hour's newest row is the one only rrdcached has" "$((T0 + 259200 + 1200))" "$(jq '.data[-1].time' <<<"$day")"
check "cf defaults to AVERAGE" "$("$PVECG" rrddata --vmid 100 --timeframe week --data-dir "$D" --daemon "unix:$T/sock" --now "$NOW")" "$(curl -s "$URL/api2/json/nodes/x/qemu/100/rrddata?timeframe=week")"
# the week's legacy part: pve2's table (-r 10800, 70 rows), the first
# row's time its end
check "the legacy rows are joined (week)" "$(((NOW / 10800 - 70 + 1) * 10800)) 10800" \
  "$(curl -s "$URL/api2/json/nodes/pve1/qemu/100/rrddata?timeframe=week" | jq -r '[.data[0].time, (.data[1].time - .data[0].time)] | "\(.[0]) \(.[1])"')"
headers=$(curl -s -D - -o /dev/null "$URL/api2/json/nodes/pve1/rrddata?timeframe=day" | tr -d '\r')
check "rrddata's content type" "Content-Type: application/json;charset=UTF-8" "$(grep -i '^content-type:' <<<"$headers")"
check "rrddata is not cached" "Cache-Control: no-store" "$(grep -i '^cache-control:' <<<"$headers")"

# ---- listings ----------------------------------------------------------------
check "cluster/resources" '{"data":[{"id":"node/pve1","type":"node","node":"pve1"},{"id":"qemu/100","type":"qemu","vmid":100,"name":"web-1","node":"pve1"},{"id":"lxc/101","type":"lxc","vmid":101,"name":"ct","node":"pve1"}]}' "$(curl -s "$URL/api2/json/cluster/resources")"
check "nodes" '{"data":[{"id":"node/pve1","type":"node","node":"pve1"}]}' "$(curl -s "$URL/api2/json/nodes")"

# ---- the page ----------------------------------------------------------------
page_headers=$(curl -s -D - -o "$T/index.html" "$URL/" | tr -d '\r')
check "the page's policy" "Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'" "$(grep -i '^content-security-policy:' <<<"$page_headers")"
check "the page is index.html" "" "$(cmp "$T/index.html" "$(dirname "$0")/../../src/serve/web/index.html" 2>&1)"
check "app.js is served as JavaScript" "200 text/javascript; charset=utf-8" "$(curl -s -o /dev/null -w '%{http_code} %{content_type}' "$URL/app.js")"

# ---- hostile requests ---------------------------------------------------------
# expect STATUS BODY CURL-ARGS...: the exact answer
expect() {
  local status=$1 body=$2
  shift 2
  local got
  got=$(curl -s --path-as-is -w ' %{http_code}' "$@")
  check "$* -> $status" "$body $status" "$got"
}
nopath='{"data":null,"message":"no such path"}'
expect 404 "$nopath" "$URL/../../etc/passwd"
expect 404 "$nopath" "$URL/api2/json/nodes/../../../etc/rrddata?timeframe=day"
expect 404 "$nopath" "$URL/api2/json/nodes/%2e%2e/rrddata?timeframe=day"
expect 404 "$nopath" "$URL/api2/json/nodes/pve1/qemu/100/../../../../../etc/passwd"
expect 404 "$nopath" "$URL/api2/json/nodes/pve1/qemu/100/rrddata/"
expect 404 "$nopath" "$URL/api2/json/nodes//rrddata?timeframe=day"
expect 404 "$nopath" "$URL/app.js.map"
expect 404 '{"data":null,"message":"no RRD file for this guest"}' "$URL/api2/json/nodes/pve1/qemu/999/rrddata?timeframe=day"
expect 404 '{"data":null,"message":"no RRD file for this node"}' "$URL/api2/json/nodes/pve9/rrddata?timeframe=day"
expect 404 '{"data":null,"message":"no RRD file for this guest"}' "$URL/api2/json/nodes/pve1/lxc/101/rrddata?timeframe=day&ksm=1"
expect 404 '{"data":null,"message":"no RRD file for this node"}' "$URL/api2/json/nodes/pve9/rrddata?timeframe=day&ksm=1"
expect 400 '{"data":null,"message":"Parameter verification failed.","errors":{"ksm":"type check ('"'boolean'"') failed - not 0 or 1"}}' "$URL/api2/json/nodes/pve1/rrddata?timeframe=day&ksm=yes"
expect 400 '{"data":null,"message":"Parameter verification failed.","errors":{"ksm":"property is not defined in schema and the schema does not allow additional properties"}}' "$URL/api2/json/nodes?ksm=1"
expect 404 '{"data":null,"message":"no RRD file for this guest"}' "$URL/api2/json/nodes/pve1/lxc/101/rrddata?timeframe=day&pressure=1"
expect 400 '{"data":null,"message":"Parameter verification failed.","errors":{"pressure":"ksm and pressure name different files; give one"}}' "$URL/api2/json/nodes/pve1/rrddata?timeframe=day&ksm=1&pressure=1"
expect 400 '{"data":null,"message":"Parameter verification failed.","errors":{"pressure":"type check ('"'boolean'"') failed - not 0 or 1"}}' "$URL/api2/json/nodes/pve1/rrddata?timeframe=day&pressure=on"
expect 400 '{"data":null,"message":"Parameter verification failed.","errors":{"vmid":"invalid format - not a VMID (100..999999999)"}}' "$URL/api2/json/nodes/pve1/qemu/1e3/rrddata?timeframe=day"
expect 400 '{"data":null,"message":"Parameter verification failed.","errors":{"timeframe":"value does not have a value in the enumeration '"'hour, day, week, month, year, decade'"'"}}' "$URL/api2/json/nodes/pve1/qemu/100/rrddata?timeframe=%00day"
expect 400 '{"data":null,"message":"Parameter verification failed.","errors":{"timeframe":"property is missing and it is not optional"}}' "$URL/api2/json/nodes/pve1/qemu/100/rrddata"
expect 400 '{"data":null,"message":"Parameter verification failed.","errors":{"timeframe":"given more than once"}}' "$URL/api2/json/nodes/pve1/qemu/100/rrddata?timeframe=day&timeframe=day"
expect 400 '{"data":null,"message":"Parameter verification failed.","errors":{"file":"property is not defined in schema and the schema does not allow additional properties"}}' "$URL/api2/json/nodes/pve1/qemu/100/rrddata?timeframe=day&file=/etc/passwd"
expect 400 '{"data":null,"message":"too many query parameters"}' "$URL/api2/json/nodes/pve1/qemu/100/rrddata?$(printf 'a%d=1&' $(seq 40))timeframe=day"
expect 405 '{"data":null,"message":"only GET and HEAD are served"}' -X POST --data-binary @/etc/hostname "$URL/api2/json/nodes"
expect 414 '{"data":null,"message":"the path is too long"}' "$URL/api2/json/nodes/$(head -c 600 /dev/zero | tr '\0' a)/rrddata"
check "405 says what is allowed" "Allow: GET, HEAD" "$(curl -s -D - -o /dev/null -X DELETE "$URL/" | tr -d '\r' | grep -i '^allow:')"
check "connections are kept alive" 1 "$(curl -sv -o /dev/null -o /dev/null "$URL/api2/json/nodes" "$URL/api2/json/nodes" 2>&1 | grep -c 'Re-using existing connection')"
check "a GET with a body is refused at once" '400 {"data":null,"message":"a GET or HEAD request has no body"}' \
  "$(curl -s -w ' %{http_code}' -X GET --data-binary @/etc/services "$URL/api2/json/nodes" | awk '{ s = $NF; $NF = ""; sub(/ $/, ""); print s " " $0 }')"
check "HEAD has headers and no body" "200 0" "$(curl -s -I -o /dev/null -w '%{http_code} %{size_download}' "$URL/api2/json/nodes")"
# Raw bytes that are not HTTP, a request line without a version, a header
# block far beyond any limit: each gets an answer or a closed connection.
for raw in 'GARBAGE\r\n\r\n' 'GET /\r\n\r\n' "GET / HTTP/1.1\r\nHost: x\r\nX: $(head -c 70000 /dev/zero | tr '\0' x)\r\n\r\n" '\x00\xff\xfe\r\n\r\n'; do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT"; printf "$raw" >&3; timeout 5 cat <&3 >/dev/null) 2>/dev/null || true
done
check "the server lives after hostile requests" 200 "$(curl -s -o /dev/null -w '%{http_code}' "$URL/api2/json/nodes")"
# What the program and its libraries (glibc, GnuTLS under libmicrohttpd)
# look at when they start.
STARTUP_FILES='^/etc/ld\.so\|^/lib\|^/usr/lib\|^/etc/localtime\|^/usr/share/zoneinfo\|^/etc/gnutls/\|^/etc/selinux/\|^/selinux$\|^/sys/fs/selinux$\|^/proc/'
if [ -s "$T/strace.log" ]; then
  check "no hostile path reached a system call" 0 "$(grep -c 'passwd\|etc/rrddata\|\.\./' "$T/strace.log" || true)"
  # the temporary directory's parents: librrd resolves the socket's path
  parents=$(p=$(dirname "$T"); while [ "$p" != / ]; do echo "$p"; p=$(dirname "$p"); done)
  check "the requests' files are all in the data directory" "" \
    "$(grep -o '"/[^"]*"' "$T/strace.log" | tr -d '"' | grep -v "^$T\(/\|\$\)\|^$PVECG\$" |
      grep -vxF -e "$parents" | grep -v "$STARTUP_FILES" | sort -u || true)"
fi

# ---- many clients at once -------------------------------------------------------
mkdir "$T/many"
for tf in hour day week month; do
  "$PVECG" rrddata --vmid 100 --timeframe "$tf" --data-dir "$D" --daemon "unix:$T/sock" --now "$NOW" | tr -d '\n' >"$T/many/want.$tf"
done
pids=()
for i in $(seq 64); do
  tf=$(echo hour day week month | cut -d' ' -f$((i % 4 + 1)))
  curl -s -o "$T/many/got.$i.$tf" -w '%{http_code}\n' "$URL/api2/json/nodes/pve1/qemu/100/rrddata?timeframe=$tf" >"$T/many/status.$i" &
  pids+=($!)
done
wait "${pids[@]}"
right=0
for f in "$T"/many/got.*; do
  tf=${f##*.}
  i=${f#*got.}; i=${i%%.*}
  [ "$(cat "$T/many/status.$i")" = 200 ] && cmp -s "$f" "$T/many/want.$tf" && right=$((right + 1))
done
check "64 clients at once, every answer exact" 64 "$right"

# ---- the log and the stop ---------------------------------------------------------
for i in $(seq 30); do curl -s -o /dev/null "$URL/nothing-$i"; done
logged=$(grep -vc '^pvecg serve: listening on\|^pvecg serve: stopping' "$T/serve.log" || true)
check "failures are logged, at most 20 lines a minute" 20 "$logged"
check "the first failures are the ones logged" "GET /../../etc/passwd: 404 no such path" "$(grep -o 'GET /\.\./.*' "$T/serve.log")"
# the server itself, not strace above it (strace exits with its status)
server=$SERVE_PID
[ ${#TRACE[@]} -eq 0 ] || server=$(pgrep -P "$SERVE_PID" -x pvecg)
kill -TERM "$server"
status=0; wait "$SERVE_PID" || status=$?
SERVE_PID=
check "SIGTERM stops it cleanly" 0 "$status"
check "the stop is logged" "pvecg serve: stopping (Terminated)" "$(tail -n 1 "$T/serve.log")"

if [ "$FAILURES" -ne 0 ]; then
  echo "--- serve.log ---"; cat "$T/serve.log"
  echo "$FAILURES check(s) failed"; exit 1
fi
echo "all checks passed"
