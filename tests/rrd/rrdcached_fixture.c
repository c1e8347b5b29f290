/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A real rrdcached per test (see rrdcached_fixture.h).
 */
#include "rrdcached_fixture.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define RRDCACHED "/usr/bin/rrdcached"

bool rrdcached_available(void) { return access(RRDCACHED, X_OK) == 0; }

static void die(const char *what) {
  fprintf(stderr, "rrdcached fixture: %s: %s\n", what, strerror(errno));
  abort();
}

/* A port nobody listens on now (the daemon binds it a moment later). */
static int free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sa = {.sin_family = AF_INET};
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(sa);
  if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
      getsockname(fd, (struct sockaddr *)&sa, &len) != 0)
    die("free port");
  close(fd);
  return ntohs(sa.sin_port);
}

void rrdcached_prepare(struct rrdcached *d, const char *dir, bool tcp) {
  memset(d, 0, sizeof(*d));
  snprintf(d->dir, sizeof(d->dir), "%s", dir);
  snprintf(d->db, sizeof(d->db), "%s/db", dir);
  char journal[300];
  snprintf(journal, sizeof(journal), "%s/journal", dir);
  if ((mkdir(d->db, 0755) != 0 && errno != EEXIST) ||
      (mkdir(journal, 0755) != 0 && errno != EEXIST))
    die("mkdir");
  d->tcp = d->recursive = tcp;
  if (tcp)
    snprintf(d->address, sizeof(d->address), "127.0.0.1:%d", free_port());
  else
    snprintf(d->address, sizeof(d->address), "unix:%s/sock", dir);
}

static bool accepts(const struct rrdcached *d) {
  int fd;
  int r;
  if (d->tcp) {
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)atoi(strchr(d->address, ':') + 1));
    fd = socket(AF_INET, SOCK_STREAM, 0);
    r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
  } else {
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", d->address + 5);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
  }
  close(fd);
  return r == 0;
}

void rrdcached_start(struct rrdcached *d) {
  char listen[340], pid[300], journal[300];
  snprintf(listen, sizeof(listen), "%s", d->address);
  snprintf(pid, sizeof(pid), "%s/pid", d->dir);
  snprintf(journal, sizeof(journal), "%s/journal", d->dir);
  unlink(pid);
  pid_t child = fork();
  if (child < 0)
    die("fork");
  if (child == 0) {
    /* -R: over TCP the daemon makes the layout directories itself */
    char *argv[] = {"rrdcached", "-g",  "-l",    listen,
                    "-b",        d->db, "-B",    "-p",
                    pid,         "-j",  journal, d->recursive ? "-R" : NULL,
                    NULL};
    /* A test that aborts (a sanitizer, a failed assert) takes its daemon
     * with it, and the daemon holds none of ctest's pipes: otherwise ctest
     * would wait for them to close as long as the daemon ran. */
    char log[400];
    snprintf(log, sizeof(log), "%s/rrdcached.log", d->dir);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
        freopen("/dev/null", "w", stdout) == NULL ||
        freopen(log, "a", stderr) == NULL)
      _exit(127);
    execv(RRDCACHED, argv);
    _exit(127);
  }
  d->pid = child;
  for (int i = 0; i < 500 && !accepts(d); i++)
    usleep(10000);
  if (!accepts(d))
    die("rrdcached does not accept connections");
}

void rrdcached_stop(struct rrdcached *d) {
  if (d->pid <= 0)
    return;
  kill(d->pid, SIGCONT);
  kill(d->pid, SIGTERM);
  waitpid(d->pid, NULL, 0);
  d->pid = 0;
}

void rrdcached_kill(struct rrdcached *d) {
  if (d->pid <= 0)
    return;
  kill(d->pid, SIGKILL);
  waitpid(d->pid, NULL, 0);
  d->pid = 0;
}

/* Whether every thread of pid is stopped ('T' in /proc/<pid>/task/<tid>/stat):
 * kill() only starts a group stop, which a thread in the middle of a request
 * may not have joined yet. */
static bool all_stopped(pid_t pid) {
  char dir[64];
  snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
  DIR *tasks = opendir(dir);
  bool stopped = tasks != NULL;
  for (struct dirent *t; stopped && (t = readdir(tasks)) != NULL;) {
    if (t->d_name[0] == '.')
      continue;
    char path[400], line[512];
    snprintf(path, sizeof(path), "%s/%s/stat", dir, t->d_name);
    FILE *f = fopen(path, "r");
    char *end =
        f != NULL && fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
    stopped = end != NULL && end[1] == ' ' && end[2] == 'T';
    if (f != NULL)
      fclose(f);
  }
  if (tasks != NULL)
    closedir(tasks);
  return stopped;
}

void rrdcached_freeze(struct rrdcached *d) {
  kill(d->pid, SIGSTOP);
  for (int i = 0; i < 500 && !all_stopped(d->pid); i++)
    usleep(1000);
}
void rrdcached_thaw(struct rrdcached *d) { kill(d->pid, SIGCONT); }

/* Calls each(line, ctx) for the journal's lines "update <path> <row>" of
 * path, oldest journal file first. */
static int by_name(const struct dirent **a, const struct dirent **b) {
  return strcmp((*a)->d_name, (*b)->d_name);
}

static void for_each_row(const struct rrdcached *d, const char *path,
                         void (*each)(const char *row, void *ctx), void *ctx) {
  char dir[300];
  snprintf(dir, sizeof(dir), "%s/journal", d->dir);
  struct dirent **names;
  int n = scandir(dir, &names, NULL, by_name);
  char prefix[600];
  snprintf(prefix, sizeof(prefix), "update %s ", path);
  for (int i = 0; i < n; i++) {
    char file[600];
    snprintf(file, sizeof(file), "%s/%s", dir, names[i]->d_name);
    FILE *f = names[i]->d_name[0] != '.' ? fopen(file, "r") : NULL;
    char line[4096];
    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
      line[strcspn(line, "\n")] = '\0';
      if (strncmp(line, prefix, strlen(prefix)) == 0)
        each(line + strlen(prefix), ctx);
    }
    if (f != NULL)
      fclose(f);
    free(names[i]);
  }
  if (n >= 0)
    free(names);
}

struct times {
  time_t *times;
  size_t count, max;
  time_t last;
};

/* The journal lists refused updates too (rrdcached writes it before it
 * checks): a row not newer than the one accepted before it was refused. */
static void add_time(const char *row, void *ctx) {
  struct times *t = ctx;
  time_t at = (time_t)strtoll(row, NULL, 10);
  if (t->count > 0 && at <= t->last)
    return;
  if (t->count < t->max)
    t->times[t->count] = at;
  t->last = at;
  t->count++;
}

size_t rrdcached_journal_times(const struct rrdcached *d, const char *path,
                               time_t *times, size_t max) {
  struct times t = {times, 0, max, 0};
  for_each_row(d, path, add_time, &t);
  return t.count;
}

struct find_row {
  time_t t;
  char *buf;
  size_t size;
};

/* The first row at that time: a later one at the same time was refused. */
static void match_row(const char *row, void *ctx) {
  struct find_row *f = ctx;
  if (f->buf[0] == '\0' && (time_t)strtoll(row, NULL, 10) == f->t)
    snprintf(f->buf, f->size, "%s", row);
}

void rrdcached_journal_row(const struct rrdcached *d, const char *path,
                           time_t t, char *buf, size_t size) {
  buf[0] = '\0';
  struct find_row f = {t, buf, size};
  for_each_row(d, path, match_row, &f);
}
