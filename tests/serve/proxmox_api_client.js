// SPDX-License-Identifier: GPL-2.0-or-later
// The npm package proxmox-api (a Proxmox VE API client) reading
// `pvecg serve` over HTTPS with an API token, as it reads Proxmox itself:
// it sends "Authorization: PVEAPIToken=TOKENID=SECRET".  Prints the data
// of cluster/resources and of a guest's rrddata as JSON, one line each;
// an error (a refusal included) goes to stderr with exit 1.  With CLUSTER
// both requests carry the parameter cluster, as any parameter a client
// passes: one cluster of a data directory that keeps several apart.
//
// usage: NODE_PATH=.../node_modules node proxmox_api_client.js
//          PORT TOKENID SECRET NODE VMID [CLUSTER]
'use strict';
const { proxmoxApi } = require('proxmox-api');

async function main() {
  const [port, tokenID, tokenSecret, node, vmid, cluster] =
    process.argv.slice(2);
  const which = cluster === undefined ? {} : { cluster };
  const proxmox = proxmoxApi({
    host: '127.0.0.1', port: Number(port), schema: 'https',
    tokenID, tokenSecret, queryTimeout: 10000,
  });
  const resources = await proxmox.cluster.resources.$get(which);
  console.log(JSON.stringify(resources));
  const rows = await proxmox.nodes.$(node).qemu.$(Number(vmid)).rrddata
    .$get({ timeframe: 'hour', ...which });
  console.log(JSON.stringify(rows));
}

main().catch((e) => {
  console.error(String(e && e.message ? e.message : e));
  process.exit(1);
});
