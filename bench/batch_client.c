/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A minimal BATCH client (see batch_client.h): one request text per
 * interval, written whole, and the answer read to its last line.
 */
#include "batch_client.h"

#include "proc_usage.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct client {
  int fd;
  char in[65536];
  size_t in_len;
};

static int send_all(int fd, const char *p, size_t len) {
  while (len > 0) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -errno;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

/* The next answer line, without its '\n'. */
static int read_line(struct client *c, char *line, size_t size) {
  for (;;) {
    char *nl = memchr(c->in, '\n', c->in_len);
    if (nl != NULL) {
      size_t n = (size_t)(nl - c->in);
      snprintf(line, size, "%.*s", (int)n, c->in);
      memmove(c->in, nl + 1, c->in_len - n - 1);
      c->in_len -= n + 1;
      return 0;
    }
    if (c->in_len == sizeof(c->in))
      return -EPROTO;
    ssize_t r = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, 0);
    if (r <= 0)
      return r == 0 ? -ECONNRESET : -errno;
    c->in_len += (size_t)r;
  }
}

/* "BATCH", the rows, ".", then "<n> errors" and n lines. */
static int exchange(struct client *c, const char *rows, size_t len,
                    size_t *refused) {
  char line[1024];
  int r = send_all(c->fd, "BATCH\n", 6);
  if (r == 0)
    r = read_line(c, line, sizeof(line)); /* "0 Go ahead. ..." */
  if (r == 0 && line[0] != '0')
    return -EPROTO;
  if (r == 0)
    r = send_all(c->fd, rows, len);
  if (r == 0)
    r = send_all(c->fd, ".\n", 2);
  if (r == 0)
    r = read_line(c, line, sizeof(line));
  long errors = r == 0 ? strtol(line, NULL, 10) : 0;
  for (long i = 0; r == 0 && i < errors; i++)
    r = read_line(c, line, sizeof(line));
  *refused += errors > 0 ? (size_t)errors : 0;
  return r;
}

static int connect_unix(const char *path) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* The rows of one interval, as "UPDATE <path> <t>:<17 values>" lines. */
static char *interval_rows(const char *dir, time_t t, size_t *len) {
  char *text = NULL;
  FILE *out = open_memstream(&text, len);
  DIR *d = opendir(dir);
  struct dirent *e;
  while (out != NULL && d != NULL && (e = readdir(d)) != NULL)
    if (e->d_name[0] != '.')
      fprintf(out,
              "UPDATE %s/%s %lld:4:%.17g:U:%lld:U:U:%lld:%lld:U:U:%lld:%.17g"
              ":U:U:U:U:U\n",
              dir, e->d_name, (long long)t, (double)(t % 100) / 100,
              (long long)(1ll << 30) + t % 4096, (long long)t * 1000,
              (long long)t * 1000, (long long)(1ll << 30) + t % 4096,
              (double)(t % 10) / 4);
  if (d != NULL)
    closedir(d);
  if (out != NULL)
    fclose(out);
  return text;
}

static double thread_cpu_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double daemon_cpu_us(pid_t pid) {
  struct proc_cpu cpu;
  return proc_cpu_read(pid, &cpu) == 0 ? (double)cpu.runtime_ns / 1e3 : 0;
}

int batch_client_run(const char *socket, pid_t daemon_pid, const char *data_dir,
                     unsigned intervals, time_t after,
                     struct batch_client_result *ret) {
  char dir[4096];
  struct client *c = calloc(1, sizeof(*c));
  snprintf(dir, sizeof(dir), "%s/pve-vm-9.0", data_dir);
  *ret = (struct batch_client_result){0};
  if (c == NULL || (c->fd = connect_unix(socket)) < 0) {
    free(c);
    return -ECONNREFUSED;
  }
  double me0 = thread_cpu_us(), daemon0 = daemon_cpu_us(daemon_pid);
  size_t rows = 0;
  int r = 0;
  for (unsigned i = 1; r == 0 && i <= intervals; i++) {
    size_t len = 0;
    char *text = interval_rows(dir, after + (time_t)i, &len);
    for (const char *p = text; p != NULL && p < text + len; p++)
      rows += *p == '\n';
    r = text != NULL ? exchange(c, text, len, &ret->refused) : -ENOMEM;
    free(text);
  }
  if (rows > 0) {
    ret->client_us = (thread_cpu_us() - me0) / (double)rows;
    ret->daemon_us = (daemon_cpu_us(daemon_pid) - daemon0) / (double)rows;
  }
  close(c->fd);
  free(c);
  return r;
}
