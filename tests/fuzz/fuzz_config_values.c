/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for the other values the plugins take from collectd's config:
 * pve_cgroup's Guests (src/parse/guest.c guest_type_parse) and pve_rrd's
 * DaemonAddress (rrd/rrdcached/rrdcached_client.c, which validates it; nothing
 * here connects).  Checks, beyond memory safety: a guest type is exactly "qemu"
 * or "lxc", an address is refused (-EINVAL, nothing returned) exactly when
 * it is empty, holds a space, a control character or DEL, or is "unix:"
 * followed by anything but '/', and an accepted client keeps the address
 * verbatim and calls it a unix socket exactly for "/..." and "unix:/...".
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/guest.h"
#include "pvecg/rrdcached_client.h"

#define SENTINEL ((enum guest_type)0x5a5a)

static void check_guest_type(const char *s) {
  enum guest_type type = SENTINEL;
  int r = guest_type_parse(s, &type);

  if (strcmp(s, "qemu") == 0)
    FUZZ_CHECK(r == 0 && type == GUEST_QEMU);
  else if (strcmp(s, "lxc") == 0)
    FUZZ_CHECK(r == 0 && type == GUEST_LXC);
  else
    FUZZ_CHECK(r == -EINVAL && type == SENTINEL);
}

static bool address_acceptable(const char *s) {
  size_t n = strlen(s);

  if (n == 0)
    return false;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] == 0x7f)
      return false;
  return !(n >= 5 && memcmp(s, "unix:", 5) == 0 && s[5] != '/');
}

static void check_address(const char *s) {
  struct rrdcached_client *const untouched = (struct rrdcached_client *)&s;
  struct rrdcached_client *c = untouched;
  bool unix_socket = s[0] == '/' || strncmp(s, "unix:", 5) == 0;
  int r = rrdcached_client_new(s, &c);

  FUZZ_CHECK(rrdcached_address_is_unix(s) == unix_socket);
  if (!address_acceptable(s)) {
    FUZZ_CHECK(r == -EINVAL && c == untouched);
    return;
  }
  FUZZ_CHECK(r == 0 && c != untouched && c != NULL);
  FUZZ_CHECK(strcmp(rrdcached_client_address(c), s) == 0);
  FUZZ_CHECK(rrdcached_client_address(c) != s);
  FUZZ_CHECK(rrdcached_client_is_unix(c) == unix_socket);
  FUZZ_CHECK(rrdcached_client_access(c)->local == unix_socket);
  rrdcached_client_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);

  FUZZ_CHECK(s != NULL);
  memcpy(s, data, size);
  s[size] = '\0';
  check_guest_type(s);
  check_address(s);
  free(s);
  return 0;
}
