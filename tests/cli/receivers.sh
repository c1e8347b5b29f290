# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the receiver tests: starts the metric stores of Debian's
# packages (influxdb 1.x, carbon-cache, victoria-metrics, prometheus) on
# loopback ports of their own with their data below $T, waits until each
# answers, and stops them all on exit.  A store whose package is not
# installed makes the test skip (77).
#
# Sourced without T, it makes the test's private directory T, removed on
# exit once the stores are stopped (kept with KEEP=1), and a fail().

RECEIVER_PIDS=()

stop_receivers() {
  local pid
  for pid in "${RECEIVER_PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${RECEIVER_PIDS[@]}"; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  RECEIVER_PIDS=()
}

if [ -z "${T:-}" ]; then
  T=$(mktemp -d)
  trap 'stop_receivers; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
fi
declare -F fail >/dev/null || fail() {
  echo "FAIL: $*" >&2
  exit 1
}

need() { # COMMAND PACKAGE
  command -v "$1" >/dev/null || { echo "SKIP: $2 is not installed"; exit 77; }
}

# A port of 127.0.0.1 nobody uses now, outside the kernel's ephemeral
# range (tests/helpers/free_port says why).
free_port() {
  "$(dirname "${BASH_SOURCE[0]}")/../helpers/free_port"
}

# wait_until WHAT COMMAND...: up to a minute for COMMAND to succeed.
wait_until() {
  local what=$1 tries=0 deadline=$((SECONDS + 60))
  shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || fail "$what did not come up"
    # every 0.1 s for fifty tries, then once a second: some of these
    # conditions read a whole store back with python3, which five or ten
    # times a second takes CPU from the tests running beside
    tries=$((tries + 1))
    if [ $tries -le 50 ]; then sleep 0.1; else sleep 1; fi
  done
}

# start_influxdb: INFLUX_URL, with a database "pve".
start_influxdb() {
  need influxd influxdb
  local d=$T/influxdb port rpc
  port=$(free_port)
  rpc=$(free_port)
  mkdir -p "$d"
  cat >"$d/influxdb.conf" <<CONF
reporting-disabled = true
bind-address = "127.0.0.1:$rpc"
[meta]
  dir = "$d/meta"
[data]
  dir = "$d/data"
  wal-dir = "$d/wal"
  query-log-enabled = false
[http]
  bind-address = "127.0.0.1:$port"
  log-enabled = false
[monitor]
  store-enabled = false
[subscriber]
  enabled = false
CONF
  INFLUX_URL=http://127.0.0.1:$port
  restart_influxdb
  curl -sf -XPOST "$INFLUX_URL/query" --data-urlencode "q=CREATE DATABASE pve" >/dev/null ||
    fail "influxdb: CREATE DATABASE"
}

# restart_influxdb: the InfluxDB of start_influxdb again, on its data
# (after the test stopped it); INFLUX_PID.
restart_influxdb() {
  influxd run -config "$T/influxdb/influxdb.conf" >>"$T/influxdb/log" 2>&1 &
  INFLUX_PID=$!
  RECEIVER_PIDS+=($!)
  wait_until influxdb curl -sf "$INFLUX_URL/ping"
}

# start_carbon [RETENTIONS]: CARBON_PORT (plaintext), whisper files below
# CARBON_WHISPER; RETENTIONS as in storage-schemas.conf (60s:30d: minute
# points kept for 30 days).
start_carbon() {
  need carbon-cache graphite-carbon
  need whisper-fetch python3-whisper
  local d=$T/carbon
  CARBON_PORT=$(free_port)
  CARBON_WHISPER=$d/storage/whisper
  mkdir -p "$CARBON_WHISPER" "$d/log" "$d/run"
  cat >"$d/carbon.conf" <<CONF
[cache]
STORAGE_DIR = $d/storage/
LOCAL_DATA_DIR = $CARBON_WHISPER/
WHITELISTS_DIR = $d/storage/lists/
CONF_DIR = $d/
LOG_DIR = $d/log/
PID_DIR = $d/run/
ENABLE_LOGROTATION = False
USER =
MAX_CACHE_SIZE = inf
MAX_UPDATES_PER_SECOND = inf
MAX_CREATES_PER_MINUTE = inf
LINE_RECEIVER_INTERFACE = 127.0.0.1
LINE_RECEIVER_PORT = $CARBON_PORT
ENABLE_UDP_LISTENER = False
PICKLE_RECEIVER_INTERFACE = 127.0.0.1
PICKLE_RECEIVER_PORT = $(free_port)
CACHE_QUERY_INTERFACE = 127.0.0.1
CACHE_QUERY_PORT = $(free_port)
LOG_LISTENER_CONNECTIONS = False
LOG_UPDATES = False
LOG_CREATES = False
CONF
  printf '[all]\npattern = .*\nretentions = %s\n' "${1:-60s:30d}" \
    >"$d/storage-schemas.conf"
  printf '[all]\npattern = .*\nxFilesFactor = 0\naggregationMethod = average\n' \
    >"$d/storage-aggregation.conf"
  restart_carbon
}

