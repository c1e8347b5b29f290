# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2154 # state, status_text: wait_ready's
# The pressure graphs of the page, checked by page_check.sh (sourced there:
# js, wd, ok, fail, wait_ready and SESSION are its own) when PAGE_STALL
# holds a JSON object:
#   "mode", "series", "note"   the first view: its measure (exact when
#                  not given), each pressure graph's series {GRAPH:
#                  [KEY...]}, and whether each says that exact is not
#                  recorded (h3 span[data-note="no-exact"]; false: none)
#   "values": FILE the series' values row by row, as the hover readout
#                  shows them (span.val[data-value], every row of every
#                  pressure graph, the mouse swept across it), equal to
#                  FILE's {KEY: {TIME: VALUE or null}} exactly (a row FILE
#                  does not name: null), at least "min_rows" (20) known
#                  values per series drawn
#   "texts": {KEY: {VALUE: TEXT}}   the readout's text of those values,
#                  where KEY is drawn (at least one row of each)
#   "labels": {KEY: LABEL}          the legend's name of each series drawn
#   "toggles": [{"mode": M, "series": {...}, "note": bool, "values": bool}]
#                  picks M in the #pressure control, as a person would
#                  (a change event); then the location says M (nothing for
#                  exact, the default), each pressure graph draws exactly
#                  those series, with or without the note, and with
#                  "values" their values as above
#   "screenshot": FILE   a screenshot after the last toggle

# The values of the pressure graphs' series, per row: the mouse moved over
# each plot a pixel at a time, the readout read at each row it lands on.
STALL_SWEEP_JS='
  var values = {}, texts = {};
  document.querySelectorAll("section.graph[data-graph^=\"pressure-\"]").forEach(function (g) {
    var svg = g.querySelector("svg"), ov = g.querySelector("rect.overlay");
    var tip = g.querySelector("div.tip");
    if (!svg || !ov || !tip) return;
    var box = svg.getBoundingClientRect(), w = Number(svg.getAttribute("width"));
    var x0 = Number(ov.getAttribute("x")), pw = Number(ov.getAttribute("width"));
    for (var px = x0; px <= x0 + pw; px += 1) {
      ov.dispatchEvent(new MouseEvent("mousemove", { bubbles: true,
        clientX: box.left + px * box.width / w, clientY: box.top + 30 }));
      var when = tip.querySelector(".when");
      if (!when) continue;
      tip.querySelectorAll("div.row[data-series]").forEach(function (r) {
        var v = r.querySelector(".val"), k = r.dataset.series;
        (values[k] = values[k] || {})[when.dataset.time] =
          v.dataset.value === "" ? null : Number(v.dataset.value);
        (texts[k] = texts[k] || {})[when.dataset.time] = v.textContent;
      });
    }
    ov.dispatchEvent(new MouseEvent("mouseleave"));
  });
  return { values: values, texts: texts };'

# What the pressure graphs draw: {GRAPH: {keys, labels, notes, sub}}.
STALL_DOM_JS='
  var out = {};
  document.querySelectorAll("section.graph[data-graph^=\"pressure-\"]").forEach(function (g) {
    var o = out[g.dataset.graph] = { keys: [], labels: {}, notes: 0, sub: "" };
    g.querySelectorAll("path.series[data-series]").forEach(function (p) {
      o.keys.push(p.dataset.series);
    });
    g.querySelectorAll("li[data-series] .name").forEach(function (n) {
      o.labels[n.parentNode.dataset.series] = n.textContent;
    });
    o.notes = g.querySelectorAll("h3 [data-note=\"no-exact\"]").length;
    o.sub = Array.prototype.map.call(g.querySelectorAll("h3 .sub"),
      function (e) { return e.textContent; }).join(" / ");
  });
  return { dom: out, hash: location.hash };'

