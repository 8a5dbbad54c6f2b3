/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Spec §10.2, §11: ioctls whose payload is far bigger than one CUSE ioctl transfer — a 1 MB
 * VIDEO_STILLPICTURE and full-screen OSD_SetBlock. With --control the daemon's checksums of
 * what it received (status --json: last_still, last_osd_data) must equal ours. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"
#include "ffdvb/checksum.h"

static void compare(const char *name, const char *obj, long cmd, size_t size, uint32_t fnv)
{
	unsigned long long got_size = 0, got_fnv = 0, got_cmd = 0;
	char *json;

	if (!opts.control) {
		skip(cname("payload.%s_received_whole", name),
		     "needs --control PATH of an ffdvbd control socket");
		return;
	}
	json = control_status_json(opts.control);
	if (!json) {
		check(cname("payload.%s_received_whole", name), 0, "a status from the daemon",
		      "%s", errname(errno));
		return;
	}
	int bad = json_u64(json, obj, "size", &got_size) < 0 ||
		  json_u64(json, obj, "fnv1a", &got_fnv) < 0 ||
		  (cmd >= 0 && json_u64(json, obj, "cmd", &got_cmd) < 0);

	free(json);
	if (bad) {
		check(cname("payload.%s_received_whole", name), 0,
		      cname("\"%s\" in the status", obj), "no such fields");
		return;
	}
	if (cmd >= 0)
		check_int(cname("payload.%s_daemon_saw_cmd", name), cmd, (long long)got_cmd);
	check(cname("payload.%s_received_whole", name), got_size == size && got_fnv == fnv,
	      cname("size %zu fnv1a %u", size, fnv), "size %llu fnv1a %llu", got_size, got_fnv);
}

struct still_arg {
	int fd;
	struct ffdvb_video_still_picture sp;
};

static long still(void *arg)
{
	struct still_arg *s = arg;

	return dev_ioctl(s->fd, FFDVB_VIDEO_STILLPICTURE, &s->sp);
}

static void still_picture(int v, const char *name, int size)
{
	struct still_arg s = { .fd = v, .sp = { .size = size } };
	struct child c;
	long rc;

	s.sp.iFrame = malloc((size_t)size);
	make_es((uint8_t *)s.sp.iFrame, (size_t)size, (uint32_t)size);
	if (child_start(&c, still, &s) < 0) {
		free(s.sp.iFrame);
		return;
	}
	if (child_wait(&c, 60000, &rc) < 0) {
		child_kill(&c);
		rc = -ETIMEDOUT;
	}
	check_rc(cname("payload.%s_returns_0", name), 0, rc);
	if (rc == 0)
		compare(name, "last_still", -1, (size_t)size,
			ffdvb_fnv1a(FFDVB_FNV1A_INIT, s.sp.iFrame, (size_t)size));
	free(s.sp.iFrame);
}

static long osd(int o, int cmd, int x0, int y0, int x1, int y1, int color, void *data)
{
	struct ffdvb_osd_cmd c = { .cmd = cmd, .x0 = x0, .y0 = y0, .x1 = x1, .y1 = y1,
				   .color = color, .data = data };

	return dev_ioctl(o, FFDVB_OSD_SEND_CMD, &c);
}

/* SetBlock of w x h pixels at stride; the daemon reports the rows without stride gaps */
static void set_block(int o, const char *name, int window, int depth, int w, int h, int stride)
{
	size_t span = (size_t)(h - 1) * (size_t)stride + (size_t)w;
	uint8_t *data = malloc(span);
	uint32_t fnv = FFDVB_FNV1A_INIT;

	for (size_t i = 0; i < span; i++)
		data[i] = (uint8_t)((i * 7 + i / 720) & ((1u << depth) - 1));
	for (int r = 0; r < h; r++)
		fnv = ffdvb_fnv1a(fnv, data + (size_t)r * (size_t)stride, (size_t)w);
	osd(o, FFDVB_OSD_SetWindow, window, 0, 0, 0, 0, NULL);
	check_rc(cname("payload.%s_open_window", name), 0,
		 osd(o, FFDVB_OSD_Open, 0, 0, w - 1, h - 1, depth, (void *)1));
	long rc = osd(o, FFDVB_OSD_SetBlock, 0, 0, w - 1, h - 1, stride == w ? 0 : stride, data);

	check_rc(cname("payload.%s_returns_0", name), 0, rc);
	if (rc == 0)
		compare(name, "last_osd_data", FFDVB_OSD_SetBlock, (size_t)w * (size_t)h, fnv);
	free(data);
}

/* Through --control: the OSD the compositor gets (daemon command osd-plane) must be what the
 * commands define: a shown full-screen window of depth bits with the palette pal (0xAABBGGRR,
 * blend level = alpha >> 4, 0 transparent), pixel (x, y) = pal[data & mask]. */
