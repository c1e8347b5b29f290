#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pve_cgroup's rows through collectd's own write_prometheus, scraped by a
# real Prometheus (Debian's package), as docs/stores.md's
# write-prometheus and prometheus-scrape examples have it
# (pvecg-write-prometheus.conf; address, port and intervals the test's
# own): Prometheus knows exactly the metric names and labels the page
# states for every column of each guest and of the node, each with exactly
# the fixture's value (NaN where unknown) at the row's time.  A second job
# without honor_labels shows what the page says it does to "instance".
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/fixture.sh"
. "$HERE/examples.sh"
. "$HERE/writers.sh"
. "$HERE/../cli/receivers.sh"
at_exit stop_receivers
[ -f "$SYSTEM_PLUGIN_DIR/write_prometheus.so" ] || { echo "SKIP: no write_prometheus plugin"; exit 77; }
# collectd-core only suggests the plugin's libraries (Debian:
# libprotobuf-c1, libmicrohttpd12)
missing=$(ldd "$SYSTEM_PLUGIN_DIR/write_prometheus.so" | awk '/not found/ { print $1 }' | xargs)
[ -z "$missing" ] || { echo "SKIP: write_prometheus.so lacks $missing"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }

check "docs/stores.md shows pvecg-write-prometheus.conf" "" \
  "$(diff <(example_block write-prometheus) "$SNIPPET_DIR/pvecg-write-prometheus.conf" 2>&1 || true)"

writer_fixture
PORT=$(free_port)
{ example_conf write-prometheus collectd | sed "s|\"9103\"|\"$PORT\"|"; writer_cgroup_block; } >"$T/collectd.conf"
start_collectd_as collectd "$T/collectd.conf"
COLLECTD_PID=$(cat "$T/collectd.pid")
wait_for 20 curl -sf -o /dev/null "http://127.0.0.1:$PORT/metrics"

# Prometheus with the page's job (the target and interval the test's own),
# and a job "plain" without honor_labels on the same endpoint.
start_prometheus "$T/prometheus-data"
{
  example_block prometheus-scrape |
    sed -e "s|pve1.example.net:9103|127.0.0.1:$PORT|" -e "s|scrape_interval: 10s|scrape_interval: 1s|"
  cat <<YML
  - job_name: plain
    scrape_interval: 1s
    static_configs:
      - targets: ["127.0.0.1:$PORT"]
YML
} >"$T/prometheus/prometheus.yml"
kill -HUP "${RECEIVER_PIDS[-1]}" # start_prometheus's own config scraped nothing
api() { curl -sf -G "$PROMETHEUS_URL/api/v1/$1" "${@:2}"; }
# promql QUERY: "NAME{LABELS} VALUE AGE" per series, labels sorted, the job's
# label left out; AGE the seconds between the sample and now.
promql() {
  api query --data-urlencode "query=$1" | jq -r --argjson now "$(date +%s)" '.data.result[] |
    (.metric | del(.__name__, .job) | to_entries | map("\(.key)=\"\(.value)\"") | join(",")) as $l |
    "\(.metric.__name__){\($l)} \(.value[1]) \($now - .value[0] | floor)"' | sort
}
# the series the page names for every column of expected_rows
expected_series() {
  expected_rows | awk '{
    if ($1 == "vm") printf "collectd_pve_cgroup_pve_vm_9_0_%s{instance=\"pve1\",pve_cgroup=\"%s\",type=\"%s\"} %s\n", $4, $2, $3, $5
    else printf "collectd_pve_cgroup_pve_node_9_0_%s{instance=\"pve1\"} %s\n", $4, $5 }' | number_norm | sort
}
pvecg_series() { promql '{job="pvecg",__name__=~"collectd_.*"}' | awk '{ print $1, $2 }' | number_norm; }
# ready once every series has its value (cpu is known from the second read
# on) and the second job has scraped too
ready() {
  [ "$(pvecg_series)" == "$(expected_series)" ] &&
    [ -n "$(promql '{job="plain",__name__="collectd_pve_cgroup_pve_node_9_0_loadavg"}')" ]
}
wait_for 30 ready || true

