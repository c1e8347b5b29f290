/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * collectd read plugin "pve_cgroup": memory and pressure of every Proxmox VE
 * guest, read straight from its cgroup.
 *
 * Each interval the sampler (src/sample/sampler.c) reads every guest's
 * kept-open cgroup files; this file turns each sample into ONE value list of
 * type pve_vm_9_0 carrying the whole pve-vm-9.0 row (plugin_instance = VMID,
 * type_instance = "qemu"/"lxc"), so pve_rrd writes one RRD update per list
 * and a row crosses the network whole.  One wide list per guest keeps the
 * dispatch cost, which dominates the plugin's CPU, at one list per guest;
 * the optional PressureDetails lists (avg60, avg300, stall totals: 18 per
 * guest) and ExtraStats lists (memory breakdown, swap, OOM counters: up to
 * 12 per guest) multiply it and are off by default.  KSM adds one wide
 * row per VM and one for the node (ksm_dispatch.c) where the host runs
 * KSM, once per RRD step rather than every interval (ksm_schedule.c).
 *
 * Problems with a guest's file are logged when they start and when they end
 * (not every interval), at most LOG_LINES_PER_RUN lines per interval.
 */
#include "collectd/core/daemon/plugin.h"
#include "collectd/core/utils/common/common.h"
#include "collectd/core/utils/metadata/meta_data.h"

#include "pvecg/cgroup_roots.h"
#include "pvecg/error_text.h"
#include "pvecg/fd_budget.h"
#include "pvecg/guest_batch.h"
#include "pvecg/guest_config.h"
#include "ksm_dispatch.h"
#include "ksm_schedule.h"
#include "stall_dispatch.h"
#include "node_dispatch.h"
#include "pvecg/guest_row.h"
#include "row_type.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/rrd_layout.h"
#include "pvecg/sampler.h"
#include "pvecg/text_copy.h"
#include "pvecg/vmid_select.h"

#include <errno.h>
#include <math.h>
#include <sys/stat.h>

#define PLUGIN_NAME "pve_cgroup"
#define LOG_LINES_PER_RUN 5
#define DEFAULT_PVE_CONFIG_DIR "/etc/pve"
/* How often a guest's config file is looked at (stat on pmxcfs). */
#define SETTINGS_REFRESH_SECONDS 30.0

/* Everything the plugin keeps between callbacks. */
struct plugin_state {
  /* The configuration. */
  struct sampler_config config;
  bool cgroup_root_set, memory_root_set;
  bool pressure_details;
  bool guest_names; /* opt-in: meta data costs allocations per row */
  struct vmid_select *select_list;
  /* The node row. */
  bool node_enabled;
  bool node_config_ready; /* node_config holds its defaults */
  struct node_sampler_config node_config;
  char node_name[DATA_MAX_NAME_LEN];
  /* Set up by init. */
  struct sampler *sampler;
  struct guest_row_map row_map;
  bool unkept_logged;
  bool scope_logged; /* scope below has been logged */
  enum sampler_scope scope;
  struct guest_batch batch;
};

/* Set to its defaults by module_register and again by shutdown. */
static struct plugin_state state;

/* The one place the defaults are written; everything else is zero, false
 * or NULL.  The caller has freed what state held. */
static void state_set_defaults(void) {
  memset(&state, 0, sizeof(state));
  state.config.types[GUEST_QEMU] = state.config.types[GUEST_LXC] = true;
  sstrncpy(state.config.pve_config_dir, DEFAULT_PVE_CONFIG_DIR,
           sizeof(state.config.pve_config_dir));
  sstrncpy(state.config.proc_root, "/proc", sizeof(state.config.proc_root));
  sstrncpy(state.config.run_dir, "/run", sizeof(state.config.run_dir));
  state.config.settings_refresh_seconds = SETTINGS_REFRESH_SECONDS;
  state.node_enabled = true;
}

/* Per-interval state of the read callback. */
struct read_run {
  cdtime_t time;
  bool ksm;   /* KSM is read and dispatched in this interval */
  bool stall; /* ...and the stall counters (the first of each minute) */
  unsigned log_lines;
  unsigned log_suppressed;
  unsigned dropped; /* samples that could not be kept (no memory) */
};

/* ---- configuration ---------------------------------------------------- */

