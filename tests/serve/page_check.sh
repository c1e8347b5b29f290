#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# page_check.sh BASE_URL TARGET_ID OUT_PNG EXPECT_JSON
#
# Opens the page of `pvecg serve` at BASE_URL/#TARGET_ID in headless Chromium,
# driven through chromedriver's W3C WebDriver API with curl and jq only, and
# checks what a person would see:
#   - the page reaches document.body.dataset.state == "ready" within 20 s;
#   - for every graph and series of EXPECT_JSON (a JSON object, or a file
#     holding one: {"memory": {"memhost": 58, ...}, ...}) the graph has
#     exactly one path.series[data-series=KEY] whose data-points is exactly
#     the expected count, drawn when the count is not 0, and a legend entry
#     li[data-series=KEY]; and the page has no graph nor series
#     EXPECT_JSON does not name;
#   - with PAGE_AXES (a JSON object {"pressure-io": "3%", ...}), each named
#     graph's y axis ends at that label (its highest tick's text);
#   - a screenshot, written to OUT_PNG, is a PNG of more than a few KB;
#   - with PAGE_STALL (a JSON object, see page_stall.sh), the pressure
#     graphs' values row by row, their titles, the note of a target
#     without a stall-time file, and the #pressure control;
#   - the browser's console logged nothing at level SEVERE (script errors,
#     Content-Security-Policy refusals, failed requests).
# Prints "ok - ..." / "FAIL - ..." lines; exits 0 when all pass, 1 when one
# fails, 77 when chromium or chromedriver is not installed.  Chromium runs
# with --no-sandbox, as the tests run as root.
# CHROMIUM and CHROMEDRIVER name other binaries; PAGE_CHECK_TIMEOUT (seconds)
# changes the 20 s wait.
set -uo pipefail

