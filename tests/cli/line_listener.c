/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * line_listener tcp|udp|tcp-stall PORTFILE OUTFILE: a stand-in for a
 * Graphite/InfluxDB listener, for the `pvecg export --to` tests.
 *
 * Listens on 127.0.0.1 on a free port and writes the port number to
 * PORTFILE (through a rename, so a reader never sees half of it).
 *   tcp        accepts one connection and writes everything it receives to
 *              OUTFILE until the sender closes; then exits 0.
 *   udp        writes every datagram to OUTFILE as it arrives and its size,
 *              one a line, to OUTFILE.sizes; runs until killed.
 *   tcp-stall  accepts one connection and never reads from it (with a small
 *              receive buffer, so the sender's fills quickly); runs until
 *              killed.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define DATAGRAM_MAX 65536

static void die(const char *what) {
  perror(what);
  exit(1);
}

static int listen_on(int type, int rcvbuf) {
  int fd = socket(AF_INET, type, 0);
  if (fd < 0)
    die("socket");
  if (rcvbuf > 0 &&
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) < 0)
    die("SO_RCVBUF");
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
    die("bind");
  if (type == SOCK_STREAM && listen(fd, 1) < 0)
    die("listen");
  return fd;
}

static void write_port(int fd, const char *port_file) {
  struct sockaddr_in a;
  socklen_t len = sizeof(a);
  if (getsockname(fd, (struct sockaddr *)&a, &len) < 0)
    die("getsockname");
  char tmp[4096];
  snprintf(tmp, sizeof(tmp), "%s.tmp", port_file);
  FILE *f = fopen(tmp, "w");
  if (f == NULL || fprintf(f, "%u\n", ntohs(a.sin_port)) < 0 || fclose(f) != 0)
    die(tmp);
  if (rename(tmp, port_file) < 0)
    die("rename");
}

static void receive_tcp(int listener, FILE *out) {
  int c = accept(listener, NULL, NULL);
  if (c < 0)
    die("accept");
  char buf[65536];
  ssize_t n;
  while ((n = read(c, buf, sizeof(buf))) > 0)
    if (fwrite(buf, 1, (size_t)n, out) != (size_t)n)
      die("write");
  if (n < 0)
    die("read");
  close(c);
}

static void receive_udp(int fd, FILE *out, FILE *sizes) {
  static char buf[DATAGRAM_MAX];
  for (;;) {
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n < 0)
      die("recv");
    if (fwrite(buf, 1, (size_t)n, out) != (size_t)n ||
        fprintf(sizes, "%zd\n", n) < 0 || fflush(out) != 0 ||
        fflush(sizes) != 0)
      die("write");
  }
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fputs("usage: line_listener tcp|udp|tcp-stall PORTFILE OUTFILE\n", stderr);
    return 2;
  }
  const char *mode = argv[1];
  FILE *out = fopen(argv[3], "w");
  if (out == NULL)
    die(argv[3]);
  if (strcmp(mode, "udp") == 0) {
    char sizes_path[4096];
    snprintf(sizes_path, sizeof(sizes_path), "%s.sizes", argv[3]);
    FILE *sizes = fopen(sizes_path, "w");
    if (sizes == NULL)
      die(sizes_path);
    int fd = listen_on(SOCK_DGRAM, 1 << 20);
    write_port(fd, argv[2]);
    receive_udp(fd, out, sizes);
  }
  int stall = strcmp(mode, "tcp-stall") == 0;
  if (!stall && strcmp(mode, "tcp") != 0) {
    fprintf(stderr, "line_listener: unknown mode '%s'\n", mode);
    return 2;
  }
  int fd = listen_on(SOCK_STREAM, stall ? 4096 : 0);
  write_port(fd, argv[2]);
  if (stall) {
    int c = accept(fd, NULL, NULL);
    if (c < 0)
      die("accept");
    for (;;)
      pause();
  }
  receive_tcp(fd, out);
  return fclose(out) == 0 ? 0 : 1;
}
