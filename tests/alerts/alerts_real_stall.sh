#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped alert rules on real servers over a real stall: a CPU hog in
# a VM-like cgroup (qemu.slice/301.scope) held to 5 % of a CPU by the
# group's CPU limit (cpu_stall.sh); the real collectd with both plugins records
# the kernel's stall totals into the RRD files; the real `pvecg serve`
# serves them; a real Prometheus (Debian's, loopback port, private data
# directory) scrapes it and evaluates the rules, with the durations
# shortened by fast_rules.py (checked to change nothing else); a real
# Alertmanager delivers to this test's webhook (python3 http.server).  The
# same rule file runs in vmalert too (Debian's victoria-metrics package),
# over a VictoriaMetrics that scrapes the same server, sending to the same
# Alertmanager: each alert must arrive from both, with the same labels.
# And fed the other way, as a store is fed where no scraper reaches the
# host: a second VictoriaMetrics that `pvecg ship --format prometheus`
# fills through /api/v1/import/prometheus from the same files,
# under a second vmalert with the same rules: the same alerts, with the
# same labels but the scrape's instance and job, which shipped points do
# not have (the rules join on instance, empty on both sides there).
# PveGuestCpuStall must arrive firing with vmid 301, the configuration's
# name, the node and its severity, and arrive resolved once the hogs stop.
# Memory: on a hybrid host (the memory controller in cgroup v1, PSI in
# cgroup2) a reader in VM 302's cgroup2 group and in a v1 memory cgroup
# limited to 16 MiB reads a 100 MiB file again and again, so each pass
# refaults what the limit evicted: a real memory stall of the group (about
# a fifth of the time, some and full alike with one task), and
# PveGuestMemoryStallFull (5 %) must arrive firing and resolved the same
# way; without a v1 memory hierarchy that part is left out, said so.
# Takes six to eight minutes: the stall rows come once a minute, and the
# shipped ones up to a minute late (the last vmalert fires and resolves
# a minute or two after the others).  Skips
# (77) without root, cgroups, PSI, taskset, prometheus,
# prometheus-alertmanager, victoria-metrics or vmalert.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../integration/lib.sh"
. "$HERE/../integration/cpu_stall.sh"
for tool in prometheus prometheus-alertmanager victoria-metrics vmalert taskset curl python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to make cgroups"; exit 77; }
CG2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$CG2" ] || { echo "SKIP: no cgroup2 mount"; exit 77; }
: "${PVECG:?}"

ROOT=$CG2/pvecg-alerts-$$
MEMCG=/sys/fs/cgroup/memory/pvecg-alerts-$$
CPUCG=/sys/fs/cgroup/cpu/pvecg-alerts-$$
PIDS=()
HOGS=()
stop_pids() { # kills the given pids and waits for them
  local p
  for p in "$@"; do kill -KILL "$p" 2>/dev/null || true; done
  for p in "$@"; do wait "$p" 2>/dev/null || true; done
}
restore() {
  stop_pids "${HOGS[@]}"
  stop_pids "${PIDS[@]}"
  [ ! -d "$ROOT" ] || find "$ROOT" -depth -type d -exec rmdir {} + 2>/dev/null || true
  [ ! -d "$MEMCG" ] || rmdir "$MEMCG" 2>/dev/null || true
  [ ! -d "$CPUCG" ] || rmdir "$CPUCG" 2>/dev/null || true
}
at_exit restore
mkdir -p "$ROOT/qemu.slice/301.scope" 2>/dev/null ||
  { echo "SKIP: cannot create cgroups in $CG2"; exit 77; }
[ -r "$ROOT/qemu.slice/301.scope/cpu.pressure" ] ||
  { echo "SKIP: no cpu.pressure in cgroups"; exit 77; }
