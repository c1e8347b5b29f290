/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/pmxcfs_version.c.  Checks, beyond memory
 * safety: only the documented errors, *ret untouched on error, and that
 * the bytes after the counter's line change nothing (a read of the file's
 * first bytes gives the same answer as the whole file, once the line is
 * whole).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/pmxcfs_version.h"

#define UNTOUCHED 0xa5a5a5a5a5a5a5a5u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;
  uint64_t v = UNTOUCHED;
  int r = pmxcfs_version_vmlist(buf, size, &v);
  FUZZ_CHECK(r == 0 || r == -ENOENT || r == -EBADMSG || r == -ERANGE);
  if (r < 0) {
    FUZZ_CHECK(v == UNTOUCHED);
    return 0;
  }
  /* The first line with the key; its value ends at a ',' or '\n'. */
  const char *key = NULL, *p = buf, *end = buf + size;
  while (key == NULL && p < end) {
    if ((size_t)(end - p) >= 9 && memcmp(p, "\"vmlist\":", 9) == 0)
      key = p;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    p = nl != NULL ? nl + 1 : end;
  }
  FUZZ_CHECK(key != NULL);
  size_t cut = (size_t)(key - buf) + 9;
  while (buf[cut] != ',' && buf[cut] != '\n')
    cut++;
  char *head = malloc(cut + 1);
  if (head == NULL)
    return 0;
  memcpy(head, buf, cut + 1);
  uint64_t w = UNTOUCHED;
  FUZZ_CHECK(pmxcfs_version_vmlist(head, cut + 1, &w) == 0 && w == v);
  free(head);
  return 0;
}