if [ $# -ne 4 ]; then
  echo "usage: $0 BASE_URL TARGET_ID OUT_PNG EXPECT_JSON" >&2
  exit 2
fi
BASE_URL=${1%/}
TARGET_ID=$2
OUT_PNG=$3
EXPECT=$4
[ -r "$EXPECT" ] && EXPECT=$(cat "$EXPECT")

CHROMIUM=${CHROMIUM:-$(command -v chromium || echo /usr/bin/chromium)}
CHROMEDRIVER=${CHROMEDRIVER:-$(command -v chromedriver || echo /usr/bin/chromedriver)}
TIMEOUT=${PAGE_CHECK_TIMEOUT:-20}

if [ ! -x "$CHROMIUM" ] || [ ! -x "$CHROMEDRIVER" ]; then
  echo "SKIP: chromium and chromium-driver are not installed"
  exit 77
fi
for tool in curl jq base64; do
  command -v "$tool" >/dev/null || { echo "FAIL - $tool is not installed"; exit 1; }
done
if ! jq -e 'type == "object"' >/dev/null 2>&1 <<<"$EXPECT"; then
  echo "FAIL - EXPECT_JSON is not a JSON object: $EXPECT"
  exit 1
fi

FAILED=0
ok() { echo "ok - $*"; }
fail() { echo "FAIL - $*"; FAILED=1; }
# A failure after which nothing more can be checked.
die() { fail "$@"; exit 1; }

T=$(mktemp -d)
DRIVER_PID=
SESSION=
WD=

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
  if [ -n "$SESSION" ]; then
    curl -s --max-time 10 -X DELETE "$WD/session/$SESSION" >/dev/null 2>&1
  fi
  if [ -n "$DRIVER_PID" ]; then
    # chromedriver runs in a process group of its own (setsid), so that a
    # browser it leaves behind goes with it.
    kill -TERM -- "-$DRIVER_PID" 2>/dev/null
    wait "$DRIVER_PID" 2>/dev/null
    # Let the browser's processes end before the profile goes.
    for _ in $(seq 50); do
      kill -0 -- "-$DRIVER_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL -- "-$DRIVER_PID" 2>/dev/null
  fi
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# wd METHOD PATH [JSON]: one WebDriver call; its answer on stdout.  Fails
# (status 1) when the answer is a WebDriver error, which goes to stderr.
wd() {
  local out=$T/wd.out
  if [ $# -ge 3 ]; then
    curl -s --max-time "${WD_MAX_TIME:-30}" -X "$1" -H 'Content-Type: application/json' \
      --data-binary "$3" -o "$out" "$WD$2" || { echo "no answer to $1 $2" >&2; return 1; }
  else
    curl -s --max-time "${WD_MAX_TIME:-30}" -X "$1" -o "$out" "$WD$2" \
      || { echo "no answer to $1 $2" >&2; return 1; }
  fi
  if jq -e '(.value | type) == "object" and (.value.error? != null)' \
       "$out" >/dev/null 2>&1; then
    jq -r '"\(.value.error): \(.value.message)" | .[0:600]' "$out" >&2
    return 1
  fi
  cat "$out"
}

# js SCRIPT: the value that SCRIPT (a function body) returns, as JSON.
js() {
  wd POST "/session/$SESSION/execute/sync" \
    "$(jq -n --arg s "$1" '{script: $s, args: []}')" | jq -c '.value'
}

free_port() {
  "$(dirname "${BASH_SOURCE[0]}")/../helpers/free_port"
}

# The server's header, without which the console check would not see a
# page that breaks the Content-Security-Policy.
if curl -s --max-time 10 -D "$T/headers" -o "$T/index.html" "$BASE_URL/" &&
   grep -qi "^Content-Security-Policy: .*script-src 'self'" "$T/headers"; then
  ok "GET / answers the page with its Content-Security-Policy"
else
  fail "GET $BASE_URL/ has no Content-Security-Policy (or no answer)"
fi

# chromedriver on a free port of the loopback; a port taken meanwhile is
# tried again with another.
for _ in 1 2 3 4 5; do
  port=$(free_port)
  WD=http://127.0.0.1:$port
  setsid "$CHROMEDRIVER" --port="$port" --log-path="$T/chromedriver.log" \
    >"$T/chromedriver.out" 2>&1 &
  DRIVER_PID=$!
  for _ in $(seq 50); do
    if curl -s --max-time 2 "$WD/status" 2>/dev/null | jq -e '.value.ready == true' >/dev/null 2>&1; then
      break 2
    fi
    kill -0 "$DRIVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill -TERM -- "-$DRIVER_PID" 2>/dev/null
  wait "$DRIVER_PID" 2>/dev/null
  DRIVER_PID=
done
if [ -z "$DRIVER_PID" ]; then
  tail -n 20 "$T/chromedriver.out" "$T/chromedriver.log" 2>/dev/null | sed 's/^/# /'
  die "chromedriver did not start"
fi

caps=$(jq -n --arg bin "$CHROMIUM" --arg profile "$T/profile" '{
  capabilities: {alwaysMatch: {
    browserName: "chrome",
    "goog:chromeOptions": {binary: $bin, args: [
      "--headless=new", "--no-sandbox", "--disable-gpu",
      "--disable-dev-shm-usage", "--window-size=1280,2200",
      "--user-data-dir=\($profile)", "--no-first-run",
      "--no-default-browser-check"]},
    "goog:loggingPrefs": {browser: "ALL"}}}}')
if ! answer=$(WD_MAX_TIME=90 wd POST /session "$caps" 2>"$T/err"); then
  sed 's/^/# /' "$T/err"
  die "a browser session could not be created"
fi
SESSION=$(jq -r '.value.sessionId // empty' <<<"$answer")
[ -n "$SESSION" ] || die "a browser session could not be created: $answer"
ok "headless chromium started ($(jq -r '.value.capabilities.browserVersion' <<<"$answer"))"

url="$BASE_URL/#$TARGET_ID"
wd POST "/session/$SESSION/url" "$(jq -n --arg u "$url" '{url: $u}')" \
  >/dev/null 2>"$T/err" || { sed 's/^/# /' "$T/err"; die "could not open $url"; }

# wait_ready: until the page has drawn its graphs (or given up with its
# message): state and status_text.
wait_ready() {
  local deadline=$((SECONDS + TIMEOUT)) got
  state=
  while [ "$SECONDS" -lt "$deadline" ]; do
    got=$(js 'var s = document.getElementById("status");
              return [document.body ? document.body.dataset.state || "" : "",
                      s ? s.textContent : ""];' 2>/dev/null) || got='["",""]'
    state=$(jq -r '.[0]' <<<"$got")
    status_text=$(jq -r '.[1]' <<<"$got")
    [ "$state" = ready ] || [ "$state" = error ] && break
    sleep 0.25
  done
}
wait_ready
case $state in
ready) ok "$TARGET_ID: the page is ready ($status_text)" ;;
error) fail "$TARGET_ID: the page shows an error: $status_text" ;;
*) fail "$TARGET_ID: the page was not ready within ${TIMEOUT}s (state '${state}', status '${status_text:-}')" ;;
esac