VM=$ROOT/qemu.slice/301.scope
start_cpu_stall "$VM" "$CPUCG"
# The memory thrasher: its file written, synced and dropped from the page
# cache first, so that its pages are charged to the limited cgroup.
MEMORY=false
if [ -d /sys/fs/cgroup/memory ] && mkdir "$ROOT/qemu.slice/302.scope" "$MEMCG" 2>/dev/null; then
  MEMORY=true
  echo $((16 << 20)) >"$MEMCG/memory.limit_in_bytes"
  dd if=/dev/urandom of="$T/thrash.bin" bs=1M count=100 conv=fsync status=none
  # on another CPU than the hogs where there is one
  sh -c 'echo $$ >"$1/cgroup.procs"; echo $$ >"$2/cgroup.procs"
    exec taskset -c "$4" python3 -c "
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
while True:
    os.lseek(fd, 0, 0)
    while os.read(fd, 1 << 20):
        pass
" "$3"' sh "$ROOT/qemu.slice/302.scope" "$MEMCG" "$T/thrash.bin" $(($(nproc) - 1)) &
  HOGS+=($!)
else
  echo "no cgroup v1 memory hierarchy here: the memory alert is left to promtool's tests"
fi

# ---- collectd writes the files, pvecg serve serves them -------------------
mkdir -p "$T/pve/nodes/testnode/qemu-server"
printf 'name: hog-vm\nmemory: 1024\n' >"$T/pve/nodes/testnode/qemu-server/301.conf"
printf 'name: thrash-vm\nmemory: 1024\n' >"$T/pve/nodes/testnode/qemu-server/302.conf"
write_conf "$T/collectd.conf" "
<Plugin pve_cgroup>
  CgroupRoot \"$ROOT\"
  MemoryCgroupRoot \"\"
  PveConfigDir \"\"
  KSM false
</Plugin>
<Plugin pve_rrd>
  DataDir \"$T/data\"
</Plugin>"
start_collectd "$T/collectd.conf"
SERVE_PORT=$(free_port)
"$PVECG" serve --listen "127.0.0.1:$SERVE_PORT" --data-dir "$T/data" \
  --pve-config-dir "$T/pve" 2>"$T/serve.log" &
PIDS+=($!)

# ---- the webhook, Alertmanager, Prometheus ---------------------------------
HOOK_PORT=$(free_port)
python3 - "$HOOK_PORT" "$T/webhook.jsonl" <<'EOF' &
import http.server, json, sys
out = open(sys.argv[2], "a", buffering=1)
class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        out.write(json.dumps(json.loads(body)) + "\n")
        self.send_response(200)
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Hook).serve_forever()
EOF
PIDS+=($!)
AM_PORT=$(free_port)
cat >"$T/alertmanager.yml" <<CONF
route:
  receiver: hook
  group_by: [alertname, node, vmid]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: http://127.0.0.1:$HOOK_PORT/
        send_resolved: true
CONF
prometheus-alertmanager --config.file="$T/alertmanager.yml" \
  --storage.path="$T/alertmanager" --web.listen-address="127.0.0.1:$AM_PORT" \
  --cluster.listen-address= >"$T/alertmanager.log" 2>&1 &
PIDS+=($!)

"$HERE/fast_rules.py" "$HERE/../../packaging/examples/pvecg-alerts.yml" >"$T/rules.yml"
PROM_PORT=$(free_port)
cat >"$T/prometheus.yml" <<CONF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: ["$T/rules.yml"]
alerting:
  alertmanagers:
    - static_configs: [{targets: ["127.0.0.1:$AM_PORT"]}]
scrape_configs:
  - job_name: pvecg
    honor_timestamps: true
    static_configs: [{targets: ["127.0.0.1:$SERVE_PORT"]}]
CONF
# A firing alert is sent again every 15 s and holds for four times that
# (its endsAt): with a resend delay of 1 s it held for 4 s only, and a
# Prometheus held up that long on a busy machine had Alertmanager resolve
# the alert on its own while the load went on.  Firing and resolved
# alerts are still sent at the evaluation that finds them; vmalert's
# -rule.resendDelay below is the same.
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prometheus" \
  --web.listen-address="127.0.0.1:$PROM_PORT" --rules.alert.resend-delay=15s \
  >"$T/prometheus.log" 2>&1 &
