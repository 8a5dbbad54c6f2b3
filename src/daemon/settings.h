/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The settings of ffdvbd by name: one table serves the config file's keys and the command
 * line's options, so that both accept and refuse the same values with the same words. */
#ifndef FFDVBD_SETTINGS_H
#define FFDVBD_SETTINGS_H

#include <stddef.h>

#include "options.h"

/* Defaults of one adapter (group not resolved yet: see ffdvbd_adapter_finish). */
void ffdvbd_adapter_defaults(struct ffdvbd_adapter_options *a, int adapter);

/* Sets an [adapterN] key (owner, group, mode, output, size, deinterlace, audio,
 * audio-device, audio-delay, decode, record, drain-rate, osd-memsize, control, tuner). Returns 0; -1 for an unknown key; -2 for a bad
 * value, with the expectation in why ("expected an octal mode like 0660"). */
int ffdvbd_set_adapter_key(struct ffdvbd_adapter_options *a, const char *key, const char *value,
			   char *why, size_t whylen);

/* Sets a [daemon] key (user, control-dir, log-level, foreground): the same returns. */
int ffdvbd_set_daemon_key(struct ffdvbd_options *o, const char *key, const char *value,
			  char *why, size_t whylen);

/* "field", "frame" or "no", as the deinterlace key takes them */
const char *ffdvbd_deinterlace_name(enum ffdvb_deinterlace d);

/* "no", or the formats ("ac3,dts,eac3") as the audio-passthrough key takes them */
const char *ffdvbd_passthrough_name(unsigned int formats);

/* "yes/no/true/false/on/off/1/0": 1 or 0, -1 for anything else */
int ffdvbd_parse_bool(const char *s);

/* After all settings: the default group (video, else root) where none was set, and the
 * control socket path control_dir/adapterN.sock where none was set. 0, or -1 with why when
 * that path is too long. */
int ffdvbd_adapter_finish(struct ffdvbd_adapter_options *a, const char *control_dir, char *why,
			  size_t whylen);

#endif
