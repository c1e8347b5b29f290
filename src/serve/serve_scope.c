/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A token's scope (see serve_scope.h). */
#include "serve_scope.h"

#include "pvecg/grow.h"
#include "pvecg/vmid.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the guests ---------------------------------------------------------- */

static int by_cluster_vmid(const void *a, const void *b) {
  const struct serve_scope_guest *x = a, *y = b;
  int c = strcmp(x->cluster, y->cluster);
  return c != 0 ? c : x->vmid < y->vmid ? -1 : x->vmid > y->vmid;
}

int serve_scope_add(struct serve_scope *s, const char *cluster, uint32_t vmid) {
  void *p = grow_array(s->guest, s->guest_count + 1, &s->guest_room,
                       sizeof(*s->guest), 8);
  if (p == NULL)
    return -ENOMEM;
  s->guest = p;
  struct serve_scope_guest *g = &s->guest[s->guest_count++];
  memset(g, 0, sizeof(*g));
  g->vmid = vmid;
  snprintf(g->cluster, sizeof(g->cluster), "%s", cluster);
  return 0;
}

void serve_scope_sort(struct serve_scope *s) {
  if (s->guest_count > 1)
    qsort(s->guest, s->guest_count, sizeof(*s->guest), by_cluster_vmid);
}

bool serve_scope_sees(const struct serve_scope *s, const char *cluster,
                      const struct rrd_layout *layout, const char *name) {
  if (s == NULL)
    return true;
  struct serve_scope_guest key = {0};
  /* a guest's files of every layout (its pve file, its legacy and KSM
   * files); no node's */
  if (layout == NULL || layout->kind != RRD_LAYOUT_GUEST ||
      vmid_parse_string(name, &key.vmid) != 0)
    return false;
  snprintf(key.cluster, sizeof(key.cluster), "%s",
           cluster != NULL ? cluster : "");
  return s->guest_count > 0 &&
         bsearch(&key, s->guest, s->guest_count, sizeof(*s->guest),
                 by_cluster_vmid) != NULL;
}

void serve_scope_free(struct serve_scope *s) {
  if (s == NULL)
    return;
  free(s->guest);
  free(s->pool);
  free(s);
}

/* ---- the words ----------------------------------------------------------- */

struct text {
  const char *p;
  size_t n;
};

static bool blank(char c) { return c == ' ' || c == '\t'; }

/* The next word of *rest (moved past it); false when only blanks are
 * left. */
static bool next_word(struct text *rest, struct text *ret) {
  while (rest->n > 0 && blank(rest->p[0])) {
    rest->p++;
    rest->n--;
  }
  if (rest->n == 0)
    return false;
  size_t n = 0;
  while (n < rest->n && !blank(rest->p[n]))
    n++;
  *ret = (struct text){rest->p, n};
  rest->p += n;
  rest->n -= n;
  return true;
}

static bool pool_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

/* Proxmox's pool id: [A-Za-z0-9.-_]+ in one to three parts split by '/'. */
static bool pool_name(struct text t) {
  size_t parts = 1, part_len = 0;
  if (t.n == 0 || t.n > SERVE_POOL_NAME_MAX)
    return false;
  for (size_t i = 0; i < t.n; i++) {
    if (t.p[i] == '/') {
      if (part_len == 0 || ++parts > 3)
        return false;
      part_len = 0;
    } else if (pool_char(t.p[i])) {
      part_len++;
    } else {
      return false;
    }
  }
  return part_len > 0;
}

/* An item's cluster: what follows its first '@' ("" without one), cut
 * off *item.  NULL, or why it cannot name a cluster. */
static const char *take_cluster(struct text *item, char *ret, size_t size) {
  const char *at = memchr(item->p, '@', item->n);
  ret[0] = '\0';
  if (at == NULL)
    return NULL;
  size_t n = (size_t)(item->p + item->n - at - 1);
  if (n == 0 || n >= size)
    return "its cluster is empty or too long";
  memcpy(ret, at + 1, n);
  ret[n] = '\0';
  item->n = (size_t)(at - item->p);
  return rrd_cluster_name_problem(ret) != NULL ? "it names no possible cluster"
                                               : NULL;
}

