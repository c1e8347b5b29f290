/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for the path rules of src/reading/rrddata.c: rrddata_path_layout
 * (the layout a file belongs to, by the name of its directory) and
 * rrddata_legacy_path (the pve2 file next to a 9.0 file).  The first byte
 * picks the suffix, the rest is the path.  Checks, beyond memory safety,
 * against an oracle that splits the path with its own loop: the layout is
 * the one of rrd_layouts[] named like the component before the last '/'
 * (none for a path without '/' or with only a leading one); only the two
 * 9.0 layouts have a legacy path, which is the path with that component
 * replaced by the pve2 layout's name, plus the suffix.  The path must fit
 * exactly (-ENAMETOOLONG one byte short), and a refusal leaves buf alone.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/rrddata.h"

#define FILL 'Z'

/* The component before the last '/': [*dir, *dir + *len); false if none. */
static bool directory_of(const char *path, size_t *dir, size_t *len) {
  size_t n = strlen(path), last = n, start = 0;

  for (size_t i = 0; i < n; i++)
    if (path[i] == '/')
      last = i;
  if (last == n || last == 0)
    return false;
  for (size_t i = 0; i < last; i++)
    if (path[i] == '/')
      start = i + 1;
  *dir = start;
  *len = last - start;
  return true;
}

static const struct rrd_layout *oracle_layout(const char *path) {
  size_t dir, len;

  if (!directory_of(path, &dir, &len))
    return NULL;
  for (size_t i = 0; i < rrd_layouts_count; i++)
    if (strlen(rrd_layouts[i]->name) == len &&
        strncmp(path + dir, rrd_layouts[i]->name, len) == 0)
      return rrd_layouts[i];
  return NULL;
}

/* The expected legacy path (malloc'd), or NULL when there is none. */
static char *oracle_legacy(const char *path, const char *suffix) {
  const struct rrd_layout *layout = oracle_layout(path), *legacy = NULL;
  size_t dir, len, size;
  char *want;

  if (layout == &layout_pve_vm_9_0)
    legacy = &layout_pve2_vm;
  else if (layout == &layout_pve_node_9_0)
    legacy = &layout_pve2_node;
  if (legacy == NULL || !directory_of(path, &dir, &len))
    return NULL;
  size = strlen(path) - len + strlen(legacy->name) + strlen(suffix) + 1;
  want = malloc(size);
  FUZZ_CHECK(want != NULL);
  memcpy(want, path, dir);
  strcpy(want + dir, legacy->name);
  strcat(want, path + dir + len);
  strcat(want, suffix);
  return want;
}

static void check_legacy(const char *path, const char *suffix) {
  char *want = oracle_legacy(path, suffix);
  size_t size = want != NULL ? strlen(want) + 1 : 64;
  char *buf = malloc(size);
  int r;

  FUZZ_CHECK(buf != NULL);
  memset(buf, FILL, size);
  r = rrddata_legacy_path(path, suffix, buf, size);
  if (want == NULL) {
    FUZZ_CHECK(r == -EINVAL);
    for (size_t i = 0; i < size; i++)
      FUZZ_CHECK(buf[i] == FILL);
  } else {
    FUZZ_CHECK(r == 0 && strcmp(buf, want) == 0);
    FUZZ_CHECK(rrddata_legacy_path(path, suffix, buf, size - 1) ==
               -ENAMETOOLONG);
  }
  free(buf);
  free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *suffix;
  char *path;

  if (size == 0)
    return 0;
  suffix = data[0] & 1 ? ".old" : "";
  path = malloc(size);
  FUZZ_CHECK(path != NULL);
  memcpy(path, data + 1, size - 1);
  path[size - 1] = '\0';
  FUZZ_CHECK(rrddata_path_layout(path) == oracle_layout(path));
  check_legacy(path, suffix);
  free(path);
  return 0;
}