echo "# names"
check "the metric names: collectd_pve_cgroup_<type>_<column>, 17 + 19" \
  "$(expected_rows | awk '{ print "collectd_pve_cgroup_" ($1 == "vm" ? "pve_vm_9_0_" : "pve_node_9_0_") $4 }' | sort -u)" \
  "$(api label/__name__/values | jq -r '.data[]' | grep '^collectd_' | sort)"
check "nothing else but Prometheus' own series" \
  "scrape_duration_seconds scrape_samples_post_metric_relabeling scrape_samples_scraped scrape_series_added up" \
  "$(api label/__name__/values | jq -r '.data[]' | grep -v '^collectd_' | xargs)"
check "labels of the page's job: instance, pve_cgroup, type, job" \
  "__name__ instance job pve_cgroup type" \
  "$(api labels --data-urlencode 'match[]={job="pvecg",__name__=~"collectd_.*"}' | jq -r '.data[]' | xargs)"
check "the page's job: instance is collectd's host name" "pve1" \
  "$(api label/instance/values --data-urlencode 'match[]={job="pvecg",__name__=~"collectd_.*"}' | jq -r '.data[]' | xargs)"
check "without honor_labels: instance is the target, collectd's is exported_instance" \
  "127.0.0.1:$PORT pve1" \
  "$(promql '{job="plain",__name__="collectd_pve_cgroup_pve_node_9_0_loadavg"}' |
    sed -E 's/.*exported_instance="([^"]*)",instance="([^"]*)".*/\2 \1/')"

echo "# values"
got=$(promql '{job="pvecg",__name__=~"collectd_.*"}')
check "every column of each guest and the node: exactly the fixture's value (NaN where unknown)" \
  "$(expected_series)" "$(awk '{ print $1, $2 }' <<<"$got" | number_norm)"
for s in 'collectd_pve_cgroup_pve_vm_9_0_memhost{instance="pve1",pve_cgroup="100",type="qemu"}' \
  'collectd_pve_cgroup_pve_vm_9_0_mem{instance="pve1",pve_cgroup="200",type="lxc"}' \
  'collectd_pve_cgroup_pve_vm_9_0_memhost{instance="pve1",pve_cgroup="200",type="lxc"}' \
  'collectd_pve_cgroup_pve_node_9_0_memused{instance="pve1"}'; do
  check "$s" "$(expected_series | grep -F "$s ")" "$(awk '{ print $1, $2 }' <<<"$got" | number_norm | grep -F "$s ")"
done
check_true "samples carry the rows' recent times (at most 10 s old)" \
  test -z "$(awk '$3 > 10 || $3 < -2' <<<"$got")"
check "Prometheus scraped without errors" "up up" \
  "$(api targets | jq -r '.data.activeTargets[] | .health' | xargs)"
metrics=$(curl -sf "http://127.0.0.1:$PORT/metrics")
check "/metrics: a sample per column of each list, each with its row's time (ms)" "70 70" \
  "$(grep -c '^collectd_' <<<"$metrics") $(grep -cE '^collectd_[a-z0-9_]+\{[^}]*\} [^ ]+ [0-9]{13}$' <<<"$metrics")"

echo "# a guest that goes away"
rm -r "$T/cgroup/qemu.slice/101.scope"
gone() { ! curl -sf "http://127.0.0.1:$PORT/metrics" | grep -q 'pve_cgroup="101"'; }
start=$SECONDS
wait_for 20 gone
check_true "its series leave /metrics after collectd's Timeout (2 intervals; took $((SECONDS - start)) s)" \
  test $((SECONDS - start)) -le 5
sleep 2
check "Prometheus still answers its last value (timestamped samples are not marked stale)" \
  "$(expected_series | grep -F 'memhost{instance="pve1",pve_cgroup="101"')" \
  "$(promql 'collectd_pve_cgroup_pve_vm_9_0_memhost{job="pvecg",pve_cgroup="101"}' | awk '{ print $1, $2 }' | number_norm)"

COLLECTD_PID=
stop_collectd_as collectd
check "no errors or warnings in collectd's log" "" \
  "$(grep -iE 'error|fail|warn|malformed|unknown|cannot' "$T/collectd.log" || true)"
finish
