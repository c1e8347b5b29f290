/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ksmhog MIB READY_FILE: allocates MIB MiB of anonymous memory, fills
 * every page with the same non-zero bytes and offers it to KSM
 * (MADV_MERGEABLE), creates READY_FILE, then sleeps until killed.  Once
 * ksmd has scanned it, every page is merged: the real KSM test knows what
 * /proc/<pid>/ksm_stat will say, and that it differs per size.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: ksmhog MIB READY_FILE\n");
    return 2;
  }
  size_t size = (size_t)strtoul(argv[1], NULL, 10) << 20;
  unsigned char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  memset(p, 0x5a, size);
  if (madvise(p, size, MADV_MERGEABLE) != 0) {
    perror("madvise(MADV_MERGEABLE)");
    return 1;
  }
  int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    perror(argv[2]);
    return 1;
  }
  close(fd);
  for (;;)
    pause();
}
