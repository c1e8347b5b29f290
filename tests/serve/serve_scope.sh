#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Tokens with a scope (serve_scope.h) on the built server:
#   - a tenant's token (Proxmox form, pools=tenantA, the pool read from
#     the PVE configuration's user.cfg) sees its two guests and nothing
#     else: cluster/resources, nodes, the overview and /metrics list
#     exactly qemu/100 and qemu/101; their rrddata is `pvecg rrddata`'s,
#     byte for byte; of their KSM files (100's, the node's and 102's
#     beside them) 100's alone is in /metrics, the overview and rrddata
#     with ksm=1, the node's and 102's answered as missing ones; the
#     same for their stall-time files (overview "pressure", pressure=1);
#   - another tenant's existing guest (102, 200; qemu and lxc paths, with
#     and without ?cluster=) gets byte for byte the status, headers and
#     body a guest that does not exist gets, and in the same time (the
#     medians of 200 alternating probes over one connection within 25% +
#     0.5 ms); a node's rrddata is answered as a missing node's;
#   - the page in headless Chromium (overview_check.py scoped), given the
#     tenant's token, shows its two guests alone and draws their graphs;
#   - a bare secret with vmids=102 sees 102 alone; the unscoped token
#     still sees everything, pvecg ship's totals in /metrics included;
#   - over a data directory that keeps clusters apart (clusters_fixture.sh)
#     vmids=196@prod and pools=web@lab (lab's own user.cfg) see those
#     guests only: 196 without ?cluster= is prod's, the data directory's
#     own 196 is answered as a missing one;
#   - refused at start, with the exact message and exit status 1: a
#     malformed scope, a pool user.cfg does not have, a user.cfg that is
#     not there or not a file, pools without a PVE configuration, and two
#     lines of one secret.
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
. "$HERE/clusters_fixture.sh"
trap 'stop_serve; rm -rf "$T"' EXIT

T0=1700002800
NOW=$((T0 + 300 * 60))
D=$T/data
P=$T/pve
mkdir -p "$D/pve-vm-9.0" "$D/pve-node-9.0" "$D/pvecg-ksm-vm-1.0" "$D/pvecg-ksm-node-1.0" "$D/pvecg-pressure-vm-1.0" "$D/pvecg-pressure-node-1.0" "$P/nodes/pve1/qemu-server" "$P/nodes/pve1/lxc" \
  "$T/ship"
for vmid in 100 101 102 200; do
  make_file pve-vm-9.0 "$D/pve-vm-9.0/$vmid" "$T0"
  vm_rows "$T0" 300 | xargs -n 500 rrdtool update "$D/pve-vm-9.0/$vmid"
done
make_file pve-node-9.0 "$D/pve-node-9.0/pve1" "$T0"
node_rows "$T0" 300 | xargs -n 500 rrdtool update "$D/pve-node-9.0/pve1"
for vmid in 100 102; do
  make_file pvecg-ksm-vm-1.0 "$D/pvecg-ksm-vm-1.0/$vmid" "$T0"
  ksm_vm_rows "$T0" 300 | xargs -n 500 rrdtool update "$D/pvecg-ksm-vm-1.0/$vmid"
  make_file pvecg-pressure-vm-1.0 "$D/pvecg-pressure-vm-1.0/$vmid" "$T0"
  stall_rows "$T0" 300 | xargs -n 500 rrdtool update "$D/pvecg-pressure-vm-1.0/$vmid"
