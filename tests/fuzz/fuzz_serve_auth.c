/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/serve/serve_token_file.c and serve_auth.c, the
 * token file (several lines) and the Authorization header of `pvecg serve
 * --token-file`.  The input is the token file's contents, a NUL, then the
 * header's value.  Beyond memory safety it checks:
 *   - a token file is accepted or refused with a reason naming a line
 *     (or saying it holds no token, or too many); an accepted one has 1 to
 *     SERVE_TOKENS_MAX tokens, no more than its lines, each a secret of
 *     SERVE_SECRET_MIN..SERVE_TOKEN_MAX visible ASCII bytes, zero-padded,
 *     and a token id that is empty or has an '@' and a '!';
 *   - the header is judged as a naive strcmp-based oracle over every token
 *     judges it;
 *   - each token's "Bearer SECRET" is always accepted, and so is
 *     "PVEAPIToken=ID=SECRET" with its token id (any, when it has none),
 *     a secret with '=' too (the id ends at the first '=' after its '!',
 *     as the file splits it), and the token said to match is that one
 *     (no two lines hold one secret);
 *   - a token's scope (serve_scope.c, the words after its secret) holds
 *     VMIDs of 100..999999999 sorted by cluster then VMID, pool names of
 *     Proxmox's characters, clusters that can be; it sees no node, and
 *     sees each of its guests and nothing else of those VMIDs' clusters
 *     it does not hold.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz_check.h"
#include "serve_auth.h"
#include "serve_scope.h"
#include "serve_token_file.h"

#include "pvecg/rrd_layout.h"
#include "pvecg/vmid.h"

#include <stdio.h>

#define INPUT_MAX 1024

static bool prefix_nocase(const char *s, const char *p) {
  for (; *p != '\0'; s++, p++) {
    char a = (*s >= 'A' && *s <= 'Z') ? (char)(*s + 32) : *s;
    char b = (*p >= 'A' && *p <= 'Z') ? (char)(*p + 32) : *p;
    if (a != b)
      return false;
  }
  return true;
}

static bool same(const unsigned char *a, size_t n, const char *b, size_t m) {
  return n == m && memcmp(a, b, n) == 0;
}

static enum serve_auth oracle_one(const struct serve_token *t, const char *h) {
  if (h[0] == '\0')
    return SERVE_AUTH_MISSING;
  if (prefix_nocase(h, "bearer ")) {
    const char *v = h + 7;
    v += strspn(v, " ");
    return same(t->secret, t->secret_len, v, strlen(v)) ? SERVE_AUTH_OK
                                                        : SERVE_AUTH_WRONG;
  }
  if (!prefix_nocase(h, "pveapitoken="))
    return SERVE_AUTH_SCHEME;
  /* the id ends at the first '=' after the first '!' after the first
   * '@', as the file splits it (a secret may hold '=') */
  const char *v = h + 12, *at = strchr(v, '@');
  const char *bang = at != NULL ? strchr(at, '!') : NULL;
  const char *eq = bang != NULL ? strchr(bang, '=') : NULL;
  if (eq == NULL)
    return SERVE_AUTH_WRONG;
  bool id = t->id_len == 0 || same(t->id, t->id_len, v, (size_t)(eq - v));
  return id && same(t->secret, t->secret_len, eq + 1, strlen(eq + 1))
             ? SERVE_AUTH_OK
             : SERVE_AUTH_WRONG;
}

/* The naive judgement over every token: right if any one is. */
static enum serve_auth oracle(const struct serve_tokens *ts, const char *h) {
  enum serve_auth a = SERVE_AUTH_WRONG;
  for (size_t i = 0; i < ts->count && a == SERVE_AUTH_WRONG; i++)
    a = oracle_one(&ts->item[i], h);
  return a;
}