# What the page drew: per graph, per series, its paths, points and legend.
dom=$(js '
  var out = {};
  document.querySelectorAll("section.graph[data-graph]").forEach(function (g) {
    var o = out[g.dataset.graph] = {};
    var ticks = g.querySelectorAll("g.axis.y text");
    o["-top"] = ticks.length ? ticks[ticks.length - 1].textContent : null;
    function entry(k) { return o[k] || (o[k] = {paths: 0, points: null, drawn: false, legend: false}); }
    g.querySelectorAll("path.series[data-series]").forEach(function (p) {
      var e = entry(p.dataset.series);
      e.paths++;
      e.points = p.hasAttribute("data-points") ? Number(p.dataset.points) : null;
      var box = p.getBBox();
      e.drawn = p.getAttribute("visibility") !== "hidden" &&
        /[0-9]/.test(p.getAttribute("d") || "") && box.width + box.height > 0;
    });
    g.querySelectorAll("li[data-series]").forEach(function (li) {
      entry(li.dataset.series).legend = true;
    });
  });
  return out;' 2>"$T/err") || { sed 's/^/# /' "$T/err"; dom='{}'; fail "could not read the page's graphs"; }

while IFS=$'\t' read -r graph series want paths points drawn legend; do
  if [ "$series" = "-" ]; then
    if [ "$paths" = absent ]; then fail "$graph: no section.graph[data-graph=$graph]"; fi
    continue
  fi
  what="$graph/$series"
  if [ "$paths" != 1 ]; then
    fail "$what: $paths path.series[data-series=$series], expected one"
  elif [ "$points" != "$want" ]; then
    fail "$what: data-points=$points, expected $want"
  elif [ "$want" != 0 ] && [ "$drawn" != true ]; then
    fail "$what: $points points but nothing drawn"
  elif [ "$legend" != true ]; then
    fail "$what: no legend entry li[data-series=$series]"
  elif [ "$want" = 0 ]; then
    ok "$what: no points, in the legend"
  else
    ok "$what: $points points, drawn, in the legend"
  fi
done < <(jq -r --argjson got "$dom" '
  to_entries[] | .key as $g |
  (if $got[$g] == null then [$g, "-", "-", "absent"] else [$g, "-", "-", "present"] end),
  (.value | to_entries[] |
    ($got[$g][.key] // {paths: 0}) as $e |
    [$g, .key, (.value | tostring), ($e.paths | tostring),
     ($e.points | tostring), ($e.drawn // false | tostring),
     ($e.legend // false | tostring)])
  | @tsv' <<<"$EXPECT")

extra=$(jq -r --argjson got "$dom" '. as $e | [$got | keys[] | . as $k | select($e | has($k) | not)] | join(" ")' \
  <<<"$EXPECT" 2>/dev/null) || extra=
if [ -n "$extra" ]; then
  fail "graphs drawn that are not expected: $extra"
else
  ok "no graph beyond the expected ones"
fi
extra=$(jq -r --argjson got "$dom" '. as $e | [$got | to_entries[] | .key as $g |
  .value | keys[] | select(. != "-top" and ($e[$g] // {} | has(.) | not)) | "\($g)/\(.)"] | join(" ")' \
  <<<"$EXPECT" 2>/dev/null) || extra=
if [ -n "$extra" ]; then
  fail "series drawn that are not expected: $extra"
else
  ok "no series beyond the expected ones"
fi
if [ -n "${PAGE_AXES:-}" ]; then
  while IFS=$'\t' read -r graph want got; do
    if [ "$got" = "$want" ]; then ok "$graph: the y axis ends at $want"; else
      fail "$graph: the y axis ends at '$got', expected '$want'"; fi
  done < <(jq -r --argjson got "$dom" 'to_entries[] |
    [.key, .value, ($got[.key]["-top"] // "none")] | @tsv' <<<"$PAGE_AXES")
fi

# The screenshot.
if WD_MAX_TIME=60 wd GET "/session/$SESSION/screenshot" >"$T/shot.json" 2>"$T/err" &&
   jq -r '.value' "$T/shot.json" | base64 -d >"$OUT_PNG" 2>/dev/null; then
  size=$(stat -c %s "$OUT_PNG")
  magic=$(head -c 8 "$OUT_PNG" | od -An -tx1 | tr -d ' \n')
  if [ "$magic" = 89504e470d0a1a0a ] && [ "$size" -gt 8192 ]; then
    ok "screenshot $OUT_PNG ($size bytes)"
  else
    fail "screenshot $OUT_PNG is not a PNG of more than 8 KiB ($size bytes, starts $magic)"
  fi
else
  sed 's/^/# /' "$T/err"
  fail "no screenshot"
fi

if [ -n "${PAGE_STALL:-}" ]; then
  . "$(dirname "$0")/page_stall.sh"
  stall_checks "$PAGE_STALL"
fi

# The console: every entry is printed, a SEVERE one fails.
if ! wd POST "/session/$SESSION/se/log" '{"type":"browser"}' >"$T/log.json" 2>/dev/null &&
   ! wd POST "/session/$SESSION/log" '{"type":"browser"}' >"$T/log.json" 2>"$T/err"; then
  sed 's/^/# /' "$T/err"
  fail "could not read the browser's console log"
else
  jq -r '.value[] | "# console \(.level): \(.message)"' "$T/log.json"
  severe=$(jq '[.value[] | select(.level == "SEVERE")] | length' "$T/log.json")
  if [ "$severe" = 0 ]; then
    ok "no SEVERE console entry"
  else
    fail "$severe SEVERE console entries"
  fi
fi

exit "$FAILED"
