/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb_pes_header_parse: MPEG-2 and MPEG-1 headers as real muxers write them, time stamps
 * (33 bit), malformed headers, and "needs more bytes" for every prefix of a valid header. Each
 * case is parsed from an exactly sized heap copy so that AddressSanitizer sees any over-read. */
#include "test_pes_util.h"

/* table rows leave the fields they do not need at zero */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define PTS_A 0x29, 0x8D, 0x15, 0xCF, 0x13  /* '0010' PTS 0x123456789 */
#define PTSD_A 0x39, 0x8D, 0x15, 0xCF, 0x13 /* '0011' PTS 0x123456789 */
#define DTS_B 0x17, 0xFB, 0x73, 0x75, 0x31  /* '0001' DTS 0x0FEDCBA98 */
#define PTS_MAX 0x2F, 0xFF, 0xFF, 0xFF, 0xFF /* '0010' PTS 0x1FFFFFFFF */

struct hcase {
	const char *name;
	uint8_t b[48];
	size_t len;
	int rc; /* header_len or -errno */
	int mpeg1, has_pts, has_dts;
	uint64_t pts, dts;
};

static const struct hcase cases[] = {
	{ "mpeg2 no pts", { 0, 0, 1, 0xE0, 0, 5, 0x80, 0x00, 0x00, 0xAA, 0xBB }, 11, 9, 0, 0, 0 },
	{ "mpeg2 pts", { 0, 0, 1, 0xE0, 0, 10, 0x84, 0x80, 5, PTS_A, 0xAA, 0xBB }, 16, 14, 0, 1, 0,
	  0x123456789 },
	{ "mpeg2 pts+dts", { 0, 0, 1, 0xE0, 0, 13, 0x84, 0xC0, 10, PTSD_A, DTS_B }, 19, 19, 0, 1, 1,
	  0x123456789, 0x0FEDCBA98 },
	{ "mpeg2 pts max, header stuffing", { 0, 0, 1, 0xC0, 0, 11, 0x80, 0x80, 8, PTS_MAX, 0xFF,
	  0xFF, 0xFF }, 17, 17, 0, 1, 0, 0x1FFFFFFFF },
	{ "mpeg2 unbounded video", { 0, 0, 1, 0xE0, 0, 0, 0x80, 0x80, 5, PTS_A, 0x00 }, 15, 14, 0, 1,
	  0, 0x123456789 },
	/* MPlayer's LPCM: 0xBD, PTS, then the 7-byte DVD LPCM header which is payload to us */
	{ "lpcm private stream 1", { 0, 0, 1, 0xBD, 0, 20, 0x81, 0x80, 5, PTS_A, 0xA0, 0x07, 0x00,
	  0x04, 0x0C, 0x01, 0x80 }, 21, 14, 0, 1, 0, 0x123456789 },
	{ "mpeg2 forbidden PTS_DTS_flags 01", { 0, 0, 1, 0xE0, 0, 8, 0x80, 0x40, 5, PTS_A }, 14,
	  -EINVAL },
	{ "mpeg2 pts flag, header too short", { 0, 0, 1, 0xE0, 0, 8, 0x80, 0x80, 3, 0x21, 0, 1 }, 12,
	  -EINVAL },
	{ "mpeg2 header longer than packet", { 0, 0, 1, 0xE0, 0, 3, 0x80, 0x80, 5, PTS_A, 0, 0 }, 16,
	  -EINVAL },
	/* MPlayer's MPEG-1 video: 11 bytes with PTS, 7 bytes with 0x0F */
	{ "mpeg1 pts (11 bytes)", { 0, 0, 1, 0xE0, 0, 7, PTS_A, 0xAA, 0xBB }, 13, 11, 1, 1, 0,
	  0x123456789 },
	{ "mpeg1 no pts (7 bytes)", { 0, 0, 1, 0xE0, 0, 3, 0x0F, 0xAA, 0xBB }, 9, 7, 1 },
	{ "mpeg1 pts+dts", { 0, 0, 1, 0xE0, 0, 10, PTSD_A, DTS_B }, 16, 16, 1, 1, 1, 0x123456789,
	  0x0FEDCBA98 },
	{ "mpeg1 std + pts", { 0, 0, 1, 0xC0, 0, 8, 0x60, 0x2E, PTS_A, 0xAA }, 14, 13, 1, 1, 0,
	  0x123456789 },
	{ "mpeg1 stuffing + std + 0x0F", { 0, 0, 1, 0xC0, 0, 7, 0xFF, 0xFF, 0xFF, 0x40, 0x20, 0x0F,
	  0xAA }, 13, 12, 1 },
	{ "mpeg1 16 stuffing bytes", { 0, 0, 1, 0xE0, 0, 17, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	  0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F }, 23, 23, 1 },
	{ "mpeg1 17 stuffing bytes", { 0, 0, 1, 0xE0, 0, 18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	  0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F }, 24, -EINVAL },
	{ "mpeg1 bad marker byte", { 0, 0, 1, 0xE0, 0, 3, 0x00, 0xAA, 0xBB }, 9, -EINVAL },
	{ "mpeg1 std then bad byte", { 0, 0, 1, 0xE0, 0, 4, 0x40, 0x00, 0x55, 0xAA }, 10, -EINVAL },
	{ "mpeg1 pts cut by packet length", { 0, 0, 1, 0xE0, 0, 3, PTS_A }, 11, -EINVAL },
	{ "padding: no optional header", { 0, 0, 1, 0xBE, 0, 2, 0xFF, 0xFF }, 8, 6 },
	{ "private stream 2", { 0, 0, 1, 0xBF, 0, 1, 0x00 }, 7, 6 },
	{ "pack header is not PES", { 0, 0, 1, 0xBA, 0x44, 0, 4, 0, 4, 1 }, 10, -EINVAL },
	{ "sequence header is not PES", { 0, 0, 1, 0xB3, 0x16, 0x01, 0x20 }, 7, -EINVAL },
	{ "bad prefix", { 0, 1, 1, 0xE0, 0, 3, 0x0F, 0, 0 }, 9, -EINVAL },
	{ "bad prefix seen early", { 0, 5 }, 2, -EINVAL },
	{ "prefix only", { 0, 0, 1 }, 3, -EAGAIN },
	{ "no length yet", { 0, 0, 1, 0xE0, 0 }, 5, -EAGAIN },
	{ "mpeg2 header cut", { 0, 0, 1, 0xE0, 0, 0, 0x80, 0x80, 5, 0x21, 0 }, 11, -EAGAIN },
};

