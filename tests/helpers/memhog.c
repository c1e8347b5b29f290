/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * memhog MIB READY_FILE: allocates MIB MiB of anonymous memory, writes a
 * distinct byte into every page (so that neither the zero page nor KSM can
 * share them), creates READY_FILE, then sleeps until killed.  The real
 * cgroup tests move it into a guest cgroup before it allocates, so the
 * memory is charged there and memhost has a known lower bound.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: memhog MIB READY_FILE\n");
    return 2;
  }
  size_t size = (size_t)strtoul(argv[1], NULL, 10) << 20;
  unsigned char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  long page = sysconf(_SC_PAGESIZE);
  for (size_t off = 0; off < size; off += (size_t)page)
    for (long i = 0; i < page; i += 64)
      p[off + (size_t)i] = (unsigned char)(off / (size_t)page + (size_t)i);
  int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    perror(argv[2]);
    return 1;
  }
  close(fd);
  for (;;)
    pause();
}