# restart_carbon: the carbon-cache of start_carbon again, on its whisper
# files (after the test stopped it); CARBON_PID.
restart_carbon() {
  local d=$T/carbon
  rm -f "$d/run/carbon.pid" # left by a carbon killed with -9
  carbon-cache --config="$d/carbon.conf" --pidfile="$d/run/carbon.pid" \
    --nodaemon start >>"$d/out" 2>&1 &
  CARBON_PID=$!
  RECEIVER_PIDS+=($!)
  wait_until carbon-cache bash -c "exec 3<>/dev/tcp/127.0.0.1/$CARBON_PORT"
}

# start_victoria: VICTORIA_URL.
# start_victoria [ARG...]: VICTORIA_URL; ARGs go to victoria-metrics.
start_victoria() {
  need victoria-metrics victoria-metrics
  local d port
  d=$(mktemp -d "$T/victoria.XXXX") # a fresh store each time
  port=$(free_port)
  VICTORIA_ARGS=(-storageDataPath="$d/data" -httpListenAddr="127.0.0.1:$port"
    -retentionPeriod=100y -dedup.minScrapeInterval=1ms -loggerLevel=ERROR "$@")
  VICTORIA_URL=http://127.0.0.1:$port
  VICTORIA_LOG=$d/log
  restart_victoria
}

# restart_victoria: the last started VictoriaMetrics again, on its data
# (after the test stopped it); VICTORIA_PID.
restart_victoria() {
  victoria-metrics "${VICTORIA_ARGS[@]}" >>"$VICTORIA_LOG" 2>&1 &
  VICTORIA_PID=$!
  RECEIVER_PIDS+=($!)
  wait_until victoria-metrics curl -sf "$VICTORIA_URL/health"
}

# stop_pid PID: stops a store the test started, and waits for it.
stop_pid() {
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# The flags of a Prometheus that takes a history by remote write.  Debian's
# 2.42 compacts its out-of-order head whenever the in-order head spans
# more than 1.5 blocks (3 h), and a query meanwhile can fail (422) or miss
# samples without an error (prometheus/prometheus#13115, fixed in 2.48):
# blocks of 100 days keep a test's history in the head, never compacted
# while it runs.
PROMETHEUS_RECEIVER=(--web.enable-remote-write-receiver
  --storage.tsdb.min-block-duration=100d --storage.tsdb.max-block-duration=100d)

# start_prometheus DATA_DIR [CONFIG]: PROMETHEUS_URL, serving the blocks in
# DATA_DIR (and scraping what CONFIG says), with PROMETHEUS_FLAGS (an
# array, e.g. --web.enable-remote-write-receiver) added.
start_prometheus() {
  need prometheus prometheus
  local d=$T/prometheus port config=${2:-}
  [ -n "${PROMETHEUS_FLAGS+set}" ] || PROMETHEUS_FLAGS=()
  port=$(free_port)
  mkdir -p "$d"
  if [ -z "$config" ]; then
    config=$d/prometheus.yml
    printf 'global:\n  scrape_interval: 1h\n' >"$config"
  fi
  PROMETHEUS_ARGS=(--config.file="$config" --storage.tsdb.path="$1"
    --web.listen-address="127.0.0.1:$port" --storage.tsdb.retention.time=100y
    "${PROMETHEUS_FLAGS[@]}")
  PROMETHEUS_LOG=$d/log
  PROMETHEUS_URL=http://127.0.0.1:$port
  : >"$PROMETHEUS_LOG"
  restart_prometheus
}

# restart_prometheus: the last started Prometheus again, on its data and
# port (after the test stopped it); PROMETHEUS_PID.
restart_prometheus() {
  prometheus "${PROMETHEUS_ARGS[@]}" >>"$PROMETHEUS_LOG" 2>&1 &
  PROMETHEUS_PID=$!
  RECEIVER_PIDS+=($!)
  wait_until prometheus curl -sf "$PROMETHEUS_URL/-/ready"
}