static int config_guests(const oconfig_item_t *ci) {
  bool types[GUEST_TYPE_COUNT] = {false};
  if (ci->values_num < 1)
    goto bad;
  for (int i = 0; i < ci->values_num; i++) {
    enum guest_type type;
    if (ci->values[i].type != OCONFIG_TYPE_STRING ||
        guest_type_parse(ci->values[i].value.string, &type) < 0)
      goto bad;
    types[type] = true;
  }
  memcpy(state.config.types, types, sizeof(types));
  return 0;
bad:
  ERROR(PLUGIN_NAME " plugin: \"Guests\" takes one or more of \"qemu\" and "
                    "\"lxc\".");
  return -1;
}

static int config_vmid(const oconfig_item_t *ci) {
  if (ci->values_num < 1) {
    ERROR(PLUGIN_NAME " plugin: \"VMID\" needs at least one argument.");
    return -1;
  }
  for (int i = 0; i < ci->values_num; i++) {
    char why[256] = "";
    if (ci->values[i].type != OCONFIG_TYPE_STRING) {
      ERROR(PLUGIN_NAME " plugin: \"VMID\" arguments must be quoted strings.");
      return -1;
    }
    if (vmid_select_add(state.select_list, ci->values[i].value.string, why,
                        sizeof(why)) < 0) {
      ERROR(PLUGIN_NAME " plugin: \"VMID\": %s.", why[0] ? why : "no memory");
      return -1;
    }
  }
  return 0;
}

static int config_ignore_selected(const oconfig_item_t *ci) {
  bool ignore = false;
  if (cf_util_get_boolean(ci, &ignore) != 0)
    return -1;
  vmid_select_set_ignore_selected(state.select_list, ignore);
  return 0;
}

static int config_root(const oconfig_item_t *ci, char *root, bool *set,
                       bool may_be_empty) {
  if (cf_util_get_string_buffer(ci, root, PATH_MAX) != 0)
    return -1;
  if ((root[0] == '\0' && may_be_empty) || root[0] == '/') {
    *set = true;
    return 0;
  }
  ERROR(PLUGIN_NAME " plugin: \"%s\" must be an absolute path%s, not \"%s\".",
        ci->key, may_be_empty ? " (or \"\" for none)" : "", root);
  return -1;
}

static int config_item(const oconfig_item_t *ci) {
  if (strcasecmp("CgroupRoot", ci->key) == 0)
    return config_root(ci, state.config.cgroup_root, &state.cgroup_root_set,
                       false);
  if (strcasecmp("MemoryCgroupRoot", ci->key) == 0)
    return config_root(ci, state.config.memory_root, &state.memory_root_set,
                       true);
  if (strcasecmp("ProcRoot", ci->key) == 0)
    return config_root(ci, state.config.proc_root, &(bool){false}, true);
  if (strcasecmp("PveConfigDir", ci->key) == 0)
    return config_root(ci, state.config.pve_config_dir, &(bool){false}, true);
  if (strcasecmp("Guests", ci->key) == 0)
    return config_guests(ci);
  if (strcasecmp("VMID", ci->key) == 0)
    return config_vmid(ci);
  if (strcasecmp("IgnoreSelected", ci->key) == 0)
    return config_ignore_selected(ci);
  if (strcasecmp("PressureDetails", ci->key) == 0)
    return cf_util_get_boolean(ci, &state.pressure_details);
  if (strcasecmp("Node", ci->key) == 0)
    return cf_util_get_boolean(ci, &state.node_enabled);
  if (strcasecmp("NodeName", ci->key) == 0)
    return cf_util_get_string_buffer(ci, state.node_name,
                                     sizeof(state.node_name));
  if (strcasecmp("SysRoot", ci->key) == 0)
    return config_root(ci, state.node_config.sys_root, &(bool){false}, false);
  if (strcasecmp("RootPath", ci->key) == 0)
    return config_root(ci, state.node_config.root_path, &(bool){false}, false);
  if (strcasecmp("GuestNames", ci->key) == 0)
    return cf_util_get_boolean(ci, &state.guest_names);
  if (strcasecmp("ExtraStats", ci->key) == 0)
    return cf_util_get_boolean(ci, &state.config.extra_stats);
  int ksm = ksm_schedule_config(ci);
  if (ksm <= 0)
    return ksm;
  int stall = stall_dispatch_config(ci);
  if (stall <= 0)
    return stall;
  if (strcasecmp("RunDir", ci->key) == 0)
    return config_root(ci, state.config.run_dir, &(bool){false}, false);
  ERROR(PLUGIN_NAME " plugin: unknown config option \"%s\".", ci->key);
  return -1;
}

