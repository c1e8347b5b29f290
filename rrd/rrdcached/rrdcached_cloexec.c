/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Close-on-exec for librrd's connection to rrdcached (see
 * rrdcached_cloexec.h).  librrd makes its socket without SOCK_CLOEXEC and
 * does not hand out the descriptor, so it is found among the process's
 * descriptors by what it is: a socket without the flag whose peer is the
 * daemon -- the same unix socket path, or a TCP peer on the daemon's port.
 * Runs once per connection, which librrd makes rarely (at start and after
 * the daemon was away), so a walk over /proc/self/fd is cheap enough even
 * with thousands of kept cgroup files open.
 */
#include "rrdcached_cloexec.h"

#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#define RRDCACHED_DEFAULT_PORT 42217 /* librrd's, for "host" alone */

struct daemon_peer {
  const char *unix_path; /* NULL for TCP */
  int port;
};

/* The TCP port of "host", "host:port", "[v6addr]" or "[v6addr]:port". */
static int tcp_port(const char *address) {
  const char *colon = NULL;
  if (address[0] == '[') {
    const char *end = strchr(address, ']');
    colon = end != NULL && end[1] == ':' ? end + 1 : NULL;
  } else {
    colon = strchr(address, ':');
    if (colon != NULL && strchr(colon + 1, ':') != NULL)
      colon = NULL; /* an IPv6 address without brackets and port */
  }
  int port = colon != NULL ? atoi(colon + 1) : 0;
  return port > 0 && port < 65536 ? port : RRDCACHED_DEFAULT_PORT;
}

static bool peer_is_daemon(int fd, const struct daemon_peer *d) {
  /* Zeroed: for an unnamed unix peer getpeername fills only the family,
   * and sun_path must then read as empty, not as what the stack held. */
  struct sockaddr_storage ss = {0};
  socklen_t len = sizeof(ss);
  if (getpeername(fd, (struct sockaddr *)&ss, &len) != 0)
    return false;
  if (d->unix_path != NULL) {
    const struct sockaddr_un *un = (const struct sockaddr_un *)&ss;
    return ss.ss_family == AF_UNIX &&
           strncmp(un->sun_path, d->unix_path, sizeof(un->sun_path)) == 0;
  }
  if (ss.ss_family == AF_INET)
    return ntohs(((const struct sockaddr_in *)&ss)->sin_port) == d->port;
  if (ss.ss_family == AF_INET6)
    return ntohs(((const struct sockaddr_in6 *)&ss)->sin6_port) == d->port;
  return false;
}

/* Whether fd is a socket without close-on-exec: the candidates. */
static bool inheritable_socket(int fd) {
  int flags = fcntl(fd, F_GETFD);
  struct stat st;
  return flags >= 0 && !(flags & FD_CLOEXEC) && fstat(fd, &st) == 0 &&
         S_ISSOCK(st.st_mode);
}

int rrdcached_socket_set_cloexec(const char *address) {
  struct daemon_peer d = {0};
  if (strncmp(address, "unix:", 5) == 0)
    d.unix_path = address + 5;
  else if (address[0] == '/')
    d.unix_path = address;
  else
    d.port = tcp_port(address);
  DIR *dir = opendir("/proc/self/fd");
  if (dir == NULL)
    return -1;
  int marked = 0;
  const struct dirent *de;
  while ((de = readdir(dir)) != NULL) {
    char *end;
    long fd = strtol(de->d_name, &end, 10);
    if (*end != '\0' || end == de->d_name || fd == dirfd(dir))
      continue;
    if (inheritable_socket((int)fd) && peer_is_daemon((int)fd, &d) &&
        fcntl((int)fd, F_SETFD, FD_CLOEXEC) == 0)
      marked++;
  }
  closedir(dir);
  return marked;
}
