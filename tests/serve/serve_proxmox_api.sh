#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A Proxmox VE API client from npm (proxmox-api, installed into a
# temporary directory) reads pvecg serve over HTTPS, trusting only a CA
# this test makes, with an API token in Proxmox's form
# (PVEAPIToken=USER@REALM!TOKENID=SECRET, the token file holding the
# same): cluster/resources is the fixture's listing and a guest's rrddata
# is what `pvecg rrddata` prints, value for value; with another secret
# the client gets the 401; a tenant's token limited to guest 100
# (vmids=100) gets that guest alone, no node, and another VMID's 404.
# Over a data directory that keeps clusters
# apart (clusters_fixture.sh) the client passes the parameter cluster:
# prod's listing and prod's guest 196, and without it the data
# directory's own 196.  Skipped only when node or npm are missing or
# the npm registry cannot be reached.
set -euo pipefail

for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
for tool in rrdtool openssl python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
: "${PVECG:?}" "${LAYOUT_DEFS:?}"

T=$(mktemp -d)
SERVE_PID=
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/fixture.sh"
. "$HERE/tls_fixture.sh"
. "$HERE/clusters_fixture.sh"
trap 'stop_serve; rm -rf "$T"' EXIT
export npm_config_cache=$T/npm-cache npm_config_update_notifier=false
timeout 60 npm ping >"$T/npm.log" 2>&1 || { echo "SKIP: the npm registry cannot be reached"; exit 77; }
timeout 300 npm install --prefix "$T/npm" --no-audit --no-fund --loglevel=error proxmox-api \
  >>"$T/npm.log" 2>&1 || { cat "$T/npm.log"; echo "FAIL - npm install proxmox-api"; exit 1; }
echo "ok   - proxmox-api $(node -p "require('$T/npm/node_modules/proxmox-api/package.json').version") installed"


T0=1700002800
NOW=$((T0 + 300 * 60))
D=$T/data
mkdir -p "$D/pve-vm-9.0" "$D/pve-node-9.0" "$T/pve/nodes/pve1/qemu-server"
make_file pve-vm-9.0 "$D/pve-vm-9.0/100" "$T0"
vm_rows "$T0" 300 | xargs -n 500 rrdtool update "$D/pve-vm-9.0/100"
make_file pve-node-9.0 "$D/pve-node-9.0/pve1" "$T0"
node_rows "$T0" 300 | xargs -n 500 rrdtool update "$D/pve-node-9.0/pve1"
printf 'name: web-1\nmemory: 4096\n' >"$T/pve/nodes/pve1/qemu-server/100.conf"
make_tls "$T"
SECRET=$(new_secret)
TOKEN_ID='monitor@pve!pvecg'
# a tenant's token, limited to guest 100 (serve_scope.h)
TENANT=$(new_secret)
TENANT_ID='tenant@pve!graphs'
printf '%s=%s\n%s=%s vmids=100\n' "$TOKEN_ID" "$SECRET" "$TENANT_ID" "$TENANT" >"$T/token"
chmod 600 "$T/token"

PORT=$(loopback_port)
start_serve "$T/serve.log" --listen "127.0.0.1:$PORT" --data-dir "$D" --pve-config-dir "$T/pve" \
  --now "$NOW" --tls-cert "$T/server.pem" --tls-key "$T/server.key" --token-file "$T/token"

# client SECRET [VMID [CLUSTER]]: the client's two lines, or its error;
# the token id is CLIENT_ID's, else TOKEN_ID's
client() {
  NODE_PATH=$T/npm/node_modules NODE_EXTRA_CA_CERTS=$T/ca.pem \
    timeout 60 node "$HERE/proxmox_api_client.js" "$PORT" "${CLIENT_ID:-$TOKEN_ID}" "$1" pve1 "${2:-100}" ${3+"$3"} 2>&1
}
# as_node: pvecg rrddata's data through node's JSON parser and writer
as_node() {
  node -e 'let s = ""; process.stdin.on("data", (d) => s += d).on("end", () =>
    console.log(JSON.stringify(JSON.parse(s).data)))'
}
out=$(client "$SECRET") || { echo "FAIL - the client: $out"; exit 1; }
check "cluster/resources" \
  '[{"id":"node/pve1","type":"node","node":"pve1"},{"id":"qemu/100","type":"qemu","vmid":100,"name":"web-1","node":"pve1"}]' \
  "$(sed -n 1p <<<"$out")"