static int parse_copy(const uint8_t *b, size_t len, struct ffdvb_pes_header *h)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	memcpy(copy, b, len);
	rc = ffdvb_pes_header_parse(copy, len, h);
	free(copy);
	return rc;
}

static void run_case(const struct hcase *c)
{
	struct ffdvb_pes_header h;
	int rc;

	memset(&h, 0xA5, sizeof(h));
	rc = parse_copy(c->b, c->len, &h);
	if (rc != c->rc)
		printf("case '%s':\n", c->name);
	CHECK_EQ(rc, c->rc);
	if (rc <= 0)
		return;
	CHECK_EQ(h.stream_id, c->b[3]);
	CHECK_EQ(h.packet_length, c->b[4] << 8 | c->b[5]);
	CHECK_EQ(h.header_len, (size_t)rc);
	CHECK_EQ(h.mpeg1, c->mpeg1);
	CHECK_EQ(h.has_pts, c->has_pts);
	CHECK_EQ(h.has_dts, c->has_dts);
	CHECK_EQ(h.pts, c->has_pts ? c->pts : 0);
	CHECK_EQ(h.dts, c->has_dts ? c->dts : 0);
	/* every shorter view of a valid, unbounded-or-longer header needs more bytes */
	for (size_t k = 0; k < (size_t)rc; k++) {
		int prc = parse_copy(c->b, k, &h);

		if (prc != -EAGAIN)
			printf("case '%s' cut at %zu:\n", c->name, k);
		CHECK_EQ(prc, -EAGAIN);
	}
}

static void kinds(void)
{
	static const struct {
		uint8_t lo, hi;
		enum ffdvb_pes_kind kind;
	} t[] = {
		{ 0x00, 0xBB, FFDVB_PES_NOT_PES }, { 0xBC, 0xBC, FFDVB_PES_SKIP },
		{ 0xBD, 0xBD, FFDVB_PES_FORWARD }, { 0xBE, 0xBF, FFDVB_PES_SKIP },
		{ 0xC0, 0xEF, FFDVB_PES_FORWARD }, { 0xF0, 0xF3, FFDVB_PES_SKIP },
		{ 0xF4, 0xFE, FFDVB_PES_NOT_PES }, { 0xFF, 0xFF, FFDVB_PES_SKIP },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		for (unsigned int id = t[i].lo; id <= t[i].hi; id++)
			CHECK_EQ(ffdvb_pes_kind((uint8_t)id), t[i].kind);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	kinds();
	return finish("test_pes_header");
}
