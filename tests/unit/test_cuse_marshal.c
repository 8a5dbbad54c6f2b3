/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ABI's pure ioctl marshalling (src/abi/marshal.c): layouts per request number, 32-bit
 * conversions, payload descriptions of embedded pointers. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "check.h"
#include "abi/marshal.h"

static void layouts(void)
{
	static const struct {
		const char *name;
		unsigned int cmd;
		int compat;
		unsigned int native_cmd;
		size_t user_size, native_size;
		int copy_out;
	} t[] = {
		{ "VIDEO_PLAY (value)", FFDVB_VIDEO_PLAY, 0, FFDVB_VIDEO_PLAY, 0, 0, 0 },
		{ "VIDEO_GET_STATUS", FFDVB_VIDEO_GET_STATUS, 0, FFDVB_VIDEO_GET_STATUS, 20, 20, 1 },
		{ "VIDEO_GET_EVENT", FFDVB_VIDEO_GET_EVENT, 0, FFDVB_VIDEO_GET_EVENT, 32, 32, 1 },
		{ "VIDEO_GET_EVENT32", FFDVB_VIDEO_GET_EVENT32, 1, FFDVB_VIDEO_GET_EVENT, 20, 32, 1 },
		{ "VIDEO_GET_EVENT32 from 64-bit: unknown", FFDVB_VIDEO_GET_EVENT32, 0,
		  FFDVB_VIDEO_GET_EVENT32, 20, 20, 1 },
		{ "VIDEO_STILLPICTURE", FFDVB_VIDEO_STILLPICTURE, 0, FFDVB_VIDEO_STILLPICTURE, 16, 16, 0 },
		{ "VIDEO_STILLPICTURE32", FFDVB_VIDEO_STILLPICTURE32, 1, FFDVB_VIDEO_STILLPICTURE, 8, 16, 0 },
		{ "OSD_SEND_CMD32", FFDVB_OSD_SEND_CMD32, 1, FFDVB_OSD_SEND_CMD, 28, 32, 0 },
		{ "OSD_GET_CAPABILITY (R, fetched in)", FFDVB_OSD_GET_CAPABILITY, 0,
		  FFDVB_OSD_GET_CAPABILITY, 16, 16, 1 },
		{ "OSD_GET_CAPABILITY32", FFDVB_OSD_GET_CAPABILITY32, 1, FFDVB_OSD_GET_CAPABILITY, 8, 16, 1 },
		{ "FE_GET_PROPERTY32", FFDVB_FE_GET_PROPERTY32, 1, FE_GET_PROPERTY, 8, 16, 1 },
		{ "FE_SET_PROPERTY32", FFDVB_FE_SET_PROPERTY32, 1, FE_SET_PROPERTY, 8, 16, 0 },
		{ "VIDEO_GET_SIZE compat (same layout)", FFDVB_VIDEO_GET_SIZE, 1, FFDVB_VIDEO_GET_SIZE, 12, 12, 1 },
		{ "VIDEO_GET_NAVI (removed, still copied)", FFDVB_VIDEO_GET_NAVI, 0,
		  FFDVB_VIDEO_GET_NAVI, 1028, 1028, 1 },
		{ "unknown _IOWR", _IOWR('x', 1, int[3]), 0, _IOWR('x', 1, int[3]), 12, 12, 1 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ffdvb_ioctl_layout lo;
		char what[128];

		ffdvb_marshal_layout(t[i].cmd, t[i].compat, &lo);
		snprintf(what, sizeof(what), "%s native_cmd", t[i].name);
		EXPECT_EQ(what, lo.native_cmd, t[i].native_cmd);
		snprintf(what, sizeof(what), "%s user_size", t[i].name);
		EXPECT_EQ(what, lo.user_size, t[i].user_size);
		snprintf(what, sizeof(what), "%s native_size", t[i].name);
		EXPECT_EQ(what, lo.native_size, t[i].native_size);
		snprintf(what, sizeof(what), "%s copy_out", t[i].name);
		EXPECT_EQ(what, lo.copy_out, t[i].copy_out);
	}
}

static void compat_conversions(void)
{
	struct ffdvb_ioctl_layout lo;

	/* GET_EVENT32 out: type, timestamp (long), union at 8 */
	struct ffdvb_video_event ev = { .type = FFDVB_VIDEO_EVENT_SIZE_CHANGED, .timestamp = 7 };
	struct ffdvb_video_event32 ev32;

	ev.u.size = (struct ffdvb_video_size){ 720, 576, 1 };
	ffdvb_marshal_layout(FFDVB_VIDEO_GET_EVENT32, 1, &lo);
	ffdvb_marshal_arg_out(&lo, &ev, &ev32);
	EXPECT_EQ("event32 type", ev32.type, 1);
	EXPECT_EQ("event32 timestamp", ev32.timestamp, 7);
	EXPECT_EQ("event32 w", ev32.u.size.w, 720);
	EXPECT_EQ("event32 h", ev32.u.size.h, 576);
	EXPECT_EQ("event32 aspect", ev32.u.size.aspect_ratio, 1);

	/* STILLPICTURE32 in: 4-byte pointer */
	struct ffdvb_video_still_picture32 sp32 = { .iFrame = 0xdeadbeef, .size = 1000000 };
	struct ffdvb_video_still_picture sp;

	ffdvb_marshal_layout(FFDVB_VIDEO_STILLPICTURE32, 1, &lo);
	ffdvb_marshal_arg_in(&lo, &sp32, &sp);
	EXPECT_EQ("still32 iFrame", (uintptr_t)sp.iFrame, 0xdeadbeef);
	EXPECT_EQ("still32 size", sp.size, 1000000);

	/* OSD_SEND_CMD32 in */
	struct ffdvb_osd_cmd32 c32 = { FFDVB_OSD_SetBlock, 1, 2, 3, 4, -5, 0x8000f000 };
	struct ffdvb_osd_cmd c;

	ffdvb_marshal_layout(FFDVB_OSD_SEND_CMD32, 1, &lo);
	ffdvb_marshal_arg_in(&lo, &c32, &c);
	EXPECT_EQ("osd32 cmd", c.cmd, FFDVB_OSD_SetBlock);
	EXPECT_EQ("osd32 x0..y1", c.x0 * 1000 + c.y0 * 100 + c.x1 * 10 + c.y1, 1234);
	EXPECT_EQ("osd32 color", c.color, -5);
	EXPECT_EQ("osd32 data zero-extended", (uintptr_t)c.data, 0x8000f000u);

	/* OSD_GET_CAPABILITY32 in and out */
	struct ffdvb_osd_cap32 cap32 = { FFDVB_OSD_CAP_MEMSIZE, 0 };
	struct ffdvb_osd_cap cap;

	ffdvb_marshal_layout(FFDVB_OSD_GET_CAPABILITY32, 1, &lo);
	ffdvb_marshal_arg_in(&lo, &cap32, &cap);
	EXPECT_EQ("cap32 cmd in", cap.cmd, 1);
	cap.val = 92000;
	ffdvb_marshal_arg_out(&lo, &cap, &cap32);
	EXPECT_EQ("cap32 val out", cap32.val, 92000);

	/* dtv_property arrays: 72-byte i386 entries <-> 76-byte native */
	struct ffdvb_dtv_property32 p32[2];
	struct dtv_property p[2];

	memset(p32, 0, sizeof(p32));
	p32[0].cmd = DTV_FREQUENCY;
	p32[0].u.data = 474000000;
	p32[0].result = -3;
	p32[1].cmd = DTV_DELIVERY_SYSTEM;
	p32[1].u.buffer.len = 17;
	p32[1].u.buffer.reserved2 = 0x1234;
	p32[1].result = 9;
	ffdvb_marshal_props_in(1, p32, p, 2);
	EXPECT_EQ("prop0 cmd", p[0].cmd, DTV_FREQUENCY);
	EXPECT_EQ("prop0 data", p[0].u.data, 474000000);
	EXPECT_EQ("prop0 result", p[0].result, -3);
	EXPECT_EQ("prop1 cmd", p[1].cmd, DTV_DELIVERY_SYSTEM);
	EXPECT_EQ("prop1 len", p[1].u.buffer.len, 17);
	EXPECT_EQ("prop1 reserved2", (uintptr_t)p[1].u.buffer.reserved2, 0x1234);
	EXPECT_EQ("prop1 result", p[1].result, 9);
	p[0].u.data = 5;
	p[1].result = -22;
	memset(p32, 0xff, sizeof(p32));
	ffdvb_marshal_props_out(1, p, p32, 2);
	EXPECT_EQ("prop32 out data", p32[0].u.data, 5);
	EXPECT_EQ("prop32 out result0", p32[0].result, -3);
	EXPECT_EQ("prop32 out result1", p32[1].result, -22);
	EXPECT_EQ("prop32 out cmd1", p32[1].cmd, DTV_DELIVERY_SYSTEM);
	EXPECT_EQ("sizeof dtv_property32", sizeof(struct ffdvb_dtv_property32), 72);
	EXPECT_EQ("sizeof dtv_property", sizeof(struct dtv_property), 76);
}

static int osd_payload(struct ffdvb_osd_cmd c, struct ffdvb_payload *p)
{
	struct ffdvb_ioctl_layout lo;

	ffdvb_marshal_layout(FFDVB_OSD_SEND_CMD, 0, &lo);
	return ffdvb_marshal_payload(&lo, &c, p);
}

static void payloads(void)
{
	struct ffdvb_payload p;
	struct ffdvb_ioctl_layout lo;
	void *data = (void *)0x10000;

	/* SetPalette: 4 * (last - first + 1), both truncated to 8 bits; last < first: nothing */
	osd_payload((struct ffdvb_osd_cmd){ FFDVB_OSD_SetPalette, 15, 0, 0, 0, 0, data }, &p);
	EXPECT_EQ("palette kind", p.kind, FFDVB_PAYLOAD_BLOCK);
	EXPECT_EQ("palette len", p.len, 64);
	osd_payload((struct ffdvb_osd_cmd){ FFDVB_OSD_SetPalette, 0x1ff, 0, 0, 0, 0x100, data }, &p);
	EXPECT_EQ("palette truncated len", p.len, 1024);
	osd_payload((struct ffdvb_osd_cmd){ FFDVB_OSD_SetPalette, 3, 0, 0, 0, 4, data }, &p);
	EXPECT_EQ("palette last<first", p.kind, FFDVB_PAYLOAD_NONE);

	/* SetBlock: w x h rows at stride color (<= 0: w) */
	osd_payload((struct ffdvb_osd_cmd){ FFDVB_OSD_SetBlock, 0, 0, 719, 575, 0, data }, &p);
	EXPECT_EQ("block kind", p.kind, FFDVB_PAYLOAD_ROWS);
	EXPECT_EQ("block 720x576 len", p.len, 414720);
	EXPECT_EQ("block rows", p.rows, 576);
	EXPECT_EQ("block stride default", p.stride, 720);
	osd_payload((struct ffdvb_osd_cmd){ FFDVB_OSD_SetBlock, 10, 20, 19, 21, 1000, data }, &p);
	EXPECT_EQ("block w", p.width, 10);
	EXPECT_EQ("block h", p.rows, 2);
	EXPECT_EQ("block stride", p.stride, 1000);
	EXPECT_EQ("block len (no gaps)", p.len, 20);
	osd_payload((struct ffdvb_osd_cmd){ FFDVB_OSD_SetBlock, 5, 0, 4, 0, 0, data }, &p);
	EXPECT_EQ("block x1<x0: no fetch", p.kind, FFDVB_PAYLOAD_NONE);
	osd_payload((struct ffdvb_osd_cmd){ FFDVB_OSD_SetBlock, 0, 0, 720, 0, 0, data }, &p);
	EXPECT_EQ("block w 721: no fetch", p.kind, FFDVB_PAYLOAD_NONE);
	osd_payload((struct ffdvb_osd_cmd){ FFDVB_OSD_SetBlock, 0, 0, 0, 576, 0, data }, &p);
	EXPECT_EQ("block h 577: no fetch", p.kind, FFDVB_PAYLOAD_NONE);

	/* SetRow: one row, y1 ignored */
	osd_payload((struct ffdvb_osd_cmd){ FFDVB_OSD_SetRow, 0, 3, 99, -7, 0, data }, &p);
	EXPECT_EQ("row kind", p.kind, FFDVB_PAYLOAD_ROWS);
	EXPECT_EQ("row len", p.len, 100);
	EXPECT_EQ("row rows", p.rows, 1);

	/* Text: a string of at most 240 bytes; Open/OpenRaw: never dereferenced */
	osd_payload((struct ffdvb_osd_cmd){ FFDVB_OSD_Text, 0, 0, 1, 0, 0x0100, data }, &p);
	EXPECT_EQ("text kind", p.kind, FFDVB_PAYLOAD_STRING);
	EXPECT_EQ("text max", p.len, 240);
	osd_payload((struct ffdvb_osd_cmd){ FFDVB_OSD_Open, 0, 0, 99, 99, 4, (void *)1 }, &p);
	EXPECT_EQ("open: no fetch", p.kind, FFDVB_PAYLOAD_NONE);
	osd_payload((struct ffdvb_osd_cmd){ FFDVB_OSD_OpenRaw, 0, 0, 99, 99, 4, (void *)1 }, &p);
	EXPECT_EQ("openraw: no fetch", p.kind, FFDVB_PAYLOAD_NONE);
	osd_payload((struct ffdvb_osd_cmd){ FFDVB_OSD_Fill, 0, 0, 0, 0, 1, data }, &p);
	EXPECT_EQ("fill: no fetch", p.kind, FFDVB_PAYLOAD_NONE);

	/* STILLPICTURE: size bytes; 0 or negative: nothing */
	struct ffdvb_video_still_picture sp = { .iFrame = data, .size = 1000000 };

	ffdvb_marshal_layout(FFDVB_VIDEO_STILLPICTURE, 0, &lo);
	ffdvb_marshal_payload(&lo, &sp, &p);
	EXPECT_EQ("still kind", p.kind, FFDVB_PAYLOAD_BLOCK);
	EXPECT_EQ("still len", p.len, 1000000);
	EXPECT_EQ("still addr", p.addr, 0x10000);
	sp.size = FFDVB_STILL_MAX + 1;
	EXPECT_EQ("still too big: EFBIG (node sees a fault)", ffdvb_marshal_payload(&lo, &sp, &p), -EFBIG);
	sp.size = 0;
	ffdvb_marshal_payload(&lo, &sp, &p);
	EXPECT_EQ("still size 0", p.kind, FFDVB_PAYLOAD_NONE);

	/* FE properties: num > 64 refused before any fetch; i386 entries are 72 bytes */
	struct dtv_properties props = { .num = 65, .props = data };

	ffdvb_marshal_layout(FE_SET_PROPERTY, 0, &lo);
	EXPECT_EQ("props 65: EINVAL", ffdvb_marshal_payload(&lo, &props, &p), -EINVAL);
	props.num = 3;
	EXPECT_EQ("props 3 ok", ffdvb_marshal_payload(&lo, &props, &p), 0);
	EXPECT_EQ("props kind", p.kind, FFDVB_PAYLOAD_PROPS);
	EXPECT_EQ("props user elem", p.user_elem, 76);
	EXPECT_EQ("props set: no copy out", p.copy_out, 0);
	ffdvb_marshal_layout(FFDVB_FE_GET_PROPERTY32, 1, &lo);
	EXPECT_EQ("props32 ok", ffdvb_marshal_payload(&lo, &props, &p), 0);
	EXPECT_EQ("props32 user elem", p.user_elem, 72);
	EXPECT_EQ("props32 native len", p.len, 3 * 76);
	EXPECT_EQ("props get: copy out", p.copy_out, 1);
}

static void strings(void)
{
	/* pieces end at page boundaries and never exceed the limit */
	EXPECT_EQ("piece to page end", ffdvb_marshal_string_piece(0x1ff0, 0, 240, 4096), 16);
	EXPECT_EQ("piece next page", ffdvb_marshal_string_piece(0x1ff0, 16, 240, 4096), 224);
	EXPECT_EQ("piece within page", ffdvb_marshal_string_piece(0x1000, 0, 240, 4096), 240);
	EXPECT_EQ("piece done", ffdvb_marshal_string_piece(0x1000, 240, 240, 4096), 0);
	EXPECT_EQ("len with NUL", ffdvb_marshal_string_len("ab\0cd", 5), 3);
	EXPECT_EQ("len without NUL", ffdvb_marshal_string_len("abcd", 4), 0);
}

/* Chained-retry chunks cover the payload in order, whole rows, within the limits. */
static void chunk_walk(const char *name, const struct ffdvb_payload *p, size_t room,
		       size_t max_iov)
{
	struct iovec iov[256];
	size_t have = 0, rounds = 0, len, n, bad = 0;
	char what[128];

	while ((n = ffdvb_marshal_chunk(p, have, room, iov, max_iov, &len)) > 0) {
		size_t sum = 0;

		for (size_t i = 0; i < n; i++) {
			/* expected address of this piece */
			uint64_t want = p->kind == FFDVB_PAYLOAD_BLOCK || p->stride == p->width
						? p->addr + have + sum
						: p->addr + ((have + sum) / p->width) * p->stride;

			bad += (uint64_t)(uintptr_t)iov[i].iov_base != want;
			sum += iov[i].iov_len;
		}
		bad += sum != len || len > room || n > max_iov;
		if (p->kind == FFDVB_PAYLOAD_ROWS)
			bad += len % p->width != 0;
		have += len;
		rounds++;
	}
	snprintf(what, sizeof(what), "%s: chunks cover the payload", name);
	EXPECT_EQ(what, have, p->len);
	snprintf(what, sizeof(what), "%s: addresses, limits, whole rows", name);
	EXPECT_EQ(what, bad, 0);
	printf("  %s: %zu rounds\n", name, rounds);
}

static void chunks(void)
{
	size_t room = 131072 - 16;
	struct ffdvb_payload still = { .kind = FFDVB_PAYLOAD_BLOCK, .addr = 0x10000, .len = 1000000 };
	struct ffdvb_payload block = { .kind = FFDVB_PAYLOAD_ROWS, .addr = 0x20000, .width = 720,
				       .rows = 576, .stride = 1000, .len = 414720 };
	struct ffdvb_payload packed = block;

	packed.stride = 720;
	chunk_walk("1 MB still", &still, room, 254);
	chunk_walk("720x576 stride 1000", &block, room, 254);
	chunk_walk("720x576 packed", &packed, room, 254);
	block.width = 8;
	block.len = 8 * 576;
	chunk_walk("8x576 stride 1000 (iovec-bound)", &block, room, 254);
}

/* what a reply can carry: the kernel refuses errnos from 512 on (the caller would hang) */
static void reply_errnos(void)
{
	EXPECT_EQ("EINVAL passes", ffdvb_marshal_reply_errno(EINVAL), EINVAL);
	EXPECT_EQ("EOPNOTSUPP passes", ffdvb_marshal_reply_errno(EOPNOTSUPP), EOPNOTSUPP);
	EXPECT_EQ("511 passes", ffdvb_marshal_reply_errno(511), 511);
	EXPECT_EQ("vidtv's ENOTSUPP (524) -> EOPNOTSUPP", ffdvb_marshal_reply_errno(524), EOPNOTSUPP);
	EXPECT_EQ("ERESTARTSYS (512) -> EIO", ffdvb_marshal_reply_errno(512), EIO);
	EXPECT_EQ("EIOCBQUEUED (529) -> EIO", ffdvb_marshal_reply_errno(529), EIO);
}

int main(void)
{
	reply_errnos();
	layouts();
	compat_conversions();
	payloads();
	strings();
	chunks();
	printf("%d/%d checks passed\n", checks - failures, checks);
	return failures ? 1 : 0;
}
