/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb-bench-osd-model: in-process cost of the OSD model (src/osd), no CUSE, no output
 * (bench/run.sh osd measures the real path; this one runs by hand, on the host). Prints
 * `figure NAME VALUE UNIT` lines:
 *   osd_model_setblock_720x576_us  one full-screen 8-bit OSD_SetBlock into the model
 *   osd_model_render_us            one ffdvb_osd_render of a full-screen window
 *   osd_model_vdr_flush_per_s      VDR-style dirty flushes (SetWindow, SetPalette of 16
 *                                  colours, SetBlock 64x32) per second
 *   osd_model_setwindow_per_s      OSD_SetWindow (VDR's most frequent command) per second */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ffdvb/clock.h"
#include "ffdvb/osd.h"

static double now_s(void)
{
	return (double)ffdvb_monotonic_ns() / 1e9;
}

static void cmd(struct ffdvb_osd *osd, int c, int x0, int y0, int x1, int y1, int color,
		const void *data, size_t len)
{
	struct ffdvb_osd_cmd oc = { c, x0, y0, x1, y1, color, (void *)data };

	if (ffdvb_osd_command(osd, &oc, data, len, 0)) {
		fprintf(stderr, "ffdvb-bench-osd-model: command %d failed\n", c);
		exit(1);
	}
}

int main(void)
{
	static uint8_t block[720 * 576];
	static uint32_t plane[FFDVB_OSD_SCREEN_W * FFDVB_OSD_SCREEN_H];
	uint32_t pal[256];
	struct ffdvb_osd *osd = ffdvb_osd_new(1000000);
	double t;
	int n;

	if (!osd)
		return 1;
	for (size_t i = 0; i < sizeof block; i++)
		block[i] = (uint8_t)(i * 31 / 7);
	for (int i = 0; i < 256; i++)
		pal[i] = 0xff000000u | (uint32_t)i * 0x10203u;
	cmd(osd, FFDVB_OSD_Open, 0, 0, 719, 575, 8, NULL, 0);
	cmd(osd, FFDVB_OSD_SetPalette, 255, 0, 0, 0, 0, pal, sizeof pal);

	t = now_s();
	for (n = 0; n < 200; n++)
		cmd(osd, FFDVB_OSD_SetBlock, 0, 0, 719, 575, 0, block, sizeof block);
	printf("figure osd_model_setblock_720x576_us %.1f us\n", (now_s() - t) / n * 1e6);

	t = now_s();
	for (n = 0; n < 200; n++)
		ffdvb_osd_render(osd, plane);
	printf("figure osd_model_render_us %.1f us\n", (now_s() - t) / n * 1e6);

	t = now_s();
	for (n = 0; now_s() - t < 0.5; n++) {
		cmd(osd, FFDVB_OSD_SetWindow, 1, 0, 0, 0, 0, NULL, 0);
		cmd(osd, FFDVB_OSD_SetPalette, 15, 0, 0, 0, 0, pal, 64);
		cmd(osd, FFDVB_OSD_SetBlock, n % 600, 100, n % 600 + 63, 131, 0, block, 64 * 32);
	}
	printf("figure osd_model_vdr_flush_per_s %.0f 1/s\n", n / (now_s() - t));

	t = now_s();
	for (n = 0; n < 1000000; n++)
		cmd(osd, FFDVB_OSD_SetWindow, 1 + n % 7, 0, 0, 0, 0, NULL, 0);
	printf("figure osd_model_setwindow_per_s %.0f 1/s\n", n / (now_s() - t));
	ffdvb_osd_free(osd);
	return 0;
}