/* Node options may come in any order: start from the defaults once. */
static void node_config_prepare(void) {
  if (!state.node_config_ready)
    node_sampler_config_init(&state.node_config);
  state.node_config_ready = true;
}

static int pve_cgroup_config(oconfig_item_t *ci) {
  if (!state.select_list && vmid_select_new(&state.select_list) < 0)
    return -1;
  node_config_prepare();
  for (int i = 0; i < ci->children_num; i++)
    if (config_item(&ci->children[i]) != 0)
      return -1;
  return 0;
}

/* ---- init ------------------------------------------------------------- */

static bool accept_guest(enum guest_type type, uint32_t vmid, void *ctx) {
  (void)type;
  return vmid_select_match(ctx, vmid);
}

static int detect_roots(void) {
  struct cgroup_mounts mounts;
  int err = cgroup_roots_detect("/proc/self/mountinfo", &mounts);
  if (err < 0) {
    ERROR(PLUGIN_NAME " plugin: cannot read /proc/self/mountinfo: %s; set "
                      "CgroupRoot.",
          STRERROR(-err));
    return -1;
  }
  if (!state.cgroup_root_set) {
    if (mounts.unified[0] == '\0') {
      ERROR(PLUGIN_NAME " plugin: no cgroup2 file system is mounted; set "
                        "CgroupRoot.");
      return -1;
    }
    sstrncpy(state.config.cgroup_root, mounts.unified,
             sizeof(state.config.cgroup_root));
  }
  if (!state.memory_root_set)
    sstrncpy(state.config.memory_root, mounts.memory_v1,
             sizeof(state.config.memory_root));
  return 0;
}

/* Raises collectd's soft RLIMIT_NOFILE so the guests' files can stay
 * open; a process-wide change, logged. */
static void set_fd_budget(void) {
  struct fd_budget b;
  if (fd_budget_prepare(&b) < 0) {
    state.config.fd_budget = fd_budget_for_limit(1024);
    return;
  }
  if (b.soft != b.old_soft)
    INFO(PLUGIN_NAME " plugin: raised the open files limit (RLIMIT_NOFILE) "
                     "from %llu to %llu.",
         b.old_soft, b.soft);
  state.config.fd_budget = b.budget;
}

/* PVE names a node by its short host name. */
static int init_node(void) {
  node_config_prepare();
  if (state.config.proc_root[0])
    sstrncpy(state.node_config.proc_root, state.config.proc_root,
             sizeof(state.node_config.proc_root));
  if (state.node_name[0] == '\0') {
    sstrncpy(state.node_name, hostname_g, sizeof(state.node_name));
    state.node_name[strcspn(state.node_name, ".")] = '\0';
  }
  /* pve_rrd checks the name of the file it writes by the same rule. */
  if (rrd_file_name_problem(state.node_name) != NULL) {
    ERROR(PLUGIN_NAME " plugin: \"%s\" cannot be a node name (it names a "
                      "file); set NodeName.",
          state.node_name);
    return -1;
  }
  if (row_type_register(&layout_pve_node_9_0) != 0)
    return -1;
  return node_dispatch_init(&state.node_config, state.node_name);
}

static int pve_cgroup_init(void) {
  if (row_type_register(&layout_pve_vm_9_0) != 0)
    return -1;
  if (state.node_enabled && init_node() != 0)
    return -1;
  if (!state.select_list && vmid_select_new(&state.select_list) < 0)
    return -1;
  if ((!state.cgroup_root_set || !state.memory_root_set) && detect_roots() < 0)
    return -1;
  struct stat st;
  if (stat(state.config.cgroup_root, &st) < 0 || !S_ISDIR(st.st_mode)) {
    ERROR(PLUGIN_NAME " plugin: CgroupRoot \"%s\" is not a directory.",
          state.config.cgroup_root);
    return -1;
  }
  if (guest_row_map_init(&state.row_map, &layout_pve_vm_9_0) < 0) {
    ERROR(PLUGIN_NAME " plugin: the pve-vm-9.0 layout lacks a column.");
    return -1;
  }
  guest_batch_init(&state.batch, &state.row_map);
  state.config.ksm = ksm_schedule_possible();
  if (state.config.ksm &&
      ksm_dispatch_init(state.node_config.sys_root,
                        state.node_enabled ? state.node_name : NULL,
                        ksm_schedule_row_interval()) != 0)
    return -1;
  if (state.config.ksm)
    ksm_schedule_init();
  if (stall_dispatch_enabled() &&
      stall_dispatch_init(state.node_enabled ? state.node_name : NULL) != 0)
    return -1;
  state.config.accept = accept_guest;
  state.config.accept_ctx = state.select_list;
  set_fd_budget();
  sampler_free(state.sampler); /* init is not expected twice, but be safe */
  state.sampler = NULL;
  int err = sampler_new(&state.config, &state.sampler);
  if (err < 0) {
    ERROR(PLUGIN_NAME " plugin: cannot set up the sampler: %s.",
          STRERROR(-err));
    return -1;
  }
  INFO(PLUGIN_NAME " plugin: cgroup2 root %s, v1 memory root %s, guests:%s%s.",
       state.config.cgroup_root,
       state.config.memory_root[0] ? state.config.memory_root : "(none)",
       state.config.types[GUEST_QEMU] ? " qemu" : "",
       state.config.types[GUEST_LXC] ? " lxc" : "");
  return 0;
}

