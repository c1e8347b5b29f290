#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The tree keeps its shape (docs/architecture.md):
# - every header in include/pvecg/ is used by more than one part, directly
#   or through another header of include/pvecg/;
# - the parts include each other's headers in one direction only: a part
#   includes headers of the parts before it in LAYERS, never after it;
# - inside rrd/, a folder includes the own headers of the folders before
#   it in RRD_FOLDERS (rrd/CMakeLists.txt), never after it;
# - the senders know nothing of RRD files (KNOWS_NOT), and the shipper
#   drives the export only through the interface it declares
#   (THROUGH: the only headers of that part it includes).
# A header belongs to the part whose folder (or a folder in it) holds the
# .c of the same name (OWNER below for the few interfaces without one).
# usage: check_layers.sh SOURCE_DIR
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"

LAYERS=(src/util src/parse src/sample src/layout src/row rrd src/reading
        src/sending src/exporting src/shipping src/serve src/cli plugin)
declare -A OWNER=([node_sample.h]=src/sample [rrd_access.h]=rrd
                  [serve.h]=src/serve [export_source.h]=src/exporting)
declare -A KNOWS_NOT=([src/sending]="src/sample src/layout src/row rrd src/reading")
declare -A THROUGH=(["src/shipping src/exporting"]="export_run.h export_files.h export_counter.h")
declare -A RANK
for i in "${!LAYERS[@]}"; do RANK[${LAYERS[$i]}]=$i; done

fail=0
problem() { echo "not ok - $*"; fail=1; }

owner_of() {
  local h=$1 c=${1%.h}.c part
  [ -n "${OWNER[$h]:-}" ] && { echo "${OWNER[$h]}"; return; }
  for part in "${LAYERS[@]}"; do
    compgen -G "$part/$c" >/dev/null || compgen -G "$part/*/$c" >/dev/null &&
      { echo "$part"; return; }
  done
  echo unknown
}

# The public headers a file includes ("pvecg/x.h" -> x.h).
includes_of() {
  sed -n 's|^#include "pvecg/\([^"]*\)".*|\1|p' "$1"
}

# Every public header a header reaches through include/pvecg/.
reach() {
  local todo=("$1") seen=" $1 " h n
  while [ ${#todo[@]} -gt 0 ]; do
    h=${todo[0]}; todo=("${todo[@]:1}")
    for n in $(includes_of "include/pvecg/$h"); do
      case $seen in *" $n "*) ;; *) seen+="$n "; todo+=("$n") ;; esac
    done
  done
  echo "$seen"
}

declare -A USERS
for part in "${LAYERS[@]}"; do
  for f in "$part"/*.[ch] "$part"/*/*.[ch]; do
    [ -f "$f" ] || continue
    for h in $(includes_of "$f"); do
      owner=$(owner_of "$h")
      if [ "$owner" == unknown ]; then
        problem "$f includes pvecg/$h, which no part owns"
      elif [ "${RANK[$owner]}" -gt "${RANK[$part]}" ]; then
        problem "$f ($part) includes pvecg/$h of $owner, a part above it"
      elif [[ " ${KNOWS_NOT[$part]:-} " == *" $owner "* ]]; then
        problem "$f ($part) includes pvecg/$h of $owner, which it must not know"
      elif [ -n "${THROUGH[$part $owner]:-}" ] &&
        [[ " ${THROUGH[$part $owner]} " != *" $h "* ]]; then
        problem "$f ($part) includes pvecg/$h of $owner: only ${THROUGH[$part $owner]}"
      fi
      for r in $(reach "$h"); do
        [ "$(owner_of "$r")" == "$part" ] || USERS[$r]+=" $part"
      done
    done
  done
done

RRD_FOLDERS=(file rrdcached store owner sink)
for i in "${!RRD_FOLDERS[@]}"; do
  for f in rrd/"${RRD_FOLDERS[$i]}"/*.[ch]; do
    for h in $(sed -n 's|^#include "\([^/"]*\.h\)".*|\1|p' "$f"); do
      for j in "${!RRD_FOLDERS[@]}"; do
        [ -f "rrd/${RRD_FOLDERS[$j]}/$h" ] && [ "$j" -gt "$i" ] &&
          problem "$f includes $h of rrd/${RRD_FOLDERS[$j]}/, a folder after it"
      done
    done
  done
done
for f in rrd/*.[ch]; do
  [ -f "$f" ] && problem "$f is in none of rrd/'s folders"
done
for d in rrd/*/; do
  [[ " ${RRD_FOLDERS[*]} " == *" $(basename "$d") "* ]] ||
    problem "$d is not one of rrd/'s folders (${RRD_FOLDERS[*]})"
done

for path in include/pvecg/*.h; do
  h=${path##*/}
  if [ -z "${USERS[$h]:-}" ]; then
    problem "pvecg/$h is used by no part but $(owner_of "$h"): it belongs beside its sources"
  fi
done

[ $fail -eq 0 ] && echo "ok - $(ls include/pvecg | wc -l) contracts, ${#LAYERS[@]} parts, one direction"
exit $fail
