/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Running bench/peers/pve_read.pl (see perl_path.h).  It reads memory the
 * way get_memory_stat does on the host's layout: v1 files from the memory
 * hierarchy when cgroup2 has no memory controller (the tree's memory twin),
 * v2 files otherwise; pressure always from the cgroup2 directory.
 */
#include "perl_path.h"

#include "child_proc.h"

#include <errno.h>
#include <stdio.h>

static int write_list(const char *path, const struct guest_tree *tree,
                      size_t count) {
  FILE *f = fopen(path, "we");
  if (!f)
    return -errno;
  for (size_t i = 0; i < count; i++)
    fprintf(f, "%u\n", (unsigned)tree->vmids[i]);
  int err = ferror(f) ? -EIO : 0;
  if (fclose(f) != 0 && err == 0)
    err = -errno;
  return err;
}

int perl_path_init(struct perl_path *p, const char *perl, const char *script,
                   const struct guest_tree *tree, const char *dir) {
  p->perl = perl;
  p->script = script;
  p->tree = tree;
  snprintf(p->vmids, sizeof(p->vmids), "%s/vmids", dir);
  snprintf(p->no_vmids, sizeof(p->no_vmids), "%s/no-vmids", dir);
  int err = write_list(p->vmids, tree, tree->count);
  return err < 0 ? err : write_list(p->no_vmids, tree, 0);
}

/* argv for the script; check adds --check.  Points into p. */
static void make_argv(const struct perl_path *p, bool idle, bool check,
                      char *argv[13]) {
  const struct guest_tree *t = p->tree;
  bool v1 = t->memory_root[0] != '\0';
  size_t i = 0;
  argv[i++] = (char *)p->perl;
  argv[i++] = (char *)p->script;
  argv[i++] = "--root";
  argv[i++] = (char *)t->root;
  argv[i++] = "--memory-root";
  argv[i++] = (char *)(v1 ? t->memory_root : t->root);
  argv[i++] = "--memory-version";
  argv[i++] = v1 ? "1" : "2";
  argv[i++] = "--vmids";
  argv[i++] = (char *)(idle ? p->no_vmids : p->vmids);
  argv[i++] = check ? "--check" : NULL;
  argv[i] = NULL;
}

pid_t perl_path_start(const struct perl_path *p, bool idle,
                      const char *output) {
  char *argv[13];
  make_argv(p, idle, false, argv);
  return child_proc_start(argv, output);
}

int perl_path_check(const struct perl_path *p, size_t *memory,
                    size_t *pressure) {
  char *argv[13], out[256];
  make_argv(p, false, true, argv);
  int status = child_proc_capture(argv, out, sizeof(out));
  if (status < 0)
    return status;
  size_t guests;
  if (status != 0 || sscanf(out, "guests %zu memory %zu pressure %zu", &guests,
                            memory, pressure) != 3)
    return -EBADMSG;
  return 0;
}
