/*
 * The store's hash table of entries, one per (layout, name), chained in
 * buckets whose count doubles when there are more entries than buckets.
 * Entries live until the store is freed (rrd_store.c), so a pointer stays
 * valid after the table lock is dropped.
 */
#include "rrd_store_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t entry_hash(const struct rrd_layout *layout, const char *name) {
  uint64_t h = 14695981039346656037ULL; /* FNV-1a */
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    h = (h ^ *p) * 1099511628211ULL;
  return (size_t)(h ^ ((uintptr_t)layout * 0x9e3779b97f4a7c15ULL));
}

/* Doubles the table when it is full; a failed allocation only costs speed. */
static void grow(struct rrd_store *store) {
  size_t count = store->bucket_count * 2;
  struct entry **buckets = calloc(count, sizeof(*buckets));
  if (buckets == NULL)
    return;
  for (size_t i = 0; i < store->bucket_count; i++)
    for (struct entry *e = store->buckets[i], *next; e != NULL; e = next) {
      next = e->next;
      size_t b = entry_hash(e->layout, e->name) & (count - 1);
      e->next = buckets[b];
      buckets[b] = e;
    }
  free(store->buckets);
  store->buckets = buckets;
  store->bucket_count = count;
}

static struct entry *entry_new(const struct rrd_store *store,
                               const struct rrd_layout *layout,
                               const char *name) {
  struct entry *e = calloc(1, sizeof(*e));
  if (e == NULL)
    return NULL;
  if (pthread_mutex_init(&e->lock, NULL) != 0) {
    free(e);
    return NULL;
  }
  e->layout = layout;
  snprintf(e->name, sizeof(e->name), "%s", name);
  /* A path that does not fit stays NULL: every row then fails, logged
   * with back-off like any other failure. */
  char path[PATH_MAX];
  if (rrd_store_path(store, layout, name, path, sizeof(path)) == 0) {
    if ((e->path = strdup(path)) == NULL) {
      pthread_mutex_destroy(&e->lock);
      free(e);
      return NULL;
    }
    store_shorten_path(e->path, e->shown, sizeof(e->shown));
  }
  return e;
}

static struct entry *entry_find(struct rrd_store *store,
                                const struct rrd_layout *layout,
                                const char *name, size_t hash) {
  for (struct entry *e = store->buckets[hash & (store->bucket_count - 1)];
       e != NULL; e = e->next)
    if (e->layout == layout && strcmp(e->name, name) == 0)
      return e;
  return NULL;
}

struct entry *store_entry_get(struct rrd_store *store,
                              const struct rrd_layout *layout,
                              const char *name) {
  size_t hash = entry_hash(layout, name);
  pthread_mutex_lock(&store->lock);
  struct entry *e = entry_find(store, layout, name, hash);
  if (e == NULL && (e = entry_new(store, layout, name)) != NULL) {
    size_t b = hash & (store->bucket_count - 1);
    e->next = store->buckets[b];
    store->buckets[b] = e;
    if (++store->entry_count > store->bucket_count)
      grow(store);
  }
  pthread_mutex_unlock(&store->lock);
  return e;
}
