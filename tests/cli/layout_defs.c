/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * layout_defs LAYOUT: prints the DS and RRA arguments of `rrdtool create`
 * for a layout of rrd_layouts[], one a line, so the shell tests make their
 * files from the layout tables rather than from a copy of them.
 */
#include "pvecg/rrd_words.h"
#include "pvecg/rrd_layout.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fputs("usage: layout_defs LAYOUT\n", stderr);
    return 2;
  }
  for (size_t i = 0; i < rrd_layouts_count; i++) {
    struct rrd_words_definitions defs;
    if (strcmp(rrd_layouts[i]->name, argv[1]) != 0)
      continue;
    if (rrd_words_definitions(rrd_layouts[i], &defs) != 0)
      return 1;
    for (int a = 0; a < defs.argc; a++)
      puts(defs.argv[a]);
    return ferror(stdout) ? 1 : 0;
  }
  fprintf(stderr, "layout_defs: no layout '%s'\n", argv[1]);
  return 2;
}
