/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The names in a directory that a caller accepts: the files (or
 * subdirectories) of the data directory's layouts and of /etc/pve, whose
 * entries are often symbolic links (followed here).
 */
#ifndef PVECG_DIR_NAMES_H
#define PVECG_DIR_NAMES_H

#include <stdbool.h>
#include <stddef.h>

enum dir_entry_kind { DIR_ENTRY_FILE, DIR_ENTRY_DIR };

struct dir_names {
  char **name;
  size_t count, size;
};

/*
 * The names of the regular files (or directories) in dir that accept()
 * takes, in directory order, at most max of them.  A directory that cannot
 * be read has none (a fresh collector has no node files yet); out of
 * memory the list ends early.
 */
void dir_names_read(const char *dir, enum dir_entry_kind kind,
                    bool (*accept)(const char *name), size_t max,
                    struct dir_names *ret);

void dir_names_free(struct dir_names *names);

#endif
