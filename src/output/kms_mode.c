/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The KMS mode (kms_mode.h). The refresh matters as much as the size: DVB's pictures come 25
 * (frames) or 50 (fields, and field-rate deinterlacing) a second, and a 60 Hz display shows
 * them with judder, one picture in five held twice as long; most TVs and many monitors offer
 * 50 Hz beside their preferred 60. */
#include "kms_mode.h"

int kms_pick_mode(const drmModeModeInfo *modes, int n, int want_w, int want_h, int want_hz)
{
	int def = -1, w, h, best = -1;

	for (int i = 0; i < n; i++) /* the size: the configured one, else the preferred mode's */
		if (def < 0 || ((modes[i].type & DRM_MODE_TYPE_PREFERRED) &&
				 !(modes[def].type & DRM_MODE_TYPE_PREFERRED)))
			def = i;
	if (def < 0)
		return -1;
	w = modes[def].hdisplay, h = modes[def].vdisplay;
	for (int i = 0; want_w && i < n; i++)
		if (modes[i].hdisplay == want_w && modes[i].vdisplay == want_h) {
			w = want_w, h = want_h;
			break;
		}
	for (int i = 0, rank = -1; i < n; i++) { /* at that size: the refresh wished, else the default */
		const drmModeModeInfo *m = &modes[i];
		int r;

		if (m->hdisplay != w || m->vdisplay != h || (m->flags & DRM_MODE_FLAG_INTERLACE))
			continue;
		r = (want_hz && (int)m->vrefresh == want_hz ? 2 : 0) +
		    !!(m->type & DRM_MODE_TYPE_PREFERRED);
		if (r > rank)
			best = i, rank = r;
	}
	return best >= 0 ? best : def;
}
