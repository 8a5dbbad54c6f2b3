/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which of a connector's KMS modes the drm output uses (kms_mode.c). */
#ifndef FFDVB_OUTPUT_KMS_MODE_H
#define FFDVB_OUTPUT_KMS_MODE_H

#include <xf86drmMode.h>

/* The index in modes[n] of: the configured size want_w x want_h if the connector has it, else
 * the preferred mode's size (else the first mode's); at that size, a mode refreshing at want_hz
 * (0: no wish) when there is one, else the preferred (or first) mode of that size. -1 if n is 0. */
int kms_pick_mode(const drmModeModeInfo *modes, int n, int want_w, int want_h, int want_hz);

#endif
