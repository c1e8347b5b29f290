/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for guest_net_parse_name (src/sample/guest_net.c), which tells a
 * guest's network interface from the names in /proc/net/dev.  Checks,
 * beyond memory safety: a name is accepted exactly when it is "tap" (qemu)
 * or "veth" (lxc), a canonical VMID (3 to 9 digits, no leading zero), 'i'
 * and a NIC index of 1 to 3 digits; the VMID is the oracle's strtoul value;
 * a refusal is -EINVAL with both outputs untouched.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/guest.h"
#include "guest_net.h"

#define TYPE_SENTINEL ((enum guest_type)0x5a5a)
#define VMID_SENTINEL 0xa5a5a5a5u

static bool digits(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9')
      return false;
  return true;
}

/* "<vmid>i<index>" after the prefix. */
static bool oracle_suffix(const char *s, uint32_t *vmid) {
  size_t n = strlen(s), v = strspn(s, "0123456789");

  if (v < 3 || v > 9 || s[0] == '0' || s[v] != 'i' || n - v - 1 < 1 ||
      n - v - 1 > 3 || !digits(s + v + 1, n - v - 1))
    return false;
  *vmid = (uint32_t)strtoul(s, NULL, 10);
  return true;
}

static bool oracle(const char *s, enum guest_type *type, uint32_t *vmid) {
  if (strncmp(s, "tap", 3) == 0 && oracle_suffix(s + 3, vmid)) {
    *type = GUEST_QEMU;
    return true;
  }
  if (strncmp(s, "veth", 4) == 0 && oracle_suffix(s + 4, vmid)) {
    *type = GUEST_LXC;
    return true;
  }
  return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  enum guest_type type = TYPE_SENTINEL, want_type = TYPE_SENTINEL;
  uint32_t vmid = VMID_SENTINEL, want_vmid = VMID_SENTINEL;
  char *s = malloc(size + 1);
  int r;

  FUZZ_CHECK(s != NULL);
  memcpy(s, data, size);
  s[size] = '\0';
  r = guest_net_parse_name(s, &type, &vmid);
  if (oracle(s, &want_type, &want_vmid)) {
    FUZZ_CHECK(r == 0 && type == want_type && vmid == want_vmid);
  } else {
    FUZZ_CHECK(r == -EINVAL);
    FUZZ_CHECK(type == TYPE_SENTINEL && vmid == VMID_SENTINEL);
  }
  free(s);
  return 0;
}
