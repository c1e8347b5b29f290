/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tokens as their files say now (see serve_tokens_live.h): a
 * read-write lock, held for reading by each request from its token check
 * to its answer, and for writing only for the moment the new tokens take
 * the old ones' place; the files' stamps, compared under a mutex that a
 * request only tries, so no request ever waits for another's look.
 */
#include "serve_tokens_live.h"

#include "serve_scope.h"
#include "serve_secure.h"
#include "serve_token_file.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WATCHED_MAX 64 /* the token file and the user.cfg files of pools */

struct stamp {
  char path[PATH_MAX + 32];
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime;
  bool present;
};

struct serve_tokens_live {
  pthread_rwlock_t lock; /* tokens */
  struct serve_tokens tokens;
  pthread_mutex_t looking; /* the rest */
  const struct serve_config *config;
  const char *path;
  FILE *log;
  double next_look;
  struct stamp watched[WATCHED_MAX];
  size_t watched_count;
  bool bad_logged; /* the files do not read: logged once */
};

static void stamp_take(struct stamp *s) {
  struct stat st;
  s->present = stat(s->path, &st) == 0;
  s->dev = s->present ? st.st_dev : 0;
  s->ino = s->present ? st.st_ino : 0;
  s->size = s->present ? st.st_size : 0;
  s->mtime = s->present ? st.st_mtim : (struct timespec){0};
}

static bool stamp_moved(const struct stamp *s) {
  struct stamp now = *s;
  stamp_take(&now);
  return now.present != s->present || now.dev != s->dev || now.ino != s->ino ||
         now.size != s->size || now.mtime.tv_sec != s->mtime.tv_sec ||
         now.mtime.tv_nsec != s->mtime.tv_nsec;
}

static void watch(struct serve_tokens_live *l, const char *path) {
  for (size_t i = 0; i < l->watched_count; i++)
    if (strcmp(l->watched[i].path, path) == 0)
      return;
  struct stamp *s = &l->watched[l->watched_count];
  if (l->watched_count == WATCHED_MAX || strlen(path) >= sizeof(s->path))
    return;
  memcpy(s->path, path, strlen(path) + 1);
  l->watched_count++;
  stamp_take(s);
}

/* The files the tokens come from: the token file, and the user.cfg of
 * every cluster a scope names a pool of. */
static void watch_files(struct serve_tokens_live *l) {
  l->watched_count = 0;
  watch(l, l->path);
  for (size_t i = 0; i < l->tokens.count; i++) {
    const struct serve_scope *sc = l->tokens.item[i].scope;
    for (size_t p = 0; sc != NULL && p < sc->pool_count; p++) {
      char cfg[PATH_MAX + 16];
      if (serve_secure_pool_file(l->config, sc->pool[p].cluster, cfg,
                                 sizeof(cfg)) == 0)
        watch(l, cfg);
    }
  }
}

int serve_tokens_live_new(const struct serve_config *config, const char *path,
                          struct serve_tokens *tokens, FILE *log,
                          struct serve_tokens_live **ret) {
  struct serve_tokens_live *l = calloc(1, sizeof(*l));
  if (l == NULL)
    return -ENOMEM;
  /* a reload is not starved by a stream of requests */
  pthread_rwlockattr_t attr;
  pthread_rwlockattr_init(&attr);
  pthread_rwlockattr_setkind_np(&attr,
                                PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  pthread_rwlock_init(&l->lock, &attr);
  pthread_rwlockattr_destroy(&attr);
  pthread_mutex_init(&l->looking, NULL);
  l->config = config;
  l->path = path;
  l->log = log;
  l->tokens = *tokens;
  *tokens = (struct serve_tokens){0};
  watch_files(l);
  *ret = l;
  return 0;
}

void serve_tokens_live_free(struct serve_tokens_live *l) {
  if (l == NULL)
    return;
  serve_tokens_free(&l->tokens);
  pthread_rwlock_destroy(&l->lock);
  pthread_mutex_destroy(&l->looking);
  free(l);
}

/* Under looking: the files anew, in place of the tokens when they read. */
static void reload(struct serve_tokens_live *l) {
  struct serve_tokens fresh = {0};
  char err[512];
  if (serve_secure_tokens(l->config, l->path, &fresh, err, sizeof(err)) != 0) {
    if (!l->bad_logged)
      fprintf(l->log,
              "pvecg serve: %s; the tokens and scopes read last stay until "
              "the files read again\n",
              err);
    l->bad_logged = true;
    watch_files(l); /* the same files: not tried again until they change */
    return;
  }
  pthread_rwlock_wrlock(&l->lock);
  struct serve_tokens old = l->tokens;
  l->tokens = fresh;
  pthread_rwlock_unlock(&l->lock);
  serve_tokens_free(&old);
  fprintf(l->log, "pvecg serve: %s and the pools it names read anew\n",
          l->path);
  l->bad_logged = false;
  watch_files(l);
}

void serve_tokens_live_check(struct serve_tokens_live *l, double now) {
  if (pthread_mutex_trylock(&l->looking) != 0)
    return; /* another request is looking */
  if (now >= l->next_look) {
    l->next_look = now + SERVE_TOKENS_RECHECK;
    bool moved = false;
    for (size_t i = 0; !moved && i < l->watched_count; i++)
      moved = stamp_moved(&l->watched[i]);
    if (moved)
      reload(l);
  }
  pthread_mutex_unlock(&l->looking);
}

const struct serve_tokens *serve_tokens_live_hold(struct serve_tokens_live *l) {
  pthread_rwlock_rdlock(&l->lock);
  return &l->tokens;
}

void serve_tokens_live_release(struct serve_tokens_live *l) {
  pthread_rwlock_unlock(&l->lock);
}
