/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fixture guest files with the kernel's formats and lengths (see
 * fixture_files.h).  memory.stat follows the key order of Linux 6.x's
 * memory_stat_format() for a 2 GiB guest; its length (~1.6 KiB) matters, as
 * reading and parsing it is most of a guest's cost.
 */
#include "fixture_files.h"

#include "pvecg/guest.h"
#include "small_file.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const char memory_current[] = "2254123008\n";

static const char memory_stat[] = "anon 2101346304\n"
                                  "file 131072000\n"
                                  "kernel 21012480\n"
                                  "kernel_stack 245760\n"
                                  "pagetables 4435968\n"
                                  "sec_pagetables 0\n"
                                  "percpu 4320\n"
                                  "sock 0\n"
                                  "vmalloc 12288\n"
                                  "shmem 0\n"
                                  "zswap 0\n"
                                  "zswapped 0\n"
                                  "file_mapped 45056000\n"
                                  "file_dirty 4096\n"
                                  "file_writeback 0\n"
                                  "swapcached 0\n"
                                  "anon_thp 1635778560\n"
                                  "file_thp 0\n"
                                  "shmem_thp 0\n"
                                  "inactive_anon 2101288960\n"
                                  "active_anon 57344\n"
                                  "inactive_file 90112000\n"
                                  "active_file 40960000\n"
                                  "unevictable 0\n"
                                  "slab_reclaimable 1540096\n"
                                  "slab_unreclaimable 14786560\n"
                                  "slab 16326656\n"
                                  "workingset_refault_anon 0\n"
                                  "workingset_refault_file 112\n"
                                  "workingset_activate_anon 0\n"
                                  "workingset_activate_file 37\n"
                                  "workingset_restore_anon 0\n"
                                  "workingset_restore_file 12\n"
                                  "workingset_nodereclaim 0\n"
                                  "pgdemote_kswapd 0\n"
                                  "pgdemote_direct 0\n"
                                  "pgdemote_khugepaged 0\n"
                                  "pgdemote_proactive 0\n"
                                  "pgpromote_success 0\n"
                                  "pgscan 4562\n"
                                  "pgsteal 4480\n"
                                  "pgscan_kswapd 4562\n"
                                  "pgscan_direct 0\n"
                                  "pgscan_khugepaged 0\n"
                                  "pgscan_proactive 0\n"
                                  "pgsteal_kswapd 4480\n"
                                  "pgsteal_direct 0\n"
                                  "pgsteal_khugepaged 0\n"
                                  "pgsteal_proactive 0\n"
                                  "pgfault 1874521\n"
                                  "pgmajfault 312\n"
                                  "pgrefill 2210\n"
                                  "pgactivate 10345\n"
                                  "pgdeactivate 2104\n"
                                  "pglazyfree 0\n"
                                  "pglazyfreed 0\n"
                                  "swpin_zero 0\n"
                                  "swpout_zero 0\n"
                                  "zswpin 0\n"
                                  "zswpout 0\n"
                                  "zswpwb 0\n"
                                  "thp_fault_alloc 780\n"
                                  "thp_collapse_alloc 2\n"
                                  "thp_swpout 0\n"
                                  "thp_swpout_fallback 0\n"
                                  "numa_pages_migrated 0\n"
                                  "numa_pte_updates 0\n"
                                  "numa_hint_faults 0\n";

static const char pressure[] =
    "some avg10=0.12 avg60=0.08 avg300=0.02 total=123456789\n"
    "full avg10=0.00 avg60=0.01 avg300=0.00 total=2345678\n";

/* cpu.stat with the cpu controller enabled (PVE's machine.slice has it). */
static const char cpu_stat[] = "usage_usec 8123456789\n"
                               "user_usec 7012345678\n"
                               "system_usec 1111111111\n"
                               "nr_periods 0\n"
                               "nr_throttled 0\n"
                               "throttled_usec 0\n"
                               "nr_bursts 0\n"
                               "burst_usec 0\n";

/* A guest with two disks on two devices. */
static const char io_stat[] =
    "8:0 rbytes=1459736576 wbytes=8237891584 rios=51234 wios=401234 "
    "dbytes=0 dios=0\n"
    "253:0 rbytes=1459736576 wbytes=8237891584 rios=51234 wios=401234 "
    "dbytes=0 dios=0\n";

static const char memory_events[] = "low 0\n"
                                    "high 0\n"
                                    "max 0\n"
                                    "oom 0\n"
                                    "oom_kill 0\n"
                                    "oom_group_kill 0\n";

/* By file name, so that files the sampler learns to read later get
 * plausible contents without this table knowing their enum value. */
static const struct {
  const char *name;
  const char *text;
} contents[] = {
    {"memory.current", memory_current},
    {"memory.stat", memory_stat},
    {"cpu.pressure", pressure},
    {"io.pressure", pressure},
    {"memory.pressure", pressure},
    {"cpu.stat", cpu_stat},
    {"io.stat", io_stat},
    {"memory.events", memory_events},
    {"memory.swap.current", "0\n"},
};

static const char *file_contents(const char *name) {
  for (size_t i = 0; i < sizeof(contents) / sizeof(contents[0]); i++)
    if (strcmp(contents[i].name, name) == 0)
      return contents[i].text;
  return "0\n";
}

int fixture_files_write(const char *dir) {
  char path[PATH_MAX];
  for (int f = 0; f < GUEST_FILE_COUNT; f++) {
    const char *name = guest_file_name((enum guest_file)f, CGROUP_MEMORY_V2);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int err = small_file_create(path, file_contents(name));
    if (err < 0)
      return err;
  }
  snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
  return small_file_create(path, "");
}
