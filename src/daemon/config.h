/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvbd.conf(5): the [daemon] section (user, control-dir, log-level, foreground) and one
 * [adapterN] section per emulated adapter, read with the INI reader of ini.h. */
#ifndef FFDVBD_CONFIG_H
#define FFDVBD_CONFIG_H

#include <stddef.h>

#include "options.h"

/* Reads the file at path into o: [daemon] keys over what o holds, each [adapterN] appended
 * to o->adapters from the defaults, in ascending N. Unknown sections and keys, bad values, a
 * section or key given twice and more than FFDVBD_MAX_ADAPTERS adapters are errors. Returns
 * 0; -1 with "PATH:LINE: reason" in err; -ENOENT (and a message) when the file is missing. */
int ffdvbd_config_load(const char *path, struct ffdvbd_options *o, char *err, size_t errlen);

#endif
