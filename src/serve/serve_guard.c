/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The table of guessing clients (see serve_guard.h).  One mutex guards it:
 * each call holds it for one hash and SERVE_GUARD_WAYS comparisons, far
 * less than the TLS and HTTP work of the request around it.
 */
#include "serve_guard.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct entry {
  unsigned char key[16]; /* IPv4 as ::ffff:a.b.c.d, IPv6 its /64 */
  bool used;
  unsigned failures, refused;
  int64_t last_seen, window_start, blocked_until;
};

struct serve_guard {
  pthread_mutex_t lock;
  uint64_t seed;
  size_t sets;
  struct entry *entry; /* sets * SERVE_GUARD_WAYS */
};

/* ---- keys ---------------------------------------------------------------- */

static const unsigned char v4_mapped[12] = {0, 0, 0, 0, 0,    0,
                                            0, 0, 0, 0, 0xff, 0xff};

/* False for an address of another family (never counted). */
static bool key_of(const struct sockaddr *sa, unsigned char key[16]) {
  memset(key, 0, 16);
  if (sa != NULL && sa->sa_family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)(const void *)sa;
    memcpy(key, v4_mapped, 12);
    memcpy(key + 12, &a->sin_addr, 4);
    return true;
  }
  if (sa == NULL || sa->sa_family != AF_INET6)
    return false;
  const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)(const void *)sa;
  memcpy(key, &a->sin6_addr, 16);
  /* an IPv4 client of a dual-stack socket is its whole address */
  if (memcmp(key, v4_mapped, 12) != 0)
    memset(key + 8, 0, 8);
  return true;
}

/* splitmix64's finalizer: every bit of the input moves every bit out */
static uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static size_t set_of(const struct serve_guard *g, const unsigned char key[16]) {
  uint64_t hi, lo;
  memcpy(&hi, key, 8);
  memcpy(&lo, key + 8, 8);
  return (size_t)(mix(mix(g->seed ^ hi) ^ lo) % g->sets);
}

/* ---- the table ----------------------------------------------------------- */

static struct entry *find(struct serve_guard *g, const unsigned char key[16]) {
  struct entry *set = g->entry + set_of(g, key) * SERVE_GUARD_WAYS;
  for (size_t i = 0; i < SERVE_GUARD_WAYS; i++)
    if (set[i].used && memcmp(set[i].key, key, 16) == 0)
      return &set[i];
  return NULL;
}

/* A free entry, else the least recently seen one not blocked, else the
 * least recently seen: a full set forgets the quiet before the blocked. */
static struct entry *victim(struct entry *set, int64_t now) {
  struct entry *quiet = NULL, *oldest = &set[0];
  for (size_t i = 0; i < SERVE_GUARD_WAYS; i++) {
    struct entry *e = &set[i];
    if (!e->used)
      return e;
    if (e->last_seen < oldest->last_seen)
      oldest = e;
    if (e->blocked_until <= now &&
        (quiet == NULL || e->last_seen < quiet->last_seen))
      quiet = e;
  }
  return quiet != NULL ? quiet : oldest;
}

static struct entry *find_or_add(struct serve_guard *g,
                                 const unsigned char key[16], int64_t now) {
  struct entry *e = find(g, key);
  if (e != NULL)
    return e;
  e = victim(g->entry + set_of(g, key) * SERVE_GUARD_WAYS, now);
  *e = (struct entry){.used = true, .window_start = now};
  memcpy(e->key, key, 16);
  return e;
}

struct serve_guard *serve_guard_new(size_t slots, uint64_t seed) {
  struct serve_guard *g = calloc(1, sizeof(*g));
  if (g == NULL)
    return NULL;
  g->sets = slots / SERVE_GUARD_WAYS > 0 ? slots / SERVE_GUARD_WAYS : 1;
  g->entry = calloc(g->sets * SERVE_GUARD_WAYS, sizeof(*g->entry));
  if (g->entry == NULL) {
    free(g);
    return NULL;
  }
  g->seed = seed;
  pthread_mutex_init(&g->lock, NULL);
  return g;
}

void serve_guard_free(struct serve_guard *g) {
  if (g == NULL)
    return;
  pthread_mutex_destroy(&g->lock);
  free(g->entry);
  free(g);
}

/* ---- the rule ------------------------------------------------------------ */

static struct serve_guard_verdict verdict(struct entry *e, int64_t now) {
  struct serve_guard_verdict v = {.blocked = false};
  e->last_seen = now;
  if (e->blocked_until > now) {
    e->refused++;
    v.blocked = true;
    v.retry_after = (unsigned)(e->blocked_until - now);
  } else if (e->refused > 0) {
    v.refused_before = e->refused;
    e->refused = 0;
  }
  return v;
}

struct serve_guard_verdict serve_guard_check(struct serve_guard *g,
                                             const struct sockaddr *addr,
                                             int64_t now) {
  struct serve_guard_verdict v = {.blocked = false};
  unsigned char key[16];
  if (!key_of(addr, key))
    return v;
  pthread_mutex_lock(&g->lock);
  struct entry *e = find(g, key);
  if (e != NULL)
    v = verdict(e, now);
  pthread_mutex_unlock(&g->lock);
  return v;
}

struct serve_guard_failure serve_guard_failed(struct serve_guard *g,
                                              const struct sockaddr *addr,
                                              int64_t now) {
  struct serve_guard_failure f = {.failures = 0};
  unsigned char key[16];
  if (!key_of(addr, key))
    return f;
  pthread_mutex_lock(&g->lock);
  struct entry *e = find_or_add(g, key, now);
  e->last_seen = now;
  if (now - e->window_start >= SERVE_GUARD_WINDOW) {
    e->window_start = now;
    e->failures = 0;
  }
  f.failures = ++e->failures;
  if (e->failures >= SERVE_GUARD_LIMIT && e->blocked_until <= now) {
    e->blocked_until = now + SERVE_GUARD_BLOCK;
    e->failures = 0;
    f.blocked_now = true;
  }
  pthread_mutex_unlock(&g->lock);
  return f;
}