/* ---- read ------------------------------------------------------------- */

static void log_file_changes(const struct guest_sample *s,
                             struct read_run *run) {
  unsigned started = s->failed & ~s->failed_before;
  unsigned ended = s->failed_before & ~s->failed;
  for (int f = 0; f < GUEST_FILE_COUNT; f++) {
    unsigned bit = 1u << f;
    if (!((started | ended) & bit))
      continue;
    if (run->log_lines >= LOG_LINES_PER_RUN) {
      run->log_suppressed++;
      continue;
    }
    run->log_lines++;
    const char *file = guest_file_name((enum guest_file)f, s->memory_version);
    if (started & bit)
      WARNING(PLUGIN_NAME " plugin: %s %u: %s: %s; the values it feeds are "
                          "recorded as unknown until it recovers.",
              guest_type_name(s->type), (unsigned)s->vmid, file,
              error_text(s->error[f]));
    else
      INFO(PLUGIN_NAME " plugin: %s %u: %s is readable again.",
           guest_type_name(s->type), (unsigned)s->vmid, file);
  }
}

static void log_config_change(const struct guest_sample *s,
                              struct read_run *run) {
  bool bad = s->config_error != 0 && s->config_error != -ENOENT;
  bool was_bad =
      s->config_error_before != 0 && s->config_error_before != -ENOENT;
  if (bad == was_bad || run->log_lines >= LOG_LINES_PER_RUN) {
    run->log_suppressed += bad != was_bad;
    return;
  }
  run->log_lines++;
  const char *dir = s->type == GUEST_QEMU ? "qemu-server" : "lxc";
  if (bad)
    WARNING(PLUGIN_NAME " plugin: %s/%s/%u.conf: %s; maxcpu and maxmem are "
                        "recorded as unknown until it is fixed.",
            state.config.pve_config_dir, dir, (unsigned)s->vmid,
            error_text(s->config_error));
  else
    INFO(PLUGIN_NAME " plugin: %s/%s/%u.conf is readable again.",
         state.config.pve_config_dir, dir, (unsigned)s->vmid);
}

/* A list per guest and interval: the VMID's digits without printf. */
_Static_assert(sizeof(((value_list_t *)0)->plugin_instance) > TEXT_U64_DIGITS,
               "a VMID's digits and their end fit the plugin instance");
static void vl_init(value_list_t *vl, uint32_t vmid,
                    const struct read_run *run) {
  vl->time = run->time;
  sstrncpy(vl->plugin, PLUGIN_NAME, sizeof(vl->plugin));
  vl->plugin_instance[text_u64(vl->plugin_instance, vmid)] = '\0';
}

/* name: the guest's name from its config, or "" (GuestNames off). */
static void dispatch_row(const struct batched_row *r, const char *name,
                         const struct read_run *run) {
  value_t values[RRD_LAYOUT_DS_MAX];
  for (size_t i = 0; i < state.row_map.width; i++)
    values[i].gauge = r->values[i];
  value_list_t vl = VALUE_LIST_INIT;
  vl_init(&vl, r->vmid, run);
  vl.values = values;
  vl.values_len = state.row_map.width;
  sstrncpy(vl.type, layout_pve_vm_9_0.type_name, sizeof(vl.type));
  sstrncpy(vl.type_instance, guest_type_name((enum guest_type)r->type),
           sizeof(vl.type_instance));
  /* For local writers: meta data does not cross collectd's network
   * plugin. */
  if (state.guest_names && name[0] && (vl.meta = meta_data_create()) != NULL)
    meta_data_add_string(vl.meta, "pve_name", name);
  plugin_dispatch_values(&vl);
  meta_data_destroy(vl.meta);
}

