/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Appends result rows to the benchmark CSV (see csv.h for the columns).
 */
#include "csv.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

int csv_append(const char *path, const struct csv_row *row) {
  FILE *f = fopen(path, "ae");
  if (!f)
    return -errno;
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && st.st_size == 0)
    fputs("method,N,us_per_guest,min_us,max_us,rounds,intervals,tree,note\n",
          f);
  fprintf(f, "%s,%zu,%.4f,%.4f,%.4f,%u,%u,%s,%s\n", row->method, row->guests,
          row->us_per_guest, row->min_us, row->max_us, row->rounds,
          row->intervals, row->tree, row->note ? row->note : "");
  int err = ferror(f) ? -EIO : 0;
  if (fclose(f) != 0 && err == 0)
    err = -errno;
  return err;
}
