/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/net_dev.c.  Invariants: only the documented
 * results, every reported name non-empty, NUL-terminated, at most 15 bytes and
 * free of spaces and colons, and the same interfaces reported on a second
 * parse.
 */
#include <errno.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/net_dev.h"

struct tally {
  unsigned n;
  uint64_t sum;
};

static int check_dev(const struct net_dev_counters *dev, void *ctx) {
  struct tally *t = ctx;
  size_t n = strnlen(dev->name, sizeof(dev->name));
  FUZZ_CHECK(n > 0 && n < sizeof(dev->name));
  FUZZ_CHECK(!memchr(dev->name, ' ', n) && !memchr(dev->name, ':', n));
  t->n++;
  t->sum += dev->rx_bytes ^ dev->tx_bytes;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct tally a = {0, 0}, b = {0, 0};
  int r = net_dev_parse((const char *)data, size, check_dev, &a);
  FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ERANGE);
  FUZZ_CHECK(net_dev_parse((const char *)data, size, check_dev, &b) == r);
  FUZZ_CHECK(a.n == b.n && a.sum == b.sum);
  return 0;
}