static void dispatch_one(value_list_t *vl, const char *type,
                         const char *instance, value_t value) {
  sstrncpy(vl->type, type, sizeof(vl->type));
  sstrncpy(vl->type_instance, instance, sizeof(vl->type_instance));
  vl->values = &value;
  vl->values_len = 1;
  plugin_dispatch_values(vl);
}

/* avg60 and avg300 as percent, total stall time (microseconds) as derive:
 * "pressure-<resource>-<some|full>-<avg60|avg300|total>". */
static void dispatch_pressure_details(const struct guest_sample *s,
                                      const struct read_run *run) {
  value_list_t vl = VALUE_LIST_INIT;
  vl_init(&vl, s->vmid, run);
  for (int r = 0; r < PSI_RESOURCE_COUNT; r++) {
    if (!s->psi_valid[r])
      continue;
    const struct psi_line *lines[2] = {&s->psi[r].some, &s->psi[r].full};
    for (int l = 0; l < (s->psi[r].has_full ? 2 : 1); l++) {
      char prefix[64], name[DATA_MAX_NAME_LEN];
      snprintf(prefix, sizeof(prefix), "pressure-%s-%s",
               psi_resource_name((enum psi_resource)r), l ? "full" : "some");
      snprintf(name, sizeof(name), "%s-avg60", prefix);
      dispatch_one(&vl, "percent", name, (value_t){.gauge = lines[l]->avg60});
      snprintf(name, sizeof(name), "%s-avg300", prefix);
      dispatch_one(&vl, "percent", name, (value_t){.gauge = lines[l]->avg300});
      snprintf(name, sizeof(name), "%s-total", prefix);
      /* The kernel's counter is u64 microseconds; derive_t is signed. */
      dispatch_one(&vl, "derive", name,
                   (value_t){.derive = (derive_t)(lines[l]->total &
                                                  (uint64_t)INT64_MAX)});
    }
  }
}

/* ExtraStats: type "memory" per memory.stat field (and swap), plus
 * "host_with_shmem"; type "derive" for the OOM event counters. */
static void dispatch_extra(const struct guest_sample *s,
                           const struct read_run *run) {
  value_list_t vl = VALUE_LIST_INIT;
  vl_init(&vl, s->vmid, run);
  for (int f = 0; f < MEMORY_DETAIL_COUNT; f++)
    if (s->memory_detail.valid & (1u << f))
      dispatch_one(&vl, "memory",
                   memory_detail_name((enum memory_detail_field)f),
                   (value_t){.gauge = (gauge_t)s->memory_detail.bytes[f]});
  if (s->memory_with_shmem_valid)
    dispatch_one(&vl, "memory", "host_with_shmem",
                 (value_t){.gauge = (gauge_t)s->memory_with_shmem});
  if (s->oom_valid)
    dispatch_one(&vl, "derive", "oom",
                 (value_t){.derive = (derive_t)(s->oom & INT64_MAX)});
  if (s->oom_kill_valid)
    dispatch_one(&vl, "derive", "oom_kill",
                 (value_t){.derive = (derive_t)(s->oom_kill & INT64_MAX)});
}

static void visit_guest(const struct guest_sample *s, void *ctx) {
  struct read_run *run = ctx;
  if (s->failed != s->failed_before)
    log_file_changes(s, run);
  if (s->config_error != s->config_error_before)
    log_config_change(s, run);
  if (!guest_batch_add(&state.batch, s))
    run->dropped++;
}

/* Everything of a guest beyond its row, from its whole sample. */
static void dispatch_more(const struct guest_sample *s,
                          const struct read_run *run) {
  if (state.pressure_details)
    dispatch_pressure_details(s, run);
  if (state.config.extra_stats)
    dispatch_extra(s, run);
  if (run->ksm)
    ksm_dispatch_guest(s, run->time);
  if (run->stall)
    stall_dispatch_guest(s, run->time);
}

static void dispatch_batch(const struct read_run *run) {
  for (size_t i = 0; i < state.batch.len; i++) {
    const struct guest_sample *whole = guest_batch_sample(&state.batch, i);
    dispatch_row(guest_batch_row(&state.batch, i), whole ? whole->name : "",
                 run);
    if (whole)
      dispatch_more(whole, run);
  }
}