done
make_file pvecg-ksm-node-1.0 "$D/pvecg-ksm-node-1.0/pve1" "$T0"
ksm_node_rows "$T0" 300 | xargs -n 500 rrdtool update "$D/pvecg-ksm-node-1.0/pve1"
make_file pvecg-pressure-node-1.0 "$D/pvecg-pressure-node-1.0/pve1" "$T0"
stall_rows "$T0" 300 | xargs -n 500 rrdtool update "$D/pvecg-pressure-node-1.0/pve1"
printf 'name: a-web\n' >"$P/nodes/pve1/qemu-server/100.conf"
printf 'name: a-db\n' >"$P/nodes/pve1/qemu-server/101.conf"
printf 'name: b-web\n' >"$P/nodes/pve1/qemu-server/102.conf"
printf 'hostname: b-ct\n' >"$P/nodes/pve1/lxc/200.conf"
# user.cfg as pveum writes it; 102 is tenantB's (its first pool) though
# tenantA's line names it too: Proxmox ignores that, and so must a scope
cat >"$P/user.cfg" <<'EOF'
user:root@pam:1:0:::root@example.com:::
user:monitor@pve:1:0::::::
token:monitor@pve!tenant-a:0:1::

pool:tenantB:Tenant B:102,200:local:
pool:tenantA:Tenant A:100,101,102:local-lvm:
EOF

ADMIN=$(new_secret)
TENANT=$(new_secret)
VMID_ONLY=$(new_secret)
printf '# the host\n%s\n# tenant A, as Proxmox names its token\nmonitor@pve!tenant-a=%s pools=tenantA\n%s\tvmids=102\n' \
  "$ADMIN" "$TENANT" "$VMID_ONLY" >"$T/token"
chmod 600 "$T/token"

PORT=$(loopback_port)
URL=http://127.0.0.1:$PORT
start_serve "$T/serve.log" --listen "127.0.0.1:$PORT" --data-dir "$D" --pve-config-dir "$P" \
  --now "$NOW" --token-file "$T/token" --ship-state-dir "$T/ship"

AS_TENANT="Authorization: PVEAPIToken=monitor@pve!tenant-a=$TENANT"
# get AUTH PATH: "STATUS BODY"
get() {
  curl -s -H "$1" -w ' %{http_code}' "$URL$2" | awk '{ s = $NF; $NF = ""; sub(/ $/, ""); print s " " $0 }'
}
# answer AUTH PATH: the status line, every header but Date, and the body
answer() {
  curl -s -i -H "$1" "$URL$2" | tr -d '\r' | grep -v '^Date: '
}
ids() { python3 -c 'import json, sys; print(" ".join(e["id"] for e in json.load(sys.stdin)["data"]))'; }

# ---- what the tenant sees ---------------------------------------------------
check "cluster/resources: the tenant's two guests" \
  '200 {"data":[{"id":"qemu/100","type":"qemu","vmid":100,"name":"a-web","node":"pve1"},{"id":"qemu/101","type":"qemu","vmid":101,"name":"a-db","node":"pve1"}]}' \
  "$(get "$AS_TENANT" /api2/json/cluster/resources)"
check "nodes: none" '200 {"data":[]}' "$(get "$AS_TENANT" /api2/json/nodes)"
check "overview: the two guests" "qemu/100 qemu/101" \
  "$(curl -s -H "$AS_TENANT" "$URL/api2/json/pvecg/overview" | ids)"
for vmid in 100 101; do
  want=$("$PVECG" rrddata --vmid "$vmid" --timeframe day --data-dir "$D" --now "$NOW")
  check "rrddata of $vmid: pvecg rrddata's bytes" "200 $want" \
    "$(get "$AS_TENANT" "/api2/json/nodes/pve1/qemu/$vmid/rrddata?timeframe=day")"
done
curl -s -H "$AS_TENANT" "$URL/metrics" >"$T/metrics.tenant"
check "/metrics: only the two guests' series" 'id="qemu/100" id="qemu/101"' \
  "$(grep -v '^#' "$T/metrics.tenant" | grep -o 'id="[^"]*"' | sort -u | tr '\n' ' ' | sed 's/ $//')"
check "/metrics: no node series" 0 "$(grep -c '^pve_node_info\|node/' "$T/metrics.tenant" || true)"
check "/metrics: 100's KSM series, no other" 'pve_ksm_merging_pages{id="qemu/100"} 300000' \
  "$(grep '^pve_ksm_merging_pages' "$T/metrics.tenant" | cut -d' ' -f1-2)"
check "overview: 100 has a KSM file, 101 none" "true 1228800000 false null" \
  "$(curl -s -H "$AS_TENANT" "$URL/api2/json/pvecg/overview" |
    python3 -c 'import json, sys; print(" ".join(json.dumps(v) for e in json.load(sys.stdin)["data"] for v in (e["ksm"], e["ksmsaved"])))')"
