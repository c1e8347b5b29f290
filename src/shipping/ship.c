/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `pvecg ship` (see ship.h): the state directory's lock, the passes, and
 * in each pass the rounds over the files, each file's rows after its
 * cursor through the export's own code.
 */
#include "ship_internal.h"

#include "pvecg/rrd_direct.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define GUESTS_RELOAD 600        /* s between two readings of /etc/pve */
#define RECHECK_SECONDS 600      /* s between whole checks of a kept header */
#define GUESTS_UNKNOWN_RELOAD 60 /* s, while a guest is unknown */

/* One shipper per state directory: a second one would send the same rows
 * and overwrite the first one's cursors. */
static int lock_dir(struct ship *sh, int *fd) {
  char path[PATH_MAX];
  const char *dir = sh->o->state_dir;
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
    int r = -errno;
    ship_log(sh, "%s: %s", dir, strerror(errno));
    return r;
  }
  snprintf(path, sizeof(path), "%s/lock", dir);
  *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (*fd < 0) {
    int r = -errno;
    ship_log(sh, "%s: %s", path, strerror(errno));
    return r;
  }
  if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = "";
    ssize_t n = pread(*fd, pid, sizeof(pid) - 1, 0);
    pid[n > 0 ? n : 0] = '\0';
    pid[strcspn(pid, "\n")] = '\0';
    ship_log(sh, "%s is in use by another pvecg ship (pid %s)", dir,
             pid[0] ? pid : "unknown");
    close(*fd);
    *fd = -1;
    return -EBUSY;
  }
  char pid[32];
  int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
  if (ftruncate(*fd, 0) != 0 || pwrite(*fd, pid, (size_t)n, 0) != n)
    ship_log(sh, "%s: cannot note the pid: %s", path, strerror(errno));
  return 0;
}

/* Whether the file is as it was when all its rows were read: nothing new
 * in it.  A kept file tells by its last update and row pointers, read
 * here for the export that follows (one read, where a stat and then the
 * read would be two system calls); another by its mtime.  Through a
 * daemon the rows it holds do not touch the file, so there every pass
 * asks. */
static bool unchanged(struct ship *sh, struct ship_entry *e) {
  if (sh->o->run.daemon != NULL)
    return false;
  bool all_read =
      e->checked && (e->read_mtime.tv_sec != 0 || e->read_mtime.tv_nsec != 0);
  if (e->kept != NULL) {
    bool moved = true;
    if (rrd_direct_refresh(e->kept, RECHECK_SECONDS, &moved) == 0)
      return all_read && !moved;
    ship_drop_kept(sh, e); /* read by its path instead */
    return false;
  }
  return all_read && e->mtime.tv_sec == e->read_mtime.tv_sec &&
         e->mtime.tv_nsec == e->read_mtime.tv_nsec;
}

/* The file the export kept open (or closed) for the entry, counted. */
static void keep(struct ship *sh, struct ship_entry *e,
                 struct rrd_direct *kept) {
  sh->kept += (kept != NULL) - (e->kept != NULL);
  e->kept = kept;
}

/* One file's rows after its cursor, at most row_limit of them, into the
 * batch.  Returns 1 when it has more, 0, or a send's error. */
