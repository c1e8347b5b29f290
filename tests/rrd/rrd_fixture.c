/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Temporary directories and whole-file helpers for the tests of rrd/ (see
 * rrd_fixture.h).
 */
#include "rrd_fixture.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *fixture_tmpdir(const char *tag) {
  const char *base = getenv("TMPDIR");
  char *path = NULL;
  if (base == NULL || base[0] == '\0')
    base = "/tmp";
  if (asprintf(&path, "%s/pvecg-%s.XXXXXX", base, tag) < 0 ||
      mkdtemp(path) == NULL) {
    fprintf(stderr, "cannot create a temporary directory: %s\n",
            strerror(errno));
    abort();
  }
  return path;
}

static int remove_one(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  remove(path);
  return 0;
}

void fixture_remove(const char *path) {
  nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *fixture_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  size_t size = 0, cap = 4096;
  char *buf = malloc(cap + 1);
  size_t n;
  while (buf != NULL && (n = fread(buf + size, 1, cap - size, f)) > 0) {
    size += n;
    if (size == cap) {
      char *bigger = realloc(buf, cap * 2 + 1);
      if (bigger == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
  }
  fclose(f);
  if (buf != NULL) {
    buf[size] = '\0';
    *len = size;
  }
  return buf;
}

void fixture_write(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    abort();
  }
}

bool fixture_same(const char *path, const char *data, size_t len) {
  size_t have_len = 0;
  char *have = fixture_read(path, &have_len);
  bool same = have != NULL && have_len == len && memcmp(have, data, len) == 0;
  free(have);
  return same;
}
