/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The progress line (see export_progress.h).  The time left assumes the
 * files still to come are like those done.
 */
#include "export_progress.h"

#include "pvecg/monotonic.h"

#include <unistd.h>

#define REDRAW_S 0.2

void export_progress_begin(struct export_progress *p, FILE *out, bool quiet,
                           size_t files) {
  *p = (struct export_progress){.files = files};
  p->out = !quiet && out != NULL && isatty(fileno(out)) ? out : NULL;
  p->start = monotonic_seconds();
}

void export_progress_update(struct export_progress *p, size_t done,
                            size_t points) {
  double now = monotonic_seconds();
  if (p->out == NULL || (p->drawn && now - p->last_drawn < REDRAW_S))
    return;
  double spent = now - p->start;
  double rate = spent > 0 ? (double)points / spent : 0;
  double left = done > 0 ? spent * (double)(p->files - done) / (double)done : 0;
  fprintf(p->out,
          "\r\033[Kpvecg export: %zu/%zu files, %zu points, %.0f points/s, "
          "%.0f s left",
          done, p->files, points, rate, left);
  fflush(p->out);
  p->drawn = true;
  p->last_drawn = now;
}

void export_progress_end(struct export_progress *p) {
  if (p->out != NULL && p->drawn) {
    fputs("\r\033[K", p->out);
    fflush(p->out);
  }
}
