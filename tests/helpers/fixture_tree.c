/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fixture cgroup trees for C tests (see fixture_tree.h). */
#include "fixture_tree.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void die(const char *what, const char *path) {
  fprintf(stderr, "fixture: %s %s: %s\n", what, path, strerror(errno));
  abort();
}

static void join(char *buf, const char *root, const char *rel) {
  if (snprintf(buf, PATH_MAX, "%s/%s", root, rel) >= PATH_MAX)
    die("path too long", rel);
}

void fixture_create(char *root, size_t size, const char *prefix) {
  snprintf(root, size, "/tmp/%s.XXXXXX", prefix);
  if (!mkdtemp(root))
    die("mkdtemp", root);
}

void fixture_remove(const char *root) {
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
  if (system(cmd) != 0)
    die("rm -rf", root);
}

void fixture_mkdir(const char *root, const char *rel) {
  char path[PATH_MAX];
  join(path, root, rel);
  for (char *p = path + strlen(root) + 1;; p++) {
    char c = *p;
    if (c != '/' && c != '\0')
      continue;
    *p = '\0';
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
      die("mkdir", path);
    *p = c;
    if (c == '\0')
      break;
  }
}

void fixture_write(const char *root, const char *rel, const char *text) {
  char path[PATH_MAX];
  join(path, root, rel);
  FILE *f = fopen(path, "w");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0)
    die("write", path);
}

void fixture_psi(const char *root, const char *rel, const char *name,
                 const char *some_avg10) {
  char file[PATH_MAX], text[256];
  snprintf(file, sizeof(file), "%s/%s", rel, name);
  snprintf(text, sizeof(text),
           "some avg10=%s avg60=0.50 avg300=0.05 total=1000\n"
           "full avg10=0.25 avg60=0.10 avg300=0.01 total=500\n",
           some_avg10);
  fixture_write(root, file, text);
}

void fixture_guest(const char *root, const char *rel, const char *current,
                   const char *file) {
  char path[PATH_MAX], text[256];
  fixture_mkdir(root, rel);
  snprintf(path, sizeof(path), "%s/memory.current", rel);
  fixture_write(root, path, current);
  snprintf(path, sizeof(path), "%s/memory.stat", rel);
  snprintf(text, sizeof(text), "anon 1\nfile %s\nfile_mapped 77\n", file);
  fixture_write(root, path, text);
  snprintf(path, sizeof(path), "%s/cpu.stat", rel);
  fixture_write(root, path,
                "usage_usec 5000000\nuser_usec 4000000\nsystem_usec 1000000\n"
                "nr_periods 0\nnr_throttled 0\nthrottled_usec 0\n");
  snprintf(path, sizeof(path), "%s/io.stat", rel);
  fixture_write(root, path,
                "8:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n"
                "253:1 rbytes=1000 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n");
  fixture_psi(root, rel, "cpu.pressure", "1.50");
  fixture_psi(root, rel, "io.pressure", "2.25");
  fixture_psi(root, rel, "memory.pressure", "3.00");
}
