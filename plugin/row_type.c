/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Registers the row value-list types with collectd (see row_type.h).
 */
#include "row_type.h"

#include "collectd/core/daemon/plugin.h"
#include "collectd/core/utils/common/common.h"

#include <math.h>

int row_type_register(const struct rrd_layout *layout) {
  data_source_t sources[RRD_LAYOUT_DS_MAX];
  data_set_t set = {.ds_num = layout->ds_count, .ds = sources};
  if (layout->ds_count > RRD_LAYOUT_DS_MAX)
    return -1;
  /* Both plugins register the type, and a TypesDB file may define it too;
   * collectd would log a "Replacing DS" notice for a second registration.
   * (Called from init: before the types.db files are read, plugin_get_ds
   * logs an error instead of returning NULL.) */
  if (plugin_get_ds(layout->type_name) != NULL)
    return 0;
  sstrncpy(set.type, layout->type_name, sizeof(set.type));
  for (size_t i = 0; i < layout->ds_count; i++) {
    sstrncpy(sources[i].name, layout->ds[i].name, sizeof(sources[i].name));
    sources[i].type = DS_TYPE_GAUGE;
    sources[i].min = layout->ds[i].negative ? NAN : 0;
    sources[i].max = NAN;
  }
  /* plugin_register_data_set copies the definition. */
  return plugin_register_data_set(&set);
}
