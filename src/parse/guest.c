/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names of guest kinds, cgroup files and PSI resources, shared by the
 * sampler, the plugins and their log lines.
 */
#include "pvecg/guest.h"

#include <errno.h>
#include <string.h>

static const char *const type_names[GUEST_TYPE_COUNT] = {
    [GUEST_QEMU] = "qemu",
    [GUEST_LXC] = "lxc",
};

const char *guest_type_name(enum guest_type type) {
  return (unsigned)type < GUEST_TYPE_COUNT ? type_names[type] : "unknown";
}

int guest_type_parse(const char *name, enum guest_type *ret) {
  for (unsigned i = 0; i < GUEST_TYPE_COUNT; i++) {
    if (strcmp(name, type_names[i]) == 0) {
      *ret = (enum guest_type)i;
      return 0;
    }
  }
  return -EINVAL;
}

const char *guest_file_name(enum guest_file file,
                            enum cgroup_memory_version version) {
  switch (file) {
  case GUEST_FILE_MEMORY_USAGE:
    return version == CGROUP_MEMORY_V1 ? "memory.usage_in_bytes"
                                       : "memory.current";
  case GUEST_FILE_MEMORY_STAT:
    return "memory.stat";
  case GUEST_FILE_CPU_PRESSURE:
    return "cpu.pressure";
  case GUEST_FILE_IO_PRESSURE:
    return "io.pressure";
  case GUEST_FILE_MEMORY_PRESSURE:
    return "memory.pressure";
  case GUEST_FILE_CPU_STAT:
    return "cpu.stat";
  case GUEST_FILE_IO_STAT:
    return "io.stat";
  case GUEST_FILE_MEMORY_EVENTS:
    return version == CGROUP_MEMORY_V1 ? "memory.oom_control" : "memory.events";
  case GUEST_FILE_MEMORY_SWAP:
    return "memory.swap.current";
  case GUEST_FILE_COUNT:
    break;
  }
  return "unknown";
}

const char *psi_resource_name(enum psi_resource resource) {
  static const char *const names[PSI_RESOURCE_COUNT] = {
      [PSI_CPU] = "cpu", [PSI_IO] = "io", [PSI_MEMORY] = "memory"};
  return (unsigned)resource < PSI_RESOURCE_COUNT ? names[resource] : "unknown";
}