PIDS+=($!)
wait_up 90 "$T/prometheus.log" "http://127.0.0.1:$PROM_PORT/-/ready"
wait_up 90 "$T/alertmanager.log" "http://127.0.0.1:$AM_PORT/-/ready"

# ---- the same rule file in vmalert, over VictoriaMetrics scraping the same
# server; its alerts carry source="vmalert" to tell them from Prometheus'.
VM_PORT=$(free_port)
VMALERT_PORT=$(free_port)
cat >"$T/scrape.yml" <<CONF
global: {scrape_interval: 1s}
scrape_configs:
  - job_name: pvecg
    static_configs: [{targets: ["127.0.0.1:$SERVE_PORT"]}]
CONF
# -search.latencyOffset: queries see the newest second, not 30 s back
victoria-metrics -storageDataPath="$T/vm" -httpListenAddr="127.0.0.1:$VM_PORT" \
  -promscrape.config="$T/scrape.yml" -search.latencyOffset=1s \
  -loggerLevel=ERROR >"$T/vm.log" 2>&1 &
PIDS+=($!)
vmalert -datasource.url="http://127.0.0.1:$VM_PORT" -rule="$T/rules.yml" \
  -notifier.url="http://127.0.0.1:$AM_PORT" -evaluationInterval=1s -rule.resendDelay=15s \
  -httpListenAddr="127.0.0.1:$VMALERT_PORT" -external.label=source=vmalert \
  -loggerLevel=ERROR >"$T/vmalert.log" 2>&1 &
PIDS+=($!)
wait_up 90 "$T/vm.log" "http://127.0.0.1:$VM_PORT/health"
wait_up 90 "$T/vmalert.log" "http://127.0.0.1:$VMALERT_PORT/health"

# ---- the same rule file in vmalert over a VictoriaMetrics fed by `pvecg
# ship` (source="vmalert-ship").  A shipped point carries its row's time:
# the stall file's row ending at minute e is complete once pve_rrd writes
# the next total, up to a minute after e, and the shipper (--interval 1)
# sends it within a second; so at an evaluation at time T the newest
# sample can be up to ~61 s old.  That is within what the rules need
# without shifting the evaluation back (-datasource.lookback): rate()'s
# [150s] window (fast_rules.py's) still holds the rows ending at e and e -
# 60 when e >= T - 61, and the instant selector of pve_guest_info looks
# back vmalert's -datasource.queryStep (5 minutes by default, said here:
# a step below ~61 s would lose the join).  -search.disableCache: rows
# arrive after their time, so no query answer is cached (the default
# caches answers about times older than 5 minutes only, but the store is
# queried about late data on purpose here).
SHIP_VM_PORT=$(free_port)
SHIP_VMALERT_PORT=$(free_port)
victoria-metrics -storageDataPath="$T/vm-ship" -httpListenAddr="127.0.0.1:$SHIP_VM_PORT" \
  -search.latencyOffset=1s -search.disableCache -retentionPeriod=100y \
  -loggerLevel=ERROR >"$T/vm-ship.log" 2>&1 &
PIDS+=($!)
wait_up 90 "$T/vm-ship.log" "http://127.0.0.1:$SHIP_VM_PORT/health"
"$PVECG" ship --format prometheus \
  --to "http://127.0.0.1:$SHIP_VM_PORT/api/v1/import/prometheus" --data-dir "$T/data" \
  --pve-config-dir "$T/pve" --state-dir "$T/ship-state" --interval 1 2>"$T/ship.log" &
PIDS+=($!)
vmalert -datasource.url="http://127.0.0.1:$SHIP_VM_PORT" -rule="$T/rules.yml" \
  -notifier.url="http://127.0.0.1:$AM_PORT" -evaluationInterval=1s -rule.resendDelay=15s \
  -datasource.queryStep=5m -httpListenAddr="127.0.0.1:$SHIP_VMALERT_PORT" \
  -external.label=source=vmalert-ship -loggerLevel=ERROR >"$T/vmalert-ship.log" 2>&1 &
