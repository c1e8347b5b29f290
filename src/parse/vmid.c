/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * VMID validation: the single gate between outside names (cgroup directory
 * entries, plugin instances received from the network) and the paths built
 * from them.  Anything PVE itself would not allocate as a VMID is refused, so
 * a name can never smuggle "..", a sign, a leading zero alias ("0100" and
 * "100" naming the same guest) or a separator into a path.
 */
#include "pvecg/vmid.h"

#include <errno.h>
#include <string.h>

#include "pvecg/decimal.h"

#define SCOPE_SUFFIX ".scope"
#define SCOPE_SUFFIX_LEN (sizeof(SCOPE_SUFFIX) - 1)

int vmid_parse(const char *s, size_t len, uint32_t *ret) {
  const char *p = s, *end = s + len;
  uint64_t v;

  /* The length bound also keeps the value far from 64-bit overflow. */
  if (len == 0 || len > VMID_STRING_SIZE - 1 || s[0] == '0')
    return -EINVAL;
  if (decimal_parse_u64(&p, end, &v) < 0 || p != end)
    return -EINVAL;
  if (v < VMID_MIN || v > VMID_MAX)
    return -EINVAL;
  *ret = (uint32_t)v;
  return 0;
}

int vmid_parse_string(const char *s, uint32_t *ret) {
  /* strnlen: an overlong name is refused without scanning all of it. */
  return vmid_parse(s, strnlen(s, VMID_STRING_SIZE), ret);
}

int vmid_parse_scope_name(const char *name, uint32_t *ret) {
  size_t len = strnlen(name, VMID_STRING_SIZE + SCOPE_SUFFIX_LEN);

  if (len <= SCOPE_SUFFIX_LEN || memcmp(name + len - SCOPE_SUFFIX_LEN,
                                        SCOPE_SUFFIX, SCOPE_SUFFIX_LEN) != 0)
    return -EINVAL;
  return vmid_parse(name, len - SCOPE_SUFFIX_LEN, ret);
}
