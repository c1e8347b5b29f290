/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parser for PVE guest configuration files (see guest_config.h).
 *
 * The files are written by PVE's own tools, but a hand edit can hold
 * anything, so every value used is checked: counts are plain decimals in
 * PVE's ranges, names printable.  Keys are matched exactly and only in the
 * first section.
 */
#include "pvecg/guest_config.h"

#include "pvecg/decimal.h"

#include <errno.h>
#include <string.h>

#define DEFAULT_MEMORY_MIB 512
#define MAX_CPUS 4096
#define MAX_MEMORY_MIB (UINT64_C(1) << 32) /* 4 PiB: far beyond any host */

struct raw_config {
  uint64_t sockets, cores, vcpus, memory_mib, balloon_mib;
  bool has_cores, has_vcpus, template, has_balloon, bad_balloon;
  const char *name, *tags;
  size_t name_len, tags_len;
};

static bool key_is(const char *key, size_t len, const char *want) {
  return strlen(want) == len && memcmp(key, want, len) == 0;
}

/* A decimal that is the whole value, within 1..max. */
static int parse_count(const char *v, const char *end, uint64_t max,
                       uint64_t *ret) {
  uint64_t n;
  const char *p = v;
  if (decimal_parse_u64(&p, end, &n) < 0 || p != end || n < 1 || n > max)
    return -EBADMSG;
  *ret = n;
  return 0;
}

/* QEMU's memory may be "2048" or the property string "current=2048[,...]". */
static int parse_memory(const char *v, const char *end, uint64_t *ret) {
  static const char prefix[] = "current=";
  if ((size_t)(end - v) > sizeof(prefix) - 1 &&
      memcmp(v, prefix, sizeof(prefix) - 1) == 0) {
    v += sizeof(prefix) - 1;
    const char *comma = memchr(v, ',', (size_t)(end - v));
    end = comma ? comma : end;
  }
  return parse_count(v, end, MAX_MEMORY_MIB, ret);
}

/* QEMU's balloon minimum, MiB: 0 (ballooning off) is PVE's value too.
 * Only alerts read it, so a malformed one is not an error that would
 * lose the counts: it leaves the minimum unknown. */
static void take_balloon(const char *v, const char *end, struct raw_config *c) {
  uint64_t n = 0;
  const char *p = v;
  c->has_balloon = true;
  c->bad_balloon =
      decimal_parse_u64(&p, end, &n) < 0 || p != end || n > MAX_MEMORY_MIB;
  c->balloon_mib = c->bad_balloon ? 0 : n;
}

static int take_value(enum guest_type type, const char *key, size_t klen,
                      const char *v, const char *end, struct raw_config *c) {
  if (key_is(key, klen, "memory"))
    return parse_memory(v, end, &c->memory_mib);
  if (key_is(key, klen, "cores")) {
    c->has_cores = true;
    return parse_count(v, end, MAX_CPUS, &c->cores);
  }
  if (type == GUEST_QEMU && key_is(key, klen, "sockets"))
    return parse_count(v, end, MAX_CPUS, &c->sockets);
  if (type == GUEST_QEMU && key_is(key, klen, "vcpus")) {
    c->has_vcpus = true;
    return parse_count(v, end, MAX_CPUS, &c->vcpus);
  }
  if (type == GUEST_QEMU && key_is(key, klen, "balloon"))
    take_balloon(v, end, c);
  if (key_is(key, klen, type == GUEST_QEMU ? "name" : "hostname")) {
    c->name = v;
    c->name_len = (size_t)(end - v);
  }
  if (key_is(key, klen, "tags")) {
    c->tags = v;
    c->tags_len = (size_t)(end - v);
  }
  /* only labels pve_guest_info: anything but PVE's "1" is not a template,
   * never an error that would lose the counts above */
  if (key_is(key, klen, "template"))
    c->template = end - v == 1 && *v == '1';
  return 0;
}

/* One line without its newline.  Returns 1 at a section header. */
static int take_line(enum guest_type type, const char *p, const char *eol,
                     struct raw_config *c) {
  if (p == eol || *p == '#')
    return 0;
  if (*p == '[')
    return 1;
  const char *colon = memchr(p, ':', (size_t)(eol - p));
  if (!colon)
    return 0; /* not a key line: PVE itself would reject it; ignore */
  const char *v = colon + 1;
  while (v < eol && *v == ' ')
    v++;
  const char *end = eol;
  while (end > v && (end[-1] == ' ' || end[-1] == '\r'))
    end--;
  return take_value(type, p, (size_t)(colon - p), v, end, c);
}

/* A printable value into out[size], else "". */
static void copy_text(const char *v, size_t len, char *out, size_t size) {
  out[0] = '\0';
  if (!v || len == 0 || len >= size)
    return;
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
      return;
  memcpy(out, v, len);
  out[len] = '\0';
}

int guest_config_parse(enum guest_type type, const char *buf, size_t len,
                       struct guest_config *ret) {
  struct raw_config c = {
      .sockets = 1, .cores = 1, .memory_mib = DEFAULT_MEMORY_MIB};
  const char *p = buf, *end = buf + len;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    eol = eol ? eol : end;
    int r = take_line(type, p, eol, &c);
    if (r < 0)
      return r;
    if (r > 0)
      break;
    p = eol + (eol < end);
  }
  struct guest_config out;
  if (type == GUEST_QEMU) {
    out.has_cpus = true;
    out.cpus = (unsigned)(c.has_vcpus ? c.vcpus : c.sockets * c.cores);
  } else {
    out.has_cpus = c.has_cores;
    out.cpus = c.has_cores ? (unsigned)c.cores : 0;
  }
  out.memory = c.memory_mib << 20;
  /* absent: the balloon device's target is the whole memory */
  out.has_balloon_min = type == GUEST_QEMU && !c.bad_balloon;
  out.balloon_min = c.has_balloon ? c.balloon_mib << 20 : out.memory;
  copy_text(c.name, c.name_len, out.name, sizeof(out.name));
  copy_text(c.tags, c.tags_len, out.tags, sizeof(out.tags));
  out.template = c.template;
  *ret = out;
  return 0;
}