check "overview: 100 has a stall-time file, 101 none" "true false" \
  "$(curl -s -H "$AS_TENANT" "$URL/api2/json/pvecg/overview" |
    python3 -c 'import json, sys; print(" ".join(json.dumps(e["pressure"]) for e in json.load(sys.stdin)["data"]))')"
# the KSM files (ksm=1) and the stall-time files (pressure=1) alike
for flag in ksm pressure; do
  want=$("$PVECG" rrddata "--$flag" --vmid 100 --timeframe day --data-dir "$D" --now "$NOW")
  check "$flag=1 rrddata of 100: pvecg rrddata --$flag's bytes" "200 $want" \
    "$(get "$AS_TENANT" "/api2/json/nodes/pve1/qemu/100/rrddata?timeframe=day&$flag=1")"
  check "$flag=1 rrddata of 102: the missing guest's answer" '404 {"data":null,"message":"no RRD file for this guest"}' \
    "$(get "$AS_TENANT" "/api2/json/nodes/pve1/qemu/102/rrddata?timeframe=day&$flag=1")"
  check "$flag=1 rrddata of the node: the missing node's answer" '404 {"data":null,"message":"no RRD file for this node"}' \
    "$(get "$AS_TENANT" "/api2/json/nodes/pve1/rrddata?timeframe=day&$flag=1")"
done
check "/metrics: four files read, all fresh" 'pvecg_metrics_files{state="fresh"} 4' \
  "$(grep '^pvecg_metrics_files{state="fresh"}' "$T/metrics.tenant")"
check "/metrics: no pvecg ship totals" 0 "$(grep -c 'pvecg_ship' "$T/metrics.tenant" || true)"

# ---- outside the scope: as if not there -------------------------------------
MISSING='404 {"data":null,"message":"no RRD file for this guest"}'
for path in qemu/102 lxc/200 qemu/200 qemu/999; do
  check "rrddata of $path: the missing guest's answer" "$MISSING" \
    "$(get "$AS_TENANT" "/api2/json/nodes/pve1/$path/rrddata?timeframe=hour")"
done
for pair in "qemu/102 qemu/999" "lxc/200 lxc/998" "qemu/102?cluster= qemu/999?cluster=" \
  "qemu/102?cf=MAX qemu/999?cf=MAX"; do
  read -r there missing <<<"$pair"
  sep='?'; case $there in *\?*) sep='&' ;; esac
  a=$(answer "$AS_TENANT" "/api2/json/nodes/pve1/$there${sep}timeframe=week")
  b=$(answer "$AS_TENANT" "/api2/json/nodes/pve1/$missing${sep}timeframe=week")
  check "$there and $missing: the same status, headers and body" "$b" "$a"
done
check "node rrddata: a missing node's answer" \
  "$(answer "$AS_TENANT" "/api2/json/nodes/nope/rrddata?timeframe=hour" | sed 's/nope/pve1/')" \
  "$(answer "$AS_TENANT" "/api2/json/nodes/pve1/rrddata?timeframe=hour")"
check "node rrddata: 404" '404 {"data":null,"message":"no RRD file for this node"}' \
  "$(get "$AS_TENANT" "/api2/json/nodes/pve1/rrddata?timeframe=hour")"
