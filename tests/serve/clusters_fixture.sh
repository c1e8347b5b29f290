# SPDX-License-Identifier: GPL-2.0-or-later
# A data directory that keeps several clusters apart, as pve_rrd's
# <Cluster> settings write it (data_clusters.h), for the serve tests:
#   ""    (the data directory itself)  node pve0, guest 196 (qemu plain-196)
#   prod  node pve1, guest 196 (qemu prod-web)
#   lab   nodes pve1 and pve2, guest 196 (lxc lab-ct), guest 300 (qemu lab-db)
#   solo  (a standalone host) node solo, guest 196 (qemu solo-vm)
# Each guest 196 has values of its own, known exactly (CLUSTER_MEMHOST[i]
# and CLUSTER_CPU[i] of CLUSTERS[i]), and a copy of each cluster's /etc/pve names its guests
# (--pve-config-dir: the directory itself for "", DIR/<cluster> else).
# Sourced after fixture.sh (make_file).

# The names, and guest 196's memhost and cpu in each ("" first).
CLUSTERS=("" prod lab solo)
CLUSTER_MEMHOST=(1073741824 2147483648 3221225472 4294967296)
CLUSTER_CPU=(0.125 0.25 0.375 0.5)

# cluster_vm_rows START COUNT MEMHOST CPU: pve-vm-9.0 rows a minute apart,
# memhost and cpu the same in every row, the rest known and growing.
cluster_vm_rows() {
  awk -v t0="$1" -v n="$2" -v m="$3" -v c="$4" 'BEGIN {
    for (i = 1; i <= n; i++)
      printf "%d:4:%s:8589934592:%.0f:34359738368:0:%d:%d:%d:%d:%.0f:1.5:0:0.5:0:0.25:0\n",
        t0 + 60 * i, c, m / 2, 100 * i, 200 * i, 300 * i, 400 * i, m
  }'
}

# cluster_rrd LAYOUT FILE LAST COUNT [MEMHOST CPU]: COUNT rows up to LAST.
cluster_rrd() {
  local start=$(($3 - 60 * $4))
  mkdir -p "$(dirname "$2")"
  make_file "$1" "$2" "$start"
  if [ "$1" = pve-node-9.0 ]; then node_rows "$start" "$4"; else cluster_vm_rows "$start" "$4" "$5" "$6"; fi |
    xargs -n 500 rrdtool update "$2"
}

# make_clusters DATA_DIR CONFIG_DIR LAST: the files, with rows up to LAST.
make_clusters() {
  local d=$1 p=$2 last=$3 i c
  for i in "${!CLUSTERS[@]}"; do
    c=${CLUSTERS[$i]}
    cluster_rrd pve-vm-9.0 "$d${c:+/$c}/pve-vm-9.0/196" "$last" 90 "${CLUSTER_MEMHOST[$i]}" "${CLUSTER_CPU[$i]}"
  done
  cluster_rrd pve-vm-9.0 "$d/lab/pve-vm-9.0/300" "$last" 70 536870912 0.75
  cluster_rrd pve-node-9.0 "$d/pve-node-9.0/pve0" "$last" 90
  cluster_rrd pve-node-9.0 "$d/prod/pve-node-9.0/pve1" "$last" 80
  cluster_rrd pve-node-9.0 "$d/lab/pve-node-9.0/pve1" "$last" 85
  cluster_rrd pve-node-9.0 "$d/lab/pve-node-9.0/pve2" "$last" 75
  cluster_rrd pve-node-9.0 "$d/solo/pve-node-9.0/solo" "$last" 60
  mkdir -p "$p/nodes/pve0/qemu-server" "$p/prod/nodes/pve1/qemu-server" \
    "$p/lab/nodes/pve1/lxc" "$p/lab/nodes/pve2/qemu-server" "$p/solo/nodes/solo/qemu-server"
  printf 'name: plain-196\n' >"$p/nodes/pve0/qemu-server/196.conf"
  printf 'name: prod-web\ntags: web\n' >"$p/prod/nodes/pve1/qemu-server/196.conf"
  printf 'hostname: lab-ct\n' >"$p/lab/nodes/pve1/lxc/196.conf"
  printf 'name: lab-db\n' >"$p/lab/nodes/pve2/qemu-server/300.conf"
  printf 'name: solo-vm\n' >"$p/solo/nodes/solo/qemu-server/196.conf"
}