static void check_render(const char *name, int depth, const uint8_t *data, const uint32_t *pal)
{
	size_t len = 0;
	uint32_t *plane = (uint32_t *)control_command(opts.control, "osd-plane\n", &len);
	long bad = 0, first = -1;
	uint32_t got = 0, want = 0;

	if (!plane || len != 720u * 576u * 4u) {
		check(cname("payload.%s_rendered", name), 0, "720x576 ARGB words",
		      "%zu bytes from osd-plane", len);
		free(plane);
		return;
	}
	for (long i = 0; i < 720L * 576L; i++) {
		uint32_t p = pal[data[i] & ((1u << depth) - 1)];
		uint32_t level = p >> 28;
		uint32_t w = level ? (level * 17u) << 24 | (p & 0xff) << 16 | (p & 0xff00) |
					     (p >> 16 & 0xff)
				   : 0;
		uint32_t g = plane[i];

		if (!level)
			g &= 0xff000000u; /* transparent: the colour does not matter */
		if (g != w && bad++ == 0) {
			first = i;
			got = plane[i];
			want = w;
		}
	}
	check(cname("payload.%s_rendered", name), bad == 0, "every pixel as the commands define",
	      "%ld pixels differ, first at (%ld,%ld): 0x%08x, expected 0x%08x", bad,
	      first % 720, first / 720, got, want);
	free(plane);
}

/* full-screen windows shown and read back: 8-bit with 256 opaque colours, 1-bit with a
 * transparent and an opaque colour */
static void render(int o)
{
	uint8_t *data = malloc(720 * 576);
	uint32_t pal[256];

	for (long i = 0; i < 720L * 576L; i++)
		data[i] = (uint8_t)((i * 7 + i / 720 * 3) & 0xff);
	for (int i = 0; i < 256; i++)
		pal[i] = 0xf0000000u | (uint32_t)((i * 3) & 0xff) << 16 | (uint32_t)(255 - i) << 8 |
			 (uint32_t)i;
	osd(o, FFDVB_OSD_SetWindow, 1, 0, 0, 0, 0, NULL);
	osd(o, FFDVB_OSD_Open, 0, 0, 719, 575, 8, NULL);
	osd(o, FFDVB_OSD_SetPalette, 255, 0, 0, 0, 0, pal);
	osd(o, FFDVB_OSD_SetBlock, 0, 0, 719, 575, 0, data);
	check_render("osd_720x576_8bit", 8, data, pal);
	osd(o, FFDVB_OSD_Close, 0, 0, 0, 0, 0, NULL);

	pal[0] = 0x00000000u;  /* transparent */
	pal[1] = 0xff00ff00u;  /* opaque green */
	osd(o, FFDVB_OSD_SetWindow, 2, 0, 0, 0, 0, NULL);
	osd(o, FFDVB_OSD_Open, 0, 0, 719, 575, 1, (void *)1); /* hidden, VDR's way */
	osd(o, FFDVB_OSD_SetPalette, 1, 0, 0, 0, 0, pal);
	osd(o, FFDVB_OSD_SetBlock, 0, 0, 719, 575, 0, data);
	osd(o, FFDVB_OSD_MoveWindow, 0, 0, 0, 0, 0, NULL);
	check_render("osd_720x576_1bit", 1, data, pal);
	osd(o, FFDVB_OSD_Close, 0, 0, 0, 0, 0, NULL);
	free(data);
}

void group_payload(void)
{
	int v = dev_open("video0", O_RDWR | O_NONBLOCK);

	if (v < 0) {
		check_rc("payload.open_video0", 0, v);
	} else {
		still_picture(v, "stillpicture_1MiB", 1 << 20);
		still_picture(v, "stillpicture_300000", 300000);
		dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
		dev_ioctl_val(v, FFDVB_VIDEO_STOP, 0);
		dev_close(&v);
	}

	int o = dev_open("osd0", O_RDWR);

	if (o < 0) {
		check_rc("payload.open_osd0", 0, o);
		return;
	}
	set_block(o, "osd_set_block_720x576_8bit", 1, 8, 720, 576, 720);
	set_block(o, "osd_set_block_720x576_1bit", 2, 1, 720, 576, 720);
	set_block(o, "osd_set_block_256x64_1bit_stride_300", 3, 1, 256, 64, 300);
	set_block(o, "osd_set_block_720x100_4bit_stride_4096", 4, 4, 720, 100, 4096);

	uint32_t pal[256];

	for (int i = 0; i < 256; i++)
		pal[i] = 0x80000000u | (uint32_t)i * 0x010203u;
	osd(o, FFDVB_OSD_SetWindow, 1, 0, 0, 0, 0, NULL);
	long rc = osd(o, FFDVB_OSD_SetPalette, 255, 0, 0, 0, 0, pal);

	check_rc("payload.osd_set_palette_256_returns_0", 0, rc);
	if (rc == 0)
		compare("osd_set_palette_256", "last_osd_data", FFDVB_OSD_SetPalette, sizeof pal,
			ffdvb_fnv1a(FFDVB_FNV1A_INIT, pal, sizeof pal));
	for (int w = 1; w <= 4; w++) {
		osd(o, FFDVB_OSD_SetWindow, w, 0, 0, 0, 0, NULL);
		osd(o, FFDVB_OSD_Close, 0, 0, 0, 0, 0, NULL);
	}
	if (opts.control)
		render(o);
	dev_close(&o);
}