/* Which guests are reported, logged when it changes. */
static void log_scope(void) {
  enum sampler_scope scope = sampler_scope(state.sampler);
  if (state.scope_logged && scope == state.scope)
    return;
  const char *dir = state.config.pve_config_dir;
  if (scope == SAMPLER_SCOPE_THIS_NODE)
    INFO(PLUGIN_NAME " plugin: reporting the guests whose configuration is "
                     "on this node (%s/qemu-server and %s/lxc), as pvestatd "
                     "does.",
         dir, dir);
  else if (scope == SAMPLER_SCOPE_ALL)
    INFO(PLUGIN_NAME " plugin: PveConfigDir is \"\": every guest found is "
                     "reported.");
  else if (state.scope_logged)
    WARNING(PLUGIN_NAME " plugin: the Proxmox VE cluster file system is gone "
                        "from %s (pmxcfs stopped?): every guest found is "
                        "reported until it is back.",
            dir);
  else
    INFO(PLUGIN_NAME " plugin: no Proxmox VE cluster file system at %s (no "
                     ".version): every guest found is reported.",
         dir);
  state.scope = scope;
  state.scope_logged = true;
}

static int pve_cgroup_read(void) {
  if (!state.sampler)
    return -1;
  struct read_run run = {.time = cdtime()};
  run.stall = stall_dispatch_due(run.time);
  bool ksm_active;
  run.ksm = ksm_schedule_due(run.time, &ksm_active);
  sampler_plan_next(state.sampler, &(struct sampler_plan){
                                       .ksm_active = ksm_active,
                                       .ksm_due = run.ksm,
                                       .stall_due = run.stall,
                                       .wall = CDTIME_T_TO_DOUBLE(run.time)});
  /* More than the row is sent: keep the whole samples. */
  guest_batch_start(&state.batch,
                    run.ksm || run.stall || state.pressure_details ||
                        state.config.extra_stats || state.guest_names);
  int err = sampler_run(state.sampler, visit_guest, &run);
  log_scope();
  if (run.ksm)
    ksm_dispatch_node(run.time); /* the VMs' rows use the node's figures */
  dispatch_batch(&run);
  /* After the guests: its row joins theirs on the way to the writers (one
   * hand-off an interval, not one waking them while the guests are read). */
  if (state.node_enabled)
    node_dispatch_run(run.time, run.stall);
  if (run.dropped)
    ERROR(PLUGIN_NAME " plugin: out of memory: %u guests' rows dropped.",
          run.dropped);
  if (run.log_suppressed)
    WARNING(PLUGIN_NAME " plugin: %u more guest file problems (or "
                        "recoveries) this interval were not logged.",
            run.log_suppressed);
  size_t unkept = sampler_unkept_count(state.sampler);
  if (unkept > 0 && !state.unkept_logged) {
    WARNING(PLUGIN_NAME
            " plugin: %zu of %zu guests are read by open/read/close "
            "each interval (slower): keeping their files open "
            "would exceed the budget of %zu descriptors.",
            unkept, sampler_guest_count(state.sampler), state.config.fd_budget);
    state.unkept_logged = true;
  }
  if (err < 0) {
    ERROR(PLUGIN_NAME " plugin: cannot list guests below %s: %s.",
          state.config.cgroup_root, STRERROR(-err));
    return -1;
  }
  return 0;
}

/* ---- shutdown / registration ------------------------------------------ */

/* Also returns the state to its defaults, so that a fresh config + init
 * starts from scratch (collectd never does that, the unit tests do). */
static int pve_cgroup_shutdown(void) {
  sampler_free(state.sampler);
  guest_batch_free(&state.batch);
  node_dispatch_shutdown();
  ksm_dispatch_shutdown();
  ksm_schedule_reset();
  stall_dispatch_reset();
  vmid_select_free(state.select_list);
  state_set_defaults();
  return 0;
}

__attribute__((visibility("default"))) void module_register(void) {
  state_set_defaults();
  plugin_register_complex_config(PLUGIN_NAME, pve_cgroup_config);
  plugin_register_init(PLUGIN_NAME, pve_cgroup_init);
  plugin_register_read(PLUGIN_NAME, pve_cgroup_read);
  plugin_register_shutdown(PLUGIN_NAME, pve_cgroup_shutdown);
}
