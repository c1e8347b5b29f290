/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which files a pass of the shipper reads, and whether each changed: a
 * scan of the data directory, with a cursor for every file found and none
 * for a file gone; or, where no directory it read has changed since
 * (export_dirs.h), the last scan's files again, each not kept open looked
 * at by its path.
 * Rows written into the files change no directory, so a pass with a new
 * row in every file is one of those.  Every ten minutes a scan is made
 * anyway.
 */
#include "ship_internal.h"

#include "pvecg/data_clusters.h"
#include "pvecg/grow.h"
#include "pvecg/rrd_direct.h"
#include "pvecg/rrd_file_name.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SCAN_EVERY 600 /* s: a whole scan at least this often */

/* "<layout>/<name>" for the data directory's own files, as before
 * clusters (so their cursors stay where they were), and
 * "<cluster>/<layout>/<name>" for a named cluster's. */
static void key_of(const struct export_file *f, char *key, size_t size) {
  rrd_cluster_file_path(NULL, f->cluster, f->layout, f->name, key, size);
}

/* Its mtime, not looked at while it was kept, cannot tell what is new. */
void ship_drop_kept(struct ship *sh, struct ship_entry *e) {
  if (e->kept == NULL)
    return;
  rrd_direct_close(e->kept);
  e->kept = NULL;
  e->read_mtime = (struct timespec){0};
  sh->kept--;
}

/* A cursor belongs to one file: another file under the same name (a VMID
 * used again, a file made anew) starts over from its first row. */
void ship_restart(struct ship *sh, struct ship_entry *e, const char *why) {
  ship_log(sh, "%s: %s; shipping it from its first row", e->key, why);
  ship_drop_kept(sh, e);
  e->acked = e->next = e->candidate = (struct ship_mark){0};
  e->checked = false;
  sh->guests_stale = sh->dirty = true;
  e->read_mtime = (struct timespec){0};
}

static bool is_seen(struct ship_entry *e, void *ctx) {
  struct ship *sh = ctx;
  if (!e->seen) {
    ship_log(sh, "%s: gone; its cursor is dropped", e->key);
    ship_drop_kept(sh, e);
    sh->dirty = true;
  }
  return e->seen;
}

/* The file's identity and mtime as the scan's stat saw them. */
static void check_identity(struct ship *sh, struct ship_entry *e,
                           const struct export_file *f) {
  if (!f->stat_known)
    return; /* only a legacy file: it is never made anew */
  bool known = e->dev != 0 || e->ino != 0;
  if (known && (e->dev != f->dev || e->ino != f->ino))
    ship_restart(sh, e, "another file now (made anew or replaced)");
  sh->dirty |= e->dev != f->dev || e->ino != f->ino;
  e->dev = f->dev;
  e->ino = f->ino;
  e->mtime = f->mtime;
}

/* The files now in every cluster's directory (a cluster that appeared
 * since the last pass too), each directory noted before it is read. */
static int scan_files(struct ship *sh) {
  struct ship_options *o = sh->o;
  struct data_clusters c;
  export_files_free(&sh->files);
  sh->files.dirs = &sh->dirs;
  export_dirs_begin(&sh->dirs);
  export_dirs_note(&sh->dirs, o->run.data_dir, -1);
  int r = data_clusters_scan(o->run.data_dir, &c);
  if (r == 0) {
    o->run.clusters_named = data_clusters_named(&c);
    r = export_files_scan_all(&sh->files, o->run.data_dir, &c);
    data_clusters_free(&c);
  }
  return r;
}

/* Each file's entry, for the passes until the next scan (no entry is
 * added or dropped before it). */
static int point_entries(struct ship *sh) {
  struct ship_entry **grown =
      grow_array(sh->entry_of, sh->files.count, &sh->entry_of_capacity,
                 sizeof(*grown), 64);
  if (grown == NULL)
    return -ENOMEM;
  sh->entry_of = grown;
  for (size_t i = 0; i < sh->files.count; i++) {
    char key[SHIP_KEY_SIZE];
    key_of(&sh->files.file[i], key, sizeof(key));
    sh->entry_of[i] = ship_state_find(&sh->state, key);
  }
  return 0;
}

/* A whole scan: a cursor for every file found, none for a file gone. */
static int scan_whole_once(struct ship *sh, time_t now) {
  struct ship_options *o = sh->o;
  int r = scan_files(sh);
  if (r < 0) {
    ship_log(sh, "%s: %s", o->run.data_dir, strerror(-r));
    return r;
  }
  for (size_t i = 0; i < sh->state.count; i++)
    sh->state.entry[i].seen = false;
  for (size_t i = 0; i < sh->files.count; i++) {
    char key[SHIP_KEY_SIZE];
    key_of(&sh->files.file[i], key, sizeof(key));
    struct ship_entry *e = ship_state_find(&sh->state, key);
    bool fresh = e == NULL;
    if (fresh && (e = ship_state_add(&sh->state, key)) == NULL)
      return -ENOMEM;
    if (fresh) {
      sh->dirty = true;
      e->acked.t = e->next.t = o->since;
      sh->guests_stale = true; /* a new guest, maybe */
    }
    e->seen = true;
    check_identity(sh, e, &sh->files.file[i]);
  }
  ship_state_retain(&sh->state, is_seen, sh);
  sh->scanned_at = now;
  return point_entries(sh);
}

/* The last scan's files again, each one's stat taken anew, but a kept
 * file's: its header tells what is new in it (ship.c), and the scan of
 * its directory whether another file took its name.  -ESTALE when one
 * cannot be: then a whole scan says what is there. */
static int scan_again(struct ship *sh) {
  for (size_t i = 0; i < sh->files.count; i++) {
    struct export_file *f = &sh->files.file[i];
    struct ship_entry *e = sh->entry_of[i];
    struct stat st;
    char path[PATH_MAX];
    if (!f->stat_known || e->kept != NULL)
      continue;
    if (rrd_cluster_file_path(sh->o->run.data_dir, f->cluster, f->layout,
                              f->name, path, sizeof(path)) < 0 ||
        fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode))
      return -ESTALE;
    f->dev = (uint64_t)st.st_dev;
    f->ino = (uint64_t)st.st_ino;
    f->mtime = st.st_mtim;
    check_identity(sh, e, f);
  }
  return 0;
}

/* One that failed part of the way leaves a list the directories' marks
 * must not vouch for: the next pass scans again. */
static int scan_whole(struct ship *sh, time_t now) {
  int r = scan_whole_once(sh, now);
  if (r < 0)
    sh->dirs.complete = false;
  return r;
}

int ship_scan(struct ship *sh, time_t now) {
  if (sh->files.dirs != NULL && now - sh->scanned_at < SCAN_EVERY &&
      now >= sh->scanned_at && export_dirs_unchanged(&sh->dirs) &&
      scan_again(sh) == 0)
    return 0;
  return scan_whole(sh, now);
}
