/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Listing a directory's accepted names (see dir_names.h).
 */
#include "pvecg/dir_names.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void dir_names_free(struct dir_names *n) {
  for (size_t i = 0; i < n->count; i++)
    free(n->name[i]);
  free(n->name);
  *n = (struct dir_names){0};
}

static int names_add(struct dir_names *n, const char *name) {
  if (n->count == n->size) {
    size_t size = n->size ? n->size * 2 : 16;
    char **grown = realloc(n->name, size * sizeof(*grown));
    if (grown == NULL)
      return -1;
    n->name = grown;
    n->size = size;
  }
  if ((n->name[n->count] = strdup(name)) == NULL)
    return -1;
  n->count++;
  return 0;
}

/* Whether e is of kind (d_type, or a stat where the file system does not
 * tell); symbolic links are followed, as /etc/pve's are links. */
static bool entry_is(DIR *d, const struct dirent *e, enum dir_entry_kind kind) {
  struct stat st;
  if (e->d_type == DT_REG || e->d_type == DT_DIR)
    return (e->d_type == DT_DIR) == (kind == DIR_ENTRY_DIR);
  if (fstatat(dirfd(d), e->d_name, &st, 0) != 0)
    return false;
  return kind == DIR_ENTRY_DIR ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
}

void dir_names_read(const char *dir, enum dir_entry_kind kind,
                    bool (*accept)(const char *name), size_t max,
                    struct dir_names *ret) {
  DIR *d = opendir(dir);
  struct dirent *e;
  *ret = (struct dir_names){0};
  if (d == NULL)
    return;
  while ((e = readdir(d)) != NULL && ret->count < max)
    if (accept(e->d_name) && entry_is(d, e, kind) &&
        names_add(ret, e->d_name) != 0)
      break;
  closedir(d);
}
