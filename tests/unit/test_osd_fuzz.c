/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the OSD command decoder (also driven by test_osd_random without
 * libFuzzer). The input is a sequence of OSD_SEND_CMD calls: per call one byte picks the
 * command, one byte per field picks a value (small, near the 720x576 limits, extreme, or four
 * raw input bytes), one byte the data (NULL, a flag, unreadable, or input bytes of the length
 * the transport would fetch). After each call: the result is 0 or the command's errno, the
 * generation never goes back, the current window is 1..7; at the end (one input in four) the
 * rendered plane has only alpha values L * 17. AddressSanitizer/UBSan catch any access outside the buffers. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffdvb/osd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* commands run by all inputs so far (test_osd_random checks the inputs reach the decoder) */
size_t test_osd_fuzz_accepted;

struct in {
	const uint8_t *p;
	size_t n;
};

static void fail(const char *what, int cmd, int rc)
{
	fprintf(stderr, "test_osd_fuzz: %s (cmd %d, rc %d)\n", what, cmd, rc);
	abort();
}

static uint8_t byte(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static int32_t field(struct in *in)
{
	static const int32_t special[] = { 0, 1, -1, 7, 8, 15, 16, 255, 256, 575, 576, 577, 719,
					   720, 721, INT_MAX, INT_MIN, INT_MAX - 1, INT_MIN + 1,
					   0x10000, -720, -576, 0x1ff, 0x100ff };
	uint8_t b = byte(in);
	uint32_t v = 0;

	if (b < 32)
		return b; /* window numbers, colours, fonts */
	if (b < 200)
		return ((int32_t)b - 32) * 5 - 100; /* -100 .. 735 */
	if (b < 200 + sizeof special / sizeof special[0])
		return special[b - 200];
	for (int i = 0; i < 4; i++)
		v = v << 8 | byte(in);
	return (int32_t)v;
}

/* the length the transport fetches for the command (§7.2, §7.4), 0 if it reads nothing */
static size_t fetch_len(const struct ffdvb_osd_cmd *c)
{
	switch (c->cmd) {
	case FFDVB_OSD_SetPalette: {
		int first = c->color & 0xff, last = c->x0 & 0xff;

		return last >= first ? 4 * (size_t)(last - first + 1) : 0;
	}
	case FFDVB_OSD_SetRow:
	case FFDVB_OSD_SetBlock: {
		uint32_t w = (uint32_t)c->x1 - (uint32_t)c->x0 + 1;
		uint32_t h = c->cmd == FFDVB_OSD_SetRow ? 1 : (uint32_t)c->y1 - (uint32_t)c->y0 + 1;

		return w && w <= 720 && h && h <= 576 ? (size_t)w * h : 0;
	}
	case FFDVB_OSD_Text:
		return FFDVB_OSD_TEXT_MAX;
	default:
		return 0;
	}
}

static int allowed(int cmd, int rc)
{
	switch (cmd) {
	case FFDVB_OSD_SetPalette:
	case FFDVB_OSD_Text:
		return rc == 0 || rc == -EFAULT;
	default:
		return rc == 0 || rc == -EINVAL;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ffdvb_osd *osd;
	static uint8_t payload[720 * 576];
	static uint32_t plane[FFDVB_OSD_SCREEN_W * FFDVB_OSD_SCREEN_H];
	struct in in = { data, size };
	uint64_t gen;

	if (!osd && !(osd = ffdvb_osd_new(92000))) /* fonts are loaded once */
		fail("ffdvb_osd_new", 0, 0);
	ffdvb_osd_reset(osd);
	gen = ffdvb_osd_generation(osd);
	for (int k = 0; in.n && k < 64; k++) {
		struct ffdvb_osd_cmd c;
		uint8_t op = byte(&in), how;
		size_t len, i;
		const void *d = NULL;
		int fault = 0, rc;

		c.cmd = op < 240 ? op % 23 + (op % 23 == 0) : (int32_t)(op - 240) * 1000 - 1;
		c.x0 = field(&in);
		c.y0 = field(&in);
		c.x1 = field(&in);
		c.y1 = field(&in);
		c.color = field(&in);
		how = byte(&in);
		len = fetch_len(&c);
		c.data = NULL;
		switch (how & 3) {
		case 0: /* NULL: the transport reads nothing */
			break;
		case 1: /* a flag (Open) or an unreadable pointer */
			c.data = (void *)1;
			fault = len != 0;
			break;
		default: /* readable: input bytes, then a repeated pattern */
			c.data = payload;
			if (c.cmd == FFDVB_OSD_Text)
				len = how >> 2; /* a string of up to 63 bytes, maybe without NUL */
			for (i = 0; i < len; i++)
				payload[i] = in.n ? byte(&in) : (uint8_t)(i * 7);
			d = len ? payload : NULL;
			if ((how & 3) == 3 && len) /* a short fetch */
				len -= 1 + (how >> 2) % len;
			break;
		}
		rc = ffdvb_osd_command(osd, &c, d, d ? len : 0, fault);
		if (!allowed(c.cmd, rc))
			fail("unexpected result", c.cmd, rc);
		if (ffdvb_osd_generation(osd) < gen)
			fail("generation went back", c.cmd, rc);
		gen = ffdvb_osd_generation(osd);
		if (ffdvb_osd_current_window(osd) < 1 || ffdvb_osd_current_window(osd) > 7)
			fail("current window out of range", c.cmd, rc);
		test_osd_fuzz_accepted += rc == 0;
	}
	/* rendering the whole plane costs most of a run: one input in four does it */
	if (size % 4 == 0) {
		ffdvb_osd_render(osd, plane);
		for (size_t i = 0; i < sizeof plane / sizeof plane[0]; i++)
			if ((plane[i] >> 24) % 17 || (!(plane[i] >> 24) && plane[i]))
				fail("rendered alpha is not a level * 17", 0, (int)plane[i]);
	}
	for (int w = 1; w <= 7; w++) {
		uint32_t *argb = NULL;
		struct ffdvb_osd_window_info info;

		if (ffdvb_osd_window(osd, w, &info) || !info.open)
			continue;
		if (info.w < 1 || info.w > 720 || info.h < 1 || info.h > 576)
			fail("window size", w, 0);
		if (ffdvb_osd_window_argb(osd, w, &argb) == 0)
			free(argb);
	}
	return 0;
}