# the time: alternating probes of an existing and a missing guest
timing=$(python3 - "$PORT" "monitor@pve!tenant-a=$TENANT" <<'EOF'
import http.client, statistics, sys, time
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
auth = {"Authorization": "PVEAPIToken=" + sys.argv[2]}
times = {"102": [], "999": []}
for i in range(400):
    vmid = "102" if i % 2 else "999"
    t = time.perf_counter()
    c.request("GET", f"/api2/json/nodes/pve1/qemu/{vmid}/rrddata?timeframe=hour", headers=auth)
    r = c.getresponse(); r.read()
    times[vmid].append(time.perf_counter() - t)
a, b = statistics.median(times["102"]), statistics.median(times["999"])
print("same" if abs(a - b) < 0.25 * max(a, b) + 0.0005 else f"102: {a * 1e6:.0f} us, 999: {b * 1e6:.0f} us")
EOF
)
check "an existing guest outside the scope takes a missing one's time" same "$timing"

# ---- the other tokens --------------------------------------------------------
check "vmids=102: 102 alone" "qemu/102" \
  "$(curl -s -H "Authorization: Bearer $VMID_ONLY" "$URL/api2/json/cluster/resources" | ids)"
check "vmids=102: its rrddata" "200" \
  "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $VMID_ONLY" "$URL/api2/json/nodes/pve1/qemu/102/rrddata?timeframe=hour")"
check "vmids=102: not 100" "$MISSING" \
  "$(get "Authorization: Bearer $VMID_ONLY" "/api2/json/nodes/pve1/qemu/100/rrddata?timeframe=hour")"
check "unscoped: everything" "node/pve1 qemu/100 qemu/101 qemu/102 lxc/200" \
  "$(curl -s -H "Authorization: Bearer $ADMIN" "$URL/api2/json/cluster/resources" | ids)"
check "unscoped: the node's rrddata" 200 \
  "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $ADMIN" "$URL/api2/json/nodes/pve1/rrddata?timeframe=hour")"
# read whole first: grep -q ending early would break curl's pipe, and
# pipefail would take that for no match
curl -s -H "Authorization: Bearer $ADMIN" "$URL/metrics" >"$T/metrics.admin"
check "unscoped /metrics: pvecg ship's totals" yes \
  "$(grep -q '^# TYPE pvecg_ship_lag_seconds gauge' "$T/metrics.admin" && echo yes || echo no)"

# ---- the page in headless Chromium --------------------------------------------
echo "# the page with the tenant's token"
mkdir -p "${SCREENSHOT_DIR:-$T}" # when serve_scope runs before the others
r=0
python3 "$HERE/overview_check.py" scoped "$URL" "monitor@pve!tenant-a=$TENANT" qemu/100,qemu/101 \
  "${SCREENSHOT_DIR:-$T}/overview-scoped.png" || r=$?
if [ "$r" -eq 77 ]; then echo "# the page: skipped (no chromium or chromedriver)"; else
  check "the page shows the tenant's guests alone" 0 "$r"; fi
check "the log holds no secret" 0 "$(grep -cF -e "${TENANT:0:8}" -e "${ADMIN:0:8}" "$T/serve.log" || true)"
stop_serve

# ---- clusters ------------------------------------------------------------------
C=$T/clusters
CP=$T/clusters-pve
make_clusters "$C" "$CP" "$NOW"
printf 'pool:web::196:\n' >"$CP/lab/user.cfg"
PROD=$(new_secret)
printf '%s vmids=196@prod pools=web@lab\n' "$PROD" >"$T/token"
start_serve "$T/serve.log" --listen "127.0.0.1:$PORT" --data-dir "$C" --pve-config-dir "$CP" \
  --now "$NOW" --token-file "$T/token"
AS_PROD="Authorization: Bearer $PROD"
check "clusters: lab's 196 and prod's 196" "lxc/196 qemu/196" \
  "$(curl -s -H "$AS_PROD" "$URL/api2/json/cluster/resources" | ids)"
check "clusters: their clusters" "lab prod" \
  "$(curl -s -H "$AS_PROD" "$URL/api2/json/pvecg/overview" | python3 -c 'import json, sys; print(" ".join(e["cluster"] for e in json.load(sys.stdin)["data"]))')"