PIDS+=($!)
wait_up 90 "$T/vmalert-ship.log" "http://127.0.0.1:$SHIP_VMALERT_PORT/health"

# hook_alert NAME ID STATUS [SOURCE]: the first alert NAME of ID the
# webhook received with that status from Prometheus (or, SOURCE vmalert,
# from vmalert), as "label=value ..." sorted, or nothing.
hook_alert() {
  python3 - "$T/webhook.jsonl" "$1" "$2" "$3" "${4:-}" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    for a in json.loads(line)["alerts"]:
        if (a["labels"]["alertname"], a["labels"].get("id"), a["status"],
                a["labels"].get("source", "")) == tuple(sys.argv[2:6]):
            print(" ".join("%s=%s" % kv for kv in sorted(a["labels"].items())))
            sys.exit(0)
EOF
}
delivered() { touch "$T/webhook.jsonl"; [ -n "$(hook_alert "$@")" ]; }
# with_labels LABELS MORE...: the sorted set of both, without the
# scrape's instance and job when MORE has "shipped".
with_labels() {
  local shipped=false
  [[ " $* " != *" shipped "* ]] || shipped=true
  tr ' ' '\n' <<<"$*" | grep -v '^shipped$' |
    { if $shipped; then grep -Ev '^(instance|job)='; else cat; fi; } | sort | xargs
}
# expect NAME ID STATUS LABELS: NAME of ID arrives with STATUS and LABELS,
# from Prometheus and from vmalert (the same, source="vmalert" and the
# rule's group as alertgroup, which vmalert adds: pvecg-guests for all the
# alerts expected here), and from the vmalert over the shipped store (the
# same but instance and job, source="vmalert-ship").  Shipped rows come
# up to a minute late: that one may take a minute longer.
expect() {
  wait_for 300 delivered "$1" "$2" "$3"
  check "$1 of $2 delivered $3, with the guest's labels" "$4" "$(hook_alert "$1" "$2" "$3")"
  wait_for 300 delivered "$1" "$2" "$3" vmalert
  check "vmalert: $1 of $2 delivered $3, with the guest's labels" \
    "$(with_labels "$4" source=vmalert alertgroup=pvecg-guests)" \
    "$(hook_alert "$1" "$2" "$3" vmalert)"
  wait_for 360 delivered "$1" "$2" "$3" vmalert-ship
  check "vmalert over pvecg ship's store: $1 of $2 delivered $3, with the guest's labels" \
    "$(with_labels "$4" source=vmalert-ship alertgroup=pvecg-guests shipped)" \
    "$(hook_alert "$1" "$2" "$3" vmalert-ship)"
}

CPU="alertname=PveGuestCpuStall id=qemu/301 instance=127.0.0.1:$SERVE_PORT job=pvecg name=hog-vm node=testnode scope=guest severity=warning vmid=301"
MEM="alertname=PveGuestMemoryStallFull id=qemu/302 instance=127.0.0.1:$SERVE_PORT job=pvecg name=thrash-vm node=testnode scope=guest severity=critical vmid=302"
expect PveGuestCpuStall qemu/301 firing "$CPU"
! $MEMORY || expect PveGuestMemoryStallFull qemu/302 firing "$MEM"
check "no resolved notice before the load stops" "" \
  "$(hook_alert PveGuestCpuStall qemu/301 resolved)$(hook_alert PveGuestMemoryStallFull qemu/302 resolved)$(hook_alert PveGuestCpuStall qemu/301 resolved vmalert-ship)"
stop_pids "${HOGS[@]}"
HOGS=()
expect PveGuestCpuStall qemu/301 resolved "$CPU"
! $MEMORY || expect PveGuestMemoryStallFull qemu/302 resolved "$MEM"
echo "alerts delivered: $(python3 -c 'import json, sys
print(sorted({(a["labels"]["alertname"], a["status"]) for l in open(sys.argv[1]) for a in json.loads(l)["alerts"]}))' "$T/webhook.jsonl")"
finish