static int ship_file(struct ship *sh, const struct export_file *f,
                     struct ship_entry *e) {
  char why[SHIP_ERR_SIZE] = "";
  if (unchanged(sh, e))
    return 0;
  struct export_resume resume = {.counter = e->next.counter,
                                 .row_limit = sh->o->row_limit,
                                 .layout_checked = e->checked,
                                 .kept = e->kept,
                                 .keep_new = sh->kept < sh->o->keep_files};
  size_t start = ship_batch_offset(sh);
  int r =
      export_run_resume(&sh->o->run, f, e->next.t, &resume, why, sizeof(why));
  keep(sh, e, resume.kept);
  if (r < 0) {
    ship_log_problem(sh, e, r, why);
    e->checked = false;
    sh->guests_unknown |= r == -ENOENT; /* its configuration, maybe */
    return 0;
  }
  e->problem = 0;
  e->checked = true;
  sh->dirty |= e->last_update != resume.last_update;
  e->last_update = resume.last_update;
  if (resume.last_update < e->next.t) {
    ship_restart(sh, e, "its last update is older than its cursor");
    return 1;
  }
  bool more = resume.rows >= sh->o->row_limit;
  e->read_mtime = more ? (struct timespec){0} : e->mtime;
  if (resume.rows == 0)
    return 0;
  e->next = (struct ship_mark){resume.last_row, resume.counter};
  if (ship_batch_add(sh, e, &e->next, resume.known, start) < 0)
    return -ENOMEM;
  if (ship_batch_full(sh) && (r = ship_batch_send(sh)) < 0)
    return r;
  return more;
}

/* Rounds over every file until none has rows left, oldest rows first. */
static int rounds(struct ship *sh) {
  int more;
  do {
    more = 0;
    for (size_t i = 0; i < sh->files.count && !*sh->o->stop; i++) {
      int r = ship_file(sh, &sh->files.file[i], sh->entry_of[i]);
      if (r < 0)
        return r;
      more |= r;
    }
  } while (more && !*sh->o->stop);
  return ship_batch_finish(sh);
}

/* How far behind the files the store is: the oldest newest-row not yet
 * acknowledged, over the files. */
static time_t lag(const struct ship *sh) {
  time_t worst = 0;
  for (size_t i = 0; i < sh->state.count; i++) {
    const struct ship_entry *e = &sh->state.entry[i];
    time_t newest = e->last_update / 60 * 60; /* the layouts' step */
    if (e->acked.t < newest && newest - e->acked.t > worst)
      worst = newest - e->acked.t;
  }
  return worst;
}

/* Who the guests are (/etc/pve): read again when a file appeared or was
 * replaced, every minute while a guest is not known, and every ten
 * minutes (a renamed guest); not every pass, which would read every
 * configuration each minute. */
static void reload_guests(struct ship *sh, time_t now) {
  time_t age = now - sh->guests_loaded_at;
  if (sh->o->run.names != EXPORT_NAMES_PVE ||
      (sh->guests != NULL && !sh->guests_stale && age < GUESTS_RELOAD &&
       !(sh->guests_unknown && age >= GUESTS_UNKNOWN_RELOAD)))
    return;
  if (sh->guests == NULL)
    sh->guests = guest_directories_new(sh->o->config_dir);
  else
    guest_directories_forget(sh->guests); /* each read again when asked */
  if (sh->guests == NULL)
    return; /* out of memory: nobody is known yet */
  sh->o->run.guest_dirs = sh->guests;
  sh->guests_stale = sh->guests_unknown = false;
  sh->guests_loaded_at = now;
}

/* One pass: 0 when everything went, else the failure's error. */
static int pass(struct ship *sh) {
  time_t now = time(NULL);
  sh->o->run.until = now;
  int r = ship_scan(sh, now); /* says what went wrong */
  if (r == 0 && ship_answer_may_send(sh)) {
    ship_answer_try_larger(sh);
    reload_guests(sh, now);
    sh->skips_logged = 0;
    r = ship_batch_open(sh);
    if (r == 0)
      r = rounds(sh);
    if (r == -ENOMEM)
      ship_log(sh, "out of memory");
    else if (r != -ECANCELED) /* a stop says nothing of the store */
      ship_answer_pass(sh, r);
  } else if (r == 0) {
    r = sh->state.stats.condition == SHIP_REFUSED ? -EPROTO : -EAGAIN;
  }
  time_t behind = lag(sh);
  sh->dirty |= behind != sh->state.stats.lag;
  sh->state.stats.lag = behind;
  /* Acknowledged rows saved the state already: a pass that changed
   * nothing else writes nothing. */
  if (sh->dirty)
    ship_save(sh);
  return r;
}