want=$("$PVECG" rrddata --vmid 196 --cluster prod --timeframe hour --data-dir "$C" --now "$NOW")
check "clusters: 196?cluster=prod is prod's" "200 $want" \
  "$(get "$AS_PROD" "/api2/json/nodes/pve1/qemu/196/rrddata?timeframe=hour&cluster=prod")"
check "clusters: 196 in two clusters of the scope names those two" \
  '400 {"data":null,"message":"guest 196 has files in several clusters (lab, prod): name one with the parameter cluster"}' \
  "$(get "$AS_PROD" "/api2/json/nodes/pve1/qemu/196/rrddata?timeframe=hour")"
check "clusters: the data directory's own 196 is missing" "$MISSING" \
  "$(get "$AS_PROD" "/api2/json/nodes/pve1/qemu/196/rrddata?timeframe=hour&cluster=")"
check "clusters: solo's 196 is missing" "$MISSING" \
  "$(get "$AS_PROD" "/api2/json/nodes/pve1/qemu/196/rrddata?timeframe=hour&cluster=solo")"
check "clusters: lab's 300 is missing" "$MISSING" \
  "$(get "$AS_PROD" "/api2/json/nodes/pve1/qemu/300/rrddata?timeframe=hour")"
check "clusters: /metrics" 'pve_up{id="lxc/196",cluster="lab"} 1 pve_up{id="qemu/196",cluster="prod"} 1' \
  "$(curl -s -H "$AS_PROD" "$URL/metrics" | grep '^pve_up' | sort | tr '\n' ' ' | sed 's/ $//')"
stop_serve

# ---- refused at start ----------------------------------------------------------
# refused MESSAGE TOKEN_LINE [OPTIONS...]: pvecg serve exits 1 saying MESSAGE.
refused() {
  local message=$1 rc=0
  printf '%s\n%s\n' "$ADMIN" "$2" >"$T/token"
  shift 2
  timeout 10 "$PVECG" serve --listen "127.0.0.1:$PORT" --data-dir "$D" --token-file "$T/token" "$@" \
    2>"$T/start.log" >/dev/null || rc=$?
  check "refused: $message" "1 pvecg serve: --token-file $T/token: $message" "$rc $(tail -n 1 "$T/start.log")"
}
refused "line 2: scope word 1 (vmids), item 2: it is not a VMID (100 to 999999999)" \
  "$TENANT vmids=100,42" --pve-config-dir "$P"
refused "line 2: scope word 2 is neither vmids=VMID,... nor pools=POOL,..." \
  "$TENANT vmids=100 pool=tenantA" --pve-config-dir "$P"
refused "line 2: scope word 1 (pools), item 1: it names no possible cluster" \
  "$TENANT pools=tenantA@.x" --pve-config-dir "$P"
refused "line 2: pool tenantC is not in $P/user.cfg" \
  "$TENANT pools=tenantA,tenantC" --pve-config-dir "$P"
refused "line 2: pool tenantA@prod, reading $P/prod/user.cfg: No such file or directory" \
  "$TENANT pools=tenantA@prod" --pve-config-dir "$P"
mkdir -p "$T/dir-cfg/user.cfg"
refused "line 2: pool tenantA, reading $T/dir-cfg/user.cfg: not a regular file of at most 1 MiB" \
  "$TENANT pools=tenantA" --pve-config-dir "$T/dir-cfg"
refused 'line 2: pools need the PVE configuration (--pve-config-dir is "")' \
  "$TENANT pools=tenantA" --pve-config-dir ""
refused "line 2: the same secret as line 1: make each line's own" \
  "$ADMIN vmids=100" --pve-config-dir "$P"
check "no refusal holds a secret" 0 "$(grep -cF -e "${TENANT:0:8}" -e "${ADMIN:0:8}" "$T/start.log" || true)"

[ "$FAILURES" -eq 0 ] || { echo "$FAILURES failures"; exit 1; }
echo PASS