static int add_pool(struct serve_scope *s, struct text name,
                    const char *cluster) {
  void *p = grow_array(s->pool, s->pool_count + 1, &s->pool_room,
                       sizeof(*s->pool), 4);
  if (p == NULL)
    return -ENOMEM;
  s->pool = p;
  struct serve_scope_pool *pool = &s->pool[s->pool_count++];
  memset(pool, 0, sizeof(*pool));
  memcpy(pool->name, name.p, name.n);
  snprintf(pool->cluster, sizeof(pool->cluster), "%s", cluster);
  return 0;
}

/* One item of a vmids= or pools= word; 0, -ENOMEM, or -EINVAL with *wrong
 * saying why. */
static int take_item(struct serve_scope *s, bool pools, struct text item,
                     const char **wrong) {
  char cluster[RRD_FILE_NAME_MAX + 1];
  uint32_t vmid;
  *wrong = item.n == 0 ? "it is empty"
                       : take_cluster(&item, cluster, sizeof(cluster));
  if (*wrong != NULL)
    return -EINVAL;
  if (pools) {
    *wrong = pool_name(item) ? NULL : "it is not a Proxmox pool name";
    return *wrong != NULL ? -EINVAL : add_pool(s, item, cluster);
  }
  if (vmid_parse(item.p, item.n, &vmid) != 0) {
    *wrong = "it is not a VMID (100 to 999999999)";
    return -EINVAL;
  }
  return serve_scope_add(s, cluster, vmid);
}

/* One word; 0, -ENOMEM, or -EINVAL with why filled. */
static int take_word(struct serve_scope *s, struct text w, unsigned number,
                     char *why, size_t why_size) {
  bool pools = w.n >= 6 && memcmp(w.p, "pools=", 6) == 0;
  if (!pools && !(w.n >= 6 && memcmp(w.p, "vmids=", 6) == 0)) {
    snprintf(why, why_size,
             "scope word %u is neither vmids=VMID,... nor pools=POOL,...",
             number);
    return -EINVAL;
  }
  struct text list = {w.p + 6, w.n - 6};
  unsigned item_number = 0;
  for (;;) {
    const char *comma = memchr(list.p, ',', list.n);
    size_t n = comma != NULL ? (size_t)(comma - list.p) : list.n;
    const char *wrong;
    item_number++;
    int r = take_item(s, pools, (struct text){list.p, n}, &wrong);
    if (r == -EINVAL)
      snprintf(why, why_size, "scope word %u (%s), item %u: %s", number,
               pools ? "pools" : "vmids", item_number, wrong);
    if (r != 0 || comma == NULL)
      return r;
    list.p += n + 1;
    list.n -= n + 1;
  }
}

/* Visible ASCII words between blanks: no control character can hide in
 * a scope, as none can in a secret. */
static bool printable(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!blank(p[i]) && (p[i] <= ' ' || p[i] > '~'))
      return false;
  return true;
}

int serve_scope_parse(const char *text, size_t n, struct serve_scope **ret,
                      char *why, size_t why_size) {
  struct text rest = {text, n}, w;
  *ret = NULL;
  if (!printable(text, n)) {
    snprintf(why, why_size,
             "it holds a space, a control character or a "
             "byte that is not ASCII");
    return -EINVAL;
  }
  if (!next_word(&rest, &w))
    return 0;
  struct serve_scope *s = calloc(1, sizeof(*s));
  if (s == NULL)
    return -ENOMEM;
  int r = 0;
  unsigned number = 0;
  do
    r = take_word(s, w, ++number, why, why_size);
  while (r == 0 && next_word(&rest, &w));
  if (r != 0) {
    serve_scope_free(s);
    return r;
  }
  serve_scope_sort(s);
  *ret = s;
  return 0;
}
