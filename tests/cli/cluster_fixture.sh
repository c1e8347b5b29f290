# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the tests of clusters: a data directory of a collector that
# keeps several Proxmox VE clusters apart, each with a guest 196 of its
# own values, and a copy of each cluster's /etc/pve:
#   cluster  k  guest 196              node
#   ""       1  VM "own196" on host0   host0  (the data directory's own)
#   lab      2  CT "lab196" on pve1    pve1
#   prod     3  VM "prod196" on pve1   pve1   (the same node name as lab's)
#   solo     4  VM "solo196" on solo   solo   (a standalone host)
# Guest 196 of cluster k: rows at T1, T1+60, T1+120 with maxcpu k, cpu
# k/8, maxmem k GiB, mem k MiB, the rest U; its node: loadavg k+0.5 at T1.
#
# needs: T, LAYOUT_DEFS; sets D (data), C (configuration), T1, CLUSTERS

command -v rrdtool >/dev/null || { echo "SKIP: rrdtool is not installed"; exit 77; }

D=$T/data
C=$T/pve
T1=$((($(date +%s) - 3600) / 60 * 60))
CLUSTERS=":1:qemu-server:own196:host0 lab:2:lxc:lab196:pve1 prod:3:qemu-server:prod196:pve1 solo:4:qemu-server:solo196:solo"

# cluster_dir DIR CLUSTER: DIR itself for "", DIR/CLUSTER for the others.
cluster_dir() { if [ -z "$2" ]; then echo "$1"; else echo "$1/$2"; fi; }

for spec in $CLUSTERS; do
  IFS=: read -r cl k kind title node <<<"$spec"
  d=$(cluster_dir "$D" "$cl")
  c=$(cluster_dir "$C" "$cl")
  mkdir -p "$d/pve-vm-9.0" "$d/pve-node-9.0" "$c/nodes/$node/$kind"
  # shellcheck disable=SC2046 # one definition per line
  rrdtool create "$d/pve-vm-9.0/196" --start $((T1 - 60)) --step 60 \
    $("$LAYOUT_DEFS" pve-vm-9.0)
  for t in $T1 $((T1 + 60)) $((T1 + 120)); do
    rrdtool update "$d/pve-vm-9.0/196" \
      "$t:$k:$(awk -v k="$k" 'BEGIN { print k / 8 }'):$((k * 1073741824)):$((k * 1048576)):U:U:U:U:U:U:U:U:U:U:U:U:U"
  done
  # shellcheck disable=SC2046
  rrdtool create "$d/pve-node-9.0/$node" --start $((T1 - 60)) --step 60 \
    $("$LAYOUT_DEFS" pve-node-9.0)
  rrdtool update "$d/pve-node-9.0/$node" "$T1:$k.5$(printf ':U%.0s' $(seq 18))"
  if [ "$kind" = lxc ]; then
    printf 'hostname: %s\n' "$title" >"$c/nodes/$node/$kind/196.conf"
  else
    printf 'name: %s\n' "$title" >"$c/nodes/$node/$kind/196.conf"
  fi
done

# cluster_points FORM: the points every cluster's files must leave, sorted
# as export_points.py reads a store back:
#   influx    measurement,tags field<TAB>time<TAB>value (InfluxDB 1.x)
#   victoria  measurement_field{tags}<TAB>time<TAB>value (its /write)
#   graphite  path<TAB>time<TAB>value
#   prometheus  name{id=...,cluster=...}<TAB>time<TAB>value
# values as export_points.py writes them (repr, or with SIGNIFICANT digits
# when given as the second argument).
cluster_points() {
  local spec cl k kind title node obj t
  for spec in $CLUSTERS; do
    IFS=: read -r cl k kind title node <<<"$spec"
    obj=qemu
    [ "$kind" = lxc ] && obj=lxc
    awk -v form="$1" -v cl="$cl" -v k="$k" -v obj="$obj" -v title="$title" \
      -v node="$node" -v t1="$T1" 'BEGIN {
      split("cpus cpu maxmem mem", field, " ")
      split("pve_cpu_usage_limit pve_cpu_usage_ratio pve_memory_size_bytes pve_memory_usage_bytes", prom, " ")
      value[1] = k; value[2] = k / 8; value[3] = k * 1073741824; value[4] = k * 1048576
      ctag = cl == "" ? "" : "cluster=" cl ","
      for (r = 0; r < 3; r++) for (i = 1; i <= 4; i++) {
        t = t1 + 60 * r
        if (form == "influx")
          printf "system,%shost=%s,nodename=%s,object=%s,vmid=196 %s\t%d\t%.17g\n", ctag, title, node, obj, field[i], t, value[i]
        else if (form == "victoria")
          printf "system_%s{%shost=%s,nodename=%s,object=%s,vmid=196}\t%d\t%.17g\n", field[i], ctag, title, node, obj, t, value[i]
        else if (form == "graphite")
          printf "proxmox.%s%s.196.%s\t%d\t%.17g\n", cl == "" ? "" : cl ".", obj, field[i], t, value[i]
        else
          printf "%s{id=\"%s/196\"%s}\t%d\t%.17g\n", prom[i], obj, cl == "" ? "" : ",cluster=\"" cl "\"", t, value[i]
      }
      # a guest with a configuration: its info at each of its rows
      for (r = 0; r < 3 && form != "influx" && form != "victoria" && form != "graphite"; r++)
        printf "pve_guest_info{id=\"%s/196\"%s,name=\"%s\",node=\"%s\",template=\"0\",type=\"%s\"}\t%d\t1\n", obj, cl == "" ? "" : ",cluster=\"" cl "\"", title, node, obj, t1 + 60 * r
      if (form == "influx")
        printf "cpustat,%shost=%s,object=nodes avg1\t%d\t%s.5\n", ctag, node, t1, k
      else if (form == "victoria")
        printf "cpustat_avg1{%shost=%s,object=nodes}\t%d\t%s.5\n", ctag, node, t1, k
      else if (form == "graphite")
        printf "proxmox.%snodes.%s.cpustat.avg1\t%d\t%s.5\n", cl == "" ? "" : cl ".", node, t1, k
      else
        printf "pve_load1{id=\"node/%s\"%s}\t%d\t%s.5\n", node, cl == "" ? "" : ",cluster=\"" cl "\"", t1, k
    }'
  done | /usr/bin/python3 -c '
import sys
sig = int(sys.argv[1]) if len(sys.argv) > 1 else None
out = []
for line in sys.stdin:
    series, t, v = line.rstrip("\n").split("\t")
    v = repr(float(v)) if sig is None else "%.*g" % (sig, float(v))
    out.append("%s\t%s\t%s" % (series, t, v))
print("\n".join(sorted(out)))' ${2:+"$2"}
}
