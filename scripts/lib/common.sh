# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by scripts/test and scripts/demo: the Debian packages the project
# needs, installed when missing, and the build.

PVECG_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PVECG_PACKAGES=(cmake gcc make pkg-config collectd-core collectd-dev librrd-dev
  rrdtool rrdcached libcmocka-dev clang libclang-rt-14-dev valgrind
  gnuplot-nox faketime perl librrds-perl dpkg-dev file fonts-dejavu-core jq
  libmicrohttpd-dev libcurl4-openssl-dev zlib1g-dev curl chromium chromium-driver strace
  procps clang-format lintian python3 libprotobuf-c1 libsnappy-dev
  influxdb graphite-carbon python3-whisper victoria-metrics prometheus
  prometheus-alertmanager python3-prometheus-client openssl sslscan nodejs
  fail2ban nginx haproxy)
# npm, for the serve tests' Proxmox API client: Debian's own package,
# unless the nodejs installed comes from elsewhere (NodeSource's ships npm
# and conflicts with Debian's).
command -v npm >/dev/null || PVECG_PACKAGES+=(npm)
# The metric stores above are started by the export's tests on loopback
# ports of their own (Prometheus and Alertmanager also by the alert rules'
# tests), nginx and haproxy by the serve tests with a
# configuration and port of their own, and fail2ban is only asked to read a log
# (fail2ban-regex); their system services are neither started nor enabled
# by this installation.
PVECG_SERVICES=(influxdb carbon-cache victoria-metrics prometheus
  prometheus-alertmanager fail2ban nginx haproxy)

log() { printf '==> %s\n' "$*" >&2; }

# The tests run the tools install_packages installed: Debian's python3,
# with python3-prometheus-client and python3-whisper, not another python3
# earlier in PATH (a pyenv shim, say: another interpreter without those
# modules, and a bash script of a dozen processes at every call, which the
# tests' thousands of calls make minutes of CPU).
debian_tools_first() {
  export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
}

install_packages() {
  local missing=() p
  for p in "${PVECG_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing Debian packages: ${missing[*]} (run as root to install them)" >&2
    return 1
  fi
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  without_service_starts apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
  if command -v systemctl >/dev/null; then
    local s
    for s in "${PVECG_SERVICES[@]}"; do
      [[ " ${missing[*]} " == *" ${s/carbon-cache/graphite-carbon} "* ]] &&
        systemctl disable "$s" >/dev/null 2>&1 || true
    done
  fi
}

# Runs a command with invoke-rc.d told not to start services (policy-rc.d,
# exit 101), unless the machine already has a policy of its own.
without_service_starts() {
  local policy=/usr/sbin/policy-rc.d rc=0
  if [ -e "$policy" ]; then
    "$@"
    return
  fi
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  "$@" || rc=$?
  rm -f "$policy"
  return $rc
}

# The C sources and headers (those git knows of, in a checkout) formatted
# as .clang-format says (clang-format 14, Debian's): names every place that
# is not, and fails.
check_format() {
  local files
  if git -C "$PVECG_ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git -C "$PVECG_ROOT" ls-files '*.c' '*.h')
  else
    mapfile -t files < <(cd "$PVECG_ROOT" && find . -path './build*' -prune \
      -o -name '*.[ch]' -print)
  fi
  (cd "$PVECG_ROOT" && clang-format --dry-run --Werror "${files[@]}")
}

# build DIR [cmake options...]
build() {
  local dir=$1
  shift
  cmake -S "$PVECG_ROOT" -B "$dir" -DPVECG_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j "$(nproc)" -- --no-print-directory >/dev/null
}

# build_for LABEL DIR [cmake options...]: only the targets the tests of
# LABEL run (their executables, and the programs and plugins named on
# their command lines), not the whole tree.
build_for() {
  local label=$1 dir=$2 targets
  shift 2
  cmake -S "$PVECG_ROOT" -B "$dir" -DPVECG_WERROR=ON "$@" >/dev/null
  targets=$(comm -12 \
    <(ctest --test-dir "$dir" -L "$label" --show-only=json-v1 | python3 -c '
import json, os, sys
for test in json.load(sys.stdin)["tests"]:
    print(test["name"])  # the command is left out until it is built
    for arg in test.get("command", []):
        for word in arg.split():
            print(os.path.splitext(os.path.basename(word))[0])' | sort -u) \
    <(cmake --build "$dir" --target help | awk '$1 == "..." { print $2 }' | sort))
  # shellcheck disable=SC2086 # one word per target
  cmake --build "$dir" -j "$(nproc)" --target $targets -- --no-print-directory >/dev/null
}
