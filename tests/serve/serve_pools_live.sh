#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pvecg serve follows the files its tokens come from without a restart: a
# tenant's token scoped to a Proxmox pool (pools=tenantA) under a running
# server, while user.cfg changes as Proxmox's GUI changes it: a guest
# taken out of the pool disappears from the tenant's answers within
# seconds, one put in appears; a user.cfg that no longer names the pool
# keeps the last good scope (never a wider one), said once however many
# requests come, until it reads again; a token added to the token file
# works without a restart.
set -euo pipefail

for tool in rrdtool curl python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
: "${PVECG:?}" "${LAYOUT_DEFS:?}"

T=$(mktemp -d)
SERVE_PID=
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/fixture.sh"
. "$HERE/tls_fixture.sh"
trap 'stop_serve; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

T0=1700002800
NOW=$((T0 + 300 * 60))
D=$T/data
P=$T/pve
mkdir -p "$D/pve-vm-9.0" "$P/nodes/pve1/qemu-server"
for vmid in 100 101 102; do
  make_file pve-vm-9.0 "$D/pve-vm-9.0/$vmid" "$T0"
  vm_rows "$T0" 10 | xargs -n 500 rrdtool update "$D/pve-vm-9.0/$vmid"
  printf 'name: vm%s\n' "$vmid" >"$P/nodes/pve1/qemu-server/$vmid.conf"
done
user_cfg() { # MEMBERS: user.cfg with pool tenantA of MEMBERS, written as
  # pmxcfs writes it (a new file renamed over the old one)
  printf 'user:monitor@pve:1:0::::::\ntoken:monitor@pve!tenant-a:0:1::\n\npool:tenantA:Tenant A:%s::\n' \
    "$1" >"$P/user.cfg.new"
  mv "$P/user.cfg.new" "$P/user.cfg"
}
user_cfg 100,101
TENANT=$(new_secret)
LATER=$(new_secret)
printf 'monitor@pve!tenant-a=%s pools=tenantA\n' "$TENANT" >"$T/token"
chmod 600 "$T/token"

PORT=$(loopback_port)
URL=http://127.0.0.1:$PORT
start_serve "$T/serve.log" --listen "127.0.0.1:$PORT" --data-dir "$D" --pve-config-dir "$P" \
  --now "$NOW" --token-file "$T/token"
ids() { # TOKEN: the guests the token sees
  curl -s -H "Authorization: Bearer $1" "$URL/api2/json/cluster/resources" |
    python3 -c 'import json, sys; print(" ".join(e["id"] for e in json.load(sys.stdin).get("data") or []))'
}
within() { # SECONDS TOKEN WANT: until the token sees WANT, at most SECONDS
  local got
  for _ in $(seq $(($1 * 10))); do
    got=$(ids "$2")
    [ "$got" == "$3" ] && { echo "$got"; return; }
    sleep 0.1
  done
  echo "$got"
}

check "the pool's two guests" "qemu/100 qemu/101" "$(ids "$TENANT")"
user_cfg 100
check "101 taken out of the pool: gone within 5 s" "qemu/100" "$(within 5 "$TENANT" "qemu/100")"
user_cfg 100,102
check "102 put in: there within 5 s" "qemu/100 qemu/102" "$(within 5 "$TENANT" "qemu/100 qemu/102")"
# a user.cfg without the pool: the last good scope stays
printf 'user:monitor@pve:1:0::::::\n' >"$P/user.cfg"
sleep 3
for _ in $(seq 20); do ids "$TENANT" >/dev/null; done
check "a user.cfg without the pool keeps the last good scope" "qemu/100 qemu/102" "$(ids "$TENANT")"
check "said once" 1 "$(grep -c "the tokens and scopes read last stay until the files read again" "$T/serve.log")"
user_cfg 101
check "read again: the pool's guest" "qemu/101" "$(within 5 "$TENANT" "qemu/101")"
# a token added: no restart
printf 'monitor@pve!tenant-a=%s pools=tenantA\n%s vmids=102\n' "$TENANT" "$LATER" >"$T/token.new"
chmod 600 "$T/token.new"
mv "$T/token.new" "$T/token"
# not asked with the new token before the next look (every 2 s): each try
# would be a wrong token, and five hold the client off
sleep 2.5
ids "$TENANT" >/dev/null # a request: the files looked at
check "a token added works" "qemu/102" "$(ids "$LATER")"
check "the files read anew, said each time" 4 "$(grep -c "and the pools it names read anew" "$T/serve.log")"

[ "$FAILURES" -eq 0 ] || { echo "$FAILURES failed"; exit 1; }
echo "all passed"