/* Sleeps until the next multiple of the interval, or a signal. */
static void wait_interval(const struct ship *sh) {
  time_t now = time(NULL), iv = (time_t)sh->o->interval;
  struct timespec ts = {iv - now % iv, 0};
  while (!*sh->o->stop && nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

static int load(struct ship *sh) {
  char err[SHIP_ERR_SIZE] = "";
  struct ship_options *o = sh->o;
  ship_state_id(o->identity, sh->state.id);
  snprintf(sh->state.target, sizeof(sh->state.target), "%s", o->to);
  int r = ship_state_load(o->state_dir, &sh->state, err, sizeof(err));
  if (r == 2)
    ship_log(sh, "%s", err);
  else if (r < 0)
    ship_log(sh, "%s", err[0] ? err : strerror(-r));
  for (size_t i = 0; r >= 0 && i < sh->state.count; i++)
    sh->state.entry[i].next = sh->state.entry[i].acked;
  return r < 0 ? r : 0;
}

/* A size a 413 taught an earlier run is a hint; --batch-bytes given on
 * the command line wins over it. */
static void start_cap(struct ship *sh) {
  struct ship_options *o = sh->o;
  size_t kept = (size_t)sh->state.stats.batch_cap;
  if (ship_cap_start(&sh->cap, o->run.batch_max, kept, o->batch_given,
                     time(NULL)) == SHIP_CAP_GIVEN)
    ship_log(sh,
             "--batch-bytes %zu is used, not the %zu bytes the state kept "
             "from a 413; a 413 lowers it again",
             o->run.batch_max, kept);
  ship_answer_apply_cap(sh);
}

static int run(struct ship *sh) {
  struct ship_options *o = sh->o;
  int r = load(sh);
  if (r < 0)
    return r;
  /* The shipper posts through a sender of its own, so the export would
   * take it for a line listener's 64 KiB: over HTTP a request carries what
   * --batch-bytes promises, and a pass of new rows is one batch, one save
   * of the state, not one per 64 KiB. */
  if (o->http && o->run.batch_max == 0)
    o->run.batch_max = EXPORT_HTTP_BATCH_BYTES;
  if (o->http)
    start_cap(sh);
  if (o->run.format == EXPORT_REMOTE_WRITE) {
    o->run.remote_post = ship_batch_post_request;
    o->run.remote_ctx = sh;
  }
  o->run.out = sh->out = open_memstream(&sh->text, &sh->text_len);
  if (sh->out == NULL || export_run_begin(&o->run) < 0) {
    ship_log(sh, "cannot start: out of memory or a bad --daemon");
    return -ENOMEM;
  }
  ship_log(sh, "shipping %s to %s every %u s (state %s/%s.state)",
           o->run.data_dir, o->to, o->interval, o->state_dir, sh->state.id);
  int status = 0;
  while (!*o->stop) {
    r = pass(sh);
    if (o->once) {
      status = r < 0 ? 1 : 0;
      break;
    }
    wait_interval(sh);
  }
  char err[SHIP_ERR_SIZE];
  export_run_end(&o->run, err, sizeof(err));
  return status;
}

int ship_main(struct ship_options *o) {
  struct ship sh = {.o = o};
  int fd = -1;
  int r = lock_dir(&sh, &fd);
  if (r == 0)
    r = run(&sh);
  ship_batch_close(&sh);
  if (sh.out != NULL)
    fclose(sh.out);
  free(sh.text);
  free(sh.inflight.item);
  free(sh.building.item);
  export_files_free(&sh.files);
  export_dirs_free(&sh.dirs);
  free(sh.entry_of);
  guest_directories_free(sh.guests);
  for (size_t i = 0; i < sh.state.count; i++)
    ship_drop_kept(&sh, &sh.state.entry[i]);
  ship_state_free(&sh.state);
  if (fd >= 0)
    close(fd);
  return r;
}