static void check_scope(const struct serve_scope *sc) {
  char name[16];
  for (size_t i = 0; i < sc->guest_count; i++) {
    const struct serve_scope_guest *g = &sc->guest[i];
    FUZZ_CHECK(g->vmid >= VMID_MIN && g->vmid <= VMID_MAX);
    FUZZ_CHECK(g->cluster[0] == '\0' ||
               rrd_cluster_name_problem(g->cluster) == NULL);
    if (i > 0) {
      int c = strcmp(sc->guest[i - 1].cluster, g->cluster);
      FUZZ_CHECK(c < 0 || (c == 0 && sc->guest[i - 1].vmid <= g->vmid));
    }
    snprintf(name, sizeof(name), "%u", g->vmid);
    FUZZ_CHECK(serve_scope_sees(sc, g->cluster, &layout_pve_vm_9_0, name));
    FUZZ_CHECK(!serve_scope_sees(sc, g->cluster, &layout_pve_node_9_0, name));
    /* a cluster no item can name ('/' is never in one) */
    FUZZ_CHECK(!serve_scope_sees(sc, "a/b", &layout_pve_vm_9_0, name));
  }
  for (size_t i = 0; i < sc->pool_count; i++) {
    const char *p = sc->pool[i].name;
    FUZZ_CHECK(p[0] != '\0' && p[0] != '/' &&
               strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                         "0123456789.-_/") == strlen(p));
    FUZZ_CHECK(sc->pool[i].cluster[0] == '\0' ||
               rrd_cluster_name_problem(sc->pool[i].cluster) == NULL);
  }
}

static void check_token(const struct serve_tokens *ts,
                        const struct serve_token *t) {
  size_t which = SIZE_MAX;
  char h[2 * SERVE_TOKEN_MAX + 32];
  FUZZ_CHECK(t->secret_len >= SERVE_SECRET_MIN &&
             t->secret_len <= SERVE_TOKEN_MAX);
  FUZZ_CHECK(t->id_len == 0 || (memchr(t->id, '@', t->id_len) != NULL &&
                                memchr(t->id, '!', t->id_len) != NULL));
  for (size_t i = 0; i < SERVE_TOKEN_MAX; i++) {
    FUZZ_CHECK(i < t->secret_len ? t->secret[i] > ' ' && t->secret[i] <= '~'
                                 : t->secret[i] == 0);
    FUZZ_CHECK(i < t->id_len || t->id[i] == 0);
  }
  snprintf(h, sizeof(h), "Bearer %.*s", (int)t->secret_len, t->secret);
  FUZZ_CHECK(serve_auth_check(ts, h, &which) == SERVE_AUTH_OK);
  FUZZ_CHECK(which == (size_t)(t - ts->item));
  if (t->scope != NULL)
    check_scope(t->scope);
  snprintf(h, sizeof(h), "PVEAPIToken=%.*s=%.*s",
           t->id_len ? (int)t->id_len : 5, t->id_len ? (char *)t->id : "a@b!c",
           (int)t->secret_len, t->secret);
  FUZZ_CHECK(serve_auth_check(ts, h, &which) == SERVE_AUTH_OK);
  FUZZ_CHECK(which == (size_t)(t - ts->item));
}

static void check_accepted(const struct serve_tokens *ts, const char *file,
                           size_t size) {
  size_t lines = 1;
  for (size_t i = 0; i < size; i++)
    lines += file[i] == '\n';
  FUZZ_CHECK(ts->count >= 1 && ts->count <= SERVE_TOKENS_MAX);
  FUZZ_CHECK(ts->count <= lines);
  for (size_t i = 0; i < ts->count; i++)
    check_token(ts, &ts->item[i]);
}

static void check_refused(const char *why) {
  FUZZ_CHECK(strncmp(why, "line ", 5) == 0 ||
             strncmp(why, "it holds no token", 17) == 0 ||
             strncmp(why, "it holds more than", 18) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char input[INPUT_MAX + 1];
  struct serve_tokens ts;
  char why[200] = "";
  if (size > INPUT_MAX)
    return 0;
  memcpy(input, data, size);
  input[size] = '\0';
  size_t file_size = strnlen(input, size);
  const char *header = file_size < size ? input + file_size + 1 : "";
  int r = serve_token_file_parse(input, file_size, &ts, why, sizeof(why));
  if (r != 0) {
    FUZZ_CHECK(r == -EINVAL);
    check_refused(why);
    return 0;
  }
  check_accepted(&ts, input, file_size);
  FUZZ_CHECK(serve_auth_check(&ts, header, NULL) == oracle(&ts, header));
  FUZZ_CHECK(serve_auth_check(&ts, NULL, NULL) == SERVE_AUTH_MISSING);
  serve_tokens_free(&ts);
  return 0;
}
