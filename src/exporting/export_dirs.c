/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The directories a scan read, and whether they changed (export_dirs.h). */
#include "pvecg/export_dirs.h"

#include "pvecg/grow.h"

#include <stdlib.h>
#include <string.h>

void export_dirs_begin(struct export_dirs *dirs) {
  for (size_t i = 0; i < dirs->count; i++)
    free(dirs->mark[i].path);
  dirs->count = 0;
  dirs->settled = dirs->complete = true;
  clock_gettime(CLOCK_REALTIME, &dirs->began);
}

void export_dirs_note(struct export_dirs *dirs, const char *path, int fd) {
  struct export_dir_mark m = {0};
  dir_stamp_take(&m.stamp, path, fd);
  struct export_dir_mark *grown = grow_array(
      dirs->mark, dirs->count + 1, &dirs->capacity, sizeof(*grown), 8);
  if (grown != NULL)
    dirs->mark = grown;
  if (grown == NULL || (m.path = strdup(path)) == NULL) {
    dirs->complete = false;
    return;
  }
  dirs->mark[dirs->count++] = m;
  if (dir_stamp_recent(&m.stamp, &dirs->began))
    dirs->settled = false;
}

static bool mark_holds(const struct export_dir_mark *m) {
  struct dir_stamp now;
  dir_stamp_take(&now, m->path, -1);
  return m->stamp.present ? dir_stamp_same(&now, &m->stamp) : !now.present;
}

bool export_dirs_unchanged(const struct export_dirs *dirs) {
  if (!dirs->settled || !dirs->complete || dirs->count == 0)
    return false;
  for (size_t i = 0; i < dirs->count; i++)
    if (!mark_holds(&dirs->mark[i]))
      return false;
  return true;
}

void export_dirs_free(struct export_dirs *dirs) {
  for (size_t i = 0; i < dirs->count; i++)
    free(dirs->mark[i].path);
  free(dirs->mark);
  *dirs = (struct export_dirs){0};
}
