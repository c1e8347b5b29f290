/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parser for the CPU lines at the head of /proc/stat (see proc_stat.h).
 *
 * The kernel prints the aggregate line first, then one line per online CPU,
 * then intr, ctxt and the rest; this order has not changed since Linux 2.6.
 * The parser relies on it to stop after the CPU lines: on a host with many
 * interrupt sources the intr line alone is tens of kilobytes.
 */
#include "pvecg/proc_stat.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "pvecg/decimal.h"

/* user .. steal: what every kernel since 2.6.11 prints. */
#define REQUIRED_FIELDS 8
#define KNOWN_FIELDS 10

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* End of the first word of [p, eol): the first space, or eol. */
static const char *word_end(const char *p, const char *eol) {
  const char *space = memchr(p, ' ', (size_t)(eol - p));
  return space ? space : eol;
}

/* "cpu" followed by one or more digits. */
static bool is_cpu_n(const char *p, const char *end) {
  if (end - p < 4 || memcmp(p, "cpu", 3) != 0)
    return false;
  for (p += 3; p < end; p++)
    if (!is_digit(*p))
      return false;
  return true;
}

static void store_fields(const uint64_t *f, struct proc_stat_cpu *cpu) {
  *cpu = (struct proc_stat_cpu){
      .user = f[0],
      .nice = f[1],
      .system = f[2],
      .idle = f[3],
      .iowait = f[4],
      .irq = f[5],
      .softirq = f[6],
      .steal = f[7],
      .guest = f[8],
      .guest_nice = f[9],
  };
}

/* The fields of the aggregate line, [p, eol) starting after its label. */
static int parse_fields(const char *p, const char *eol,
                        struct proc_stat_cpu *cpu) {
  uint64_t f[KNOWN_FIELDS] = {0}, v;
  size_t n = 0;
  int r;

  if (p == eol || *p != ' ')
    return -EBADMSG;
  while (p < eol && *p == ' ')
    p++;
  for (;;) {
    r = decimal_parse_u64(&p, eol, &v);
    if (r < 0)
      return r == -ERANGE ? r : -EBADMSG;
    if (n < KNOWN_FIELDS)
      f[n] = v;
    n++;
    if (p == eol)
      break;
    if (*p != ' ')
      return -EBADMSG;
    p++; /* exactly one space: a second one is refused by the next parse */
  }
  if (n < REQUIRED_FIELDS)
    return -EBADMSG;
  store_fields(f, cpu);
  return 0;
}

/* The aggregate line [buf, eol). */
static int parse_total(const char *buf, const char *eol,
                       struct proc_stat_cpu *cpu) {
  const char *label_end = word_end(buf, eol);

  if (label_end - buf != 3 || memcmp(buf, "cpu", 3) != 0)
    return -EBADMSG;
  return parse_fields(label_end, eol, cpu);
}

/*
 * Counts the cpuN lines from p on.  Returns 0 when they are followed by a
 * complete line of another kind, -EBADMSG when the buffer ends first.
 */
static int count_cpus(const char *p, const char *end, uint32_t *cpus) {
  uint32_t n = 0;

  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *eol = nl ? nl : end;

    if (!is_cpu_n(p, word_end(p, eol))) {
      if (!nl || n == 0)
        return -EBADMSG;
      *cpus = n;
      return 0;
    }
    if (n == UINT32_MAX)
      return -ERANGE;
    n++;
    p = nl ? nl + 1 : end;
  }
  return -EBADMSG;
}

int proc_stat_parse(const char *buf, size_t len, struct proc_stat *ret) {
  struct proc_stat st = {0};
  const char *end = buf + len, *nl;
  int r;

  /* memchr must not be given the NULL of an empty buffer. */
  if (len == 0 || !(nl = memchr(buf, '\n', len)))
    return -EBADMSG;
  r = parse_total(buf, nl, &st.total);
  if (r < 0)
    return r;
  r = count_cpus(nl + 1, end, &st.cpus);
  if (r < 0)
    return r;
  *ret = st;
  return 0;
}