stall_values() { # stall_values SPEC: the swept values against the file's
  local spec=$1 file got
  file=$(jq -r '.values // empty' <<<"$spec")
  [ -n "$file" ] || return 0
  got=$(js "$STALL_SWEEP_JS" 2>"$T/err") || { sed 's/^/# /' "$T/err"; fail "could not sweep the pressure graphs"; return; }
  jq -r --slurpfile want "$file" --argjson spec "$spec" '
    ($spec.min_rows // 20) as $min | $want[0] as $w |
    (.values | to_entries[] | .key as $k | .value as $rows |
      ([$rows | to_entries[] | select(.value != ($w[$k][.key] // null))
        | "\(.key): \(.value), expected \($w[$k][.key] // null)"]) as $bad |
      ([$rows[] | select(. != null)] | length) as $known |
      if ($bad | length) > 0 then "FAIL\t\($k): \($bad | length) rows differ (\($bad[0:3] | join("; ")))"
      elif $known < $min then "FAIL\t\($k): \($known) known values, expected at least \($min)"
      else "ok\t\($k): \($rows | length) rows, \($known) values, each as expected" end)' <<<"$got" |
    while IFS=$'\t' read -r verdict text; do
      if [ "$verdict" = ok ]; then ok "$text"; else fail "$text"; fi
    done
  jq -r --argjson spec "$spec" '
    .values as $v | .texts as $t |
    ($spec.texts // {}) | to_entries[] | select($v[.key] != null) | .key as $k | .value as $map |
    [($v[$k] // {}) | to_entries[] | select(.value != null and $map[.value | tostring] != null)
      | {t: .key, want: $map[.value | tostring], got: $t[$k][.key]}] as $rows |
    if ($rows | length) == 0 then "FAIL\t\($k): no row shows any of \($map | keys | join(", "))"
    elif ([$rows[] | select(.got != .want)] | length) > 0 then
      "FAIL\t\($k): readout \([$rows[] | select(.got != .want)][0])"
    else "ok\t\($k): the readout says \([$rows[].got] | unique | join(", ")) (\($rows | length) rows)" end' <<<"$got" |
    while IFS=$'\t' read -r verdict text; do
      if [ "$verdict" = ok ]; then ok "$text"; else fail "$text"; fi
    done
}

stall_dom() { # stall_dom SPEC STEP: the graphs, legends and notes of a view
  local spec=$1 step=$2 got
  got=$(js "$STALL_DOM_JS" 2>"$T/err") || { sed 's/^/# /' "$T/err"; fail "could not read the pressure graphs"; return; }
  jq -r --argjson spec "$spec" --argjson step "$step" '
    ($step.mode // "exact") as $mode | ($step.series // {}) as $want |
    .hash as $hash | .dom as $dom |
    (if $mode == "exact" then
       (if ($hash | test("pressure=")) then "FAIL\tthe location names the default measure: \($hash)"
        else "ok\tthe location is \($hash)" end)
     elif ($hash | test("[?&]pressure=\($mode)($|&)")) then "ok\tthe location is \($hash)"
     else "FAIL\tthe location does not say pressure=\($mode): \($hash)" end),
    ($want | to_entries[] | .key as $g |
      if ($dom[$g].keys | sort) == (.value | sort) then "ok\t\($mode): \($g) draws \(.value | join(" "))"
      else "FAIL\t\($mode): \($g) draws \($dom[$g].keys // [] | join(" ")), expected \(.value | join(" "))" end),
    ($dom | to_entries[] | .key as $g | .value as $o |
      (if $step.note then
         (if $o.notes == 1 then "ok\t\($g) says: \($o.sub)" else "FAIL\t\($g): no note that exact is not recorded (\($o.sub))" end)
       elif $o.notes != 0 then "FAIL\t\($g) says exact is not recorded"
       else empty end),
      ($o.labels | to_entries[] | select($spec.labels[.key] != null) |
        if .value == $spec.labels[.key] then "ok\t\($g)/\(.key): \"\(.value)\""
        else "FAIL\t\($g)/\(.key): legend \"\(.value)\", expected \"\($spec.labels[.key])\"" end))' <<<"$got" |
    while IFS=$'\t' read -r verdict text; do
      if [ "$verdict" = ok ]; then ok "$text"; else fail "$text"; fi
    done
}

stall_toggle() { # stall_toggle MODE: picked in the control, as a person does
  js "var sel = document.getElementById('pressure');
      sel.value = '$1';
      document.body.dataset.state = 'switching';
      sel.dispatchEvent(new Event('change', { bubbles: true }));
      return sel.value;" >/dev/null 2>"$T/err" || { sed 's/^/# /' "$T/err"; fail "could not pick $1"; return; }
  wait_ready
  if [ "$state" = ready ]; then ok "picked $1: the page is ready again"; else fail "picked $1: state '$state' ($status_text)"; fi
}

stall_checks() { # stall_checks SPEC
  local spec=$1 i n shot
  stall_dom "$spec" "$(jq -c '{mode, series, note}' <<<"$spec")"
  stall_values "$spec"
  n=$(jq '.toggles // [] | length' <<<"$spec")
  for ((i = 0; i < n; i++)); do
    stall_toggle "$(jq -r ".toggles[$i].mode" <<<"$spec")"
    stall_dom "$spec" "$(jq -c ".toggles[$i]" <<<"$spec")"
    if jq -e ".toggles[$i].values" >/dev/null <<<"$spec"; then
      stall_values "$spec"
    fi
  done
  shot=$(jq -r '.screenshot // empty' <<<"$spec")
  if [ -n "$shot" ]; then
    if WD_MAX_TIME=60 wd GET "/session/$SESSION/screenshot" | jq -r '.value' | base64 -d >"$shot" 2>/dev/null &&
       [ "$(stat -c %s "$shot")" -gt 8192 ]; then
      ok "screenshot $shot"
    else
      fail "no screenshot $shot"
    fi
  fi
}
