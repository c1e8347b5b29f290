/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for net_target_parse (src/sending/net_sender.c), the listener URL
 * of `pvecg export --to`.  Checks, beyond memory safety, against an oracle that
 * splits the URL from the right instead of the left: "tcp://" or "udp://",
 * then a host of 1..NET_HOST_MAX-1 bytes without '/' (without ':' unless
 * in brackets, and a bracketed one without ']'), ':' and a port of 1..65535
 * written without a leading zero.  A refusal is -EINVAL with *ret
 * untouched; an accepted URL gives exactly that host and port text.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/net_sender.h"

#define FILL 0xa5

static bool port_valid(const char *p) {
  size_t n = strlen(p);

  if (n == 0 || n > 5 || p[0] == '0')
    return false;
  for (size_t i = 0; i < n; i++)
    if (p[i] < '0' || p[i] > '9')
      return false;
  return strtoul(p, NULL, 10) <= 65535;
}

/* The host part [h, h + n) without brackets into host; false if invalid. */
static bool host_valid(const char *h, size_t n, char *host) {
  if (n > 0 && h[0] == '[') {
    if (n < 2 || h[n - 1] != ']' || memchr(h + 1, ']', n - 2) != NULL)
      return false;
    h++, n -= 2;
  } else if (memchr(h, ':', n) != NULL) {
    return false;
  }
  if (n == 0 || n >= NET_HOST_MAX || memchr(h, '/', n) != NULL)
    return false;
  memcpy(host, h, n);
  host[n] = '\0';
  return true;
}

static bool oracle(const char *url, struct net_target *ret) {
  const char *rest = url + 6, *colon;

  if (strncmp(url, "tcp://", 6) != 0 && strncmp(url, "udp://", 6) != 0)
    return false;
  colon = strrchr(rest, ':');
  if (colon == NULL || !port_valid(colon + 1) ||
      !host_valid(rest, (size_t)(colon - rest), ret->host))
    return false;
  ret->udp = url[0] == 'u';
  strcpy(ret->port, colon + 1);
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct net_target got, untouched, want;
  char *s = malloc(size + 1);
  bool ok;
  int r;

  FUZZ_CHECK(s != NULL);
  memcpy(s, data, size);
  s[size] = '\0';
  memset(&got, FILL, sizeof(got));
  memset(&untouched, FILL, sizeof(untouched));
  ok = oracle(s, &want);
  r = net_target_parse(s, &got);
  if (ok) {
    FUZZ_CHECK(r == 0 && got.udp == want.udp);
    FUZZ_CHECK(strcmp(got.host, want.host) == 0);
    FUZZ_CHECK(strcmp(got.port, want.port) == 0);
  } else {
    FUZZ_CHECK(r == -EINVAL);
    FUZZ_CHECK(memcmp(&got, &untouched, sizeof(got)) == 0);
  }
  free(s);
  return 0;
}