# pvecg rrddata's data, through the same JSON parser and writer
want=$("$PVECG" rrddata --vmid 100 --timeframe hour --data-dir "$D" --now "$NOW" | as_node)
check "rrddata: 60 rows" 60 "$(node -e 'console.log(JSON.parse(process.argv[1]).length)' "$want")"
check "rrddata is pvecg rrddata's" "$want" "$(sed -n 2p <<<"$out")"

rc=0
out=$(client "$(new_secret)") || rc=$?
check "another secret: refused" "1 yes" "$rc $(grep -q 'Error 401' <<<"$out" && echo yes)"
check "the log holds no secret" 0 "$(grep -cF -- "${SECRET:0:8}" "$T/serve.log" || true)"

# ---- a scoped token: guest 100 alone, no node ---------------------------------
out=$(CLIENT_ID=$TENANT_ID client "$TENANT") || { echo "FAIL - the client with the scoped token: $out"; exit 1; }
check "scoped: cluster/resources is guest 100 alone" \
  '[{"id":"qemu/100","type":"qemu","vmid":100,"name":"web-1","node":"pve1"}]' "$(sed -n 1p <<<"$out")"
check "scoped: rrddata is pvecg rrddata's" "$want" "$(sed -n 2p <<<"$out")"
rc=0
out=$(CLIENT_ID=$TENANT_ID client "$TENANT" 999) || rc=$?
check "scoped: another VMID is the missing guest's 404" \
  '1 404 Not Found return: {"data":null,"message":"no RRD file for this guest"}' \
  "$rc $(grep -o '404 Not Found return: .*' <<<"$out")"
rc=0
out=$(CLIENT_ID=$TOKEN_ID client "$TENANT") || rc=$?
check "scoped: the secret under another token id is refused" "1 yes" "$rc $(grep -q 'Error 401' <<<"$out" && echo yes)"

# ---- clusters: the parameter cluster, passed as any parameter ----------------
stop_serve
C=$T/clusters
make_clusters "$C" "$T/clusters-pve" "$NOW"
start_serve "$T/serve-clusters.log" --listen "127.0.0.1:$PORT" --data-dir "$C" \
  --pve-config-dir "$T/clusters-pve" --now "$NOW" --tls-cert "$T/server.pem" \
  --tls-key "$T/server.key" --token-file "$T/token"
out=$(client "$SECRET" 196 prod) || { echo "FAIL - the client with cluster prod: $out"; exit 1; }
check "cluster/resources?cluster=prod" \
  '[{"id":"node/pve1","type":"node","node":"pve1","cluster":"prod"},{"id":"qemu/196","type":"qemu","vmid":196,"name":"prod-web","node":"pve1","cluster":"prod"}]' \
  "$(sed -n 1p <<<"$out")"
want=$("$PVECG" rrddata --vmid 196 --cluster prod --timeframe hour --data-dir "$C" --now "$NOW" | as_node)
check "prod's 196: pvecg rrddata --cluster prod's, memhost ${CLUSTER_MEMHOST[1]}" \
  "$want ${CLUSTER_MEMHOST[1]}" "$(sed -n 2p <<<"$out") $(node -e 'console.log(JSON.parse(process.argv[1]).at(-1).memhost)' "$want")"
out=$(client "$SECRET" 196) || { echo "FAIL - the client without cluster: $out"; exit 1; }
check "without cluster: the data directory's own 196 (memhost ${CLUSTER_MEMHOST[0]})" \
  "$("$PVECG" rrddata --vmid 196 --timeframe hour --data-dir "$C" --now "$NOW" | as_node) ${CLUSTER_MEMHOST[0]}" \
  "$(sed -n 2p <<<"$out") $(sed -n 2p <<<"$out" | node -e 'let s = ""; process.stdin.on("data", (d) => s += d).on("end", () => console.log(JSON.parse(s).at(-1).memhost))')"

[ "$FAILURES" -eq 0 ] || { echo "$FAILURES failures"; exit 1; }
echo PASS
