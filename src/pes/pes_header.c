/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PES header parsing: MPEG-2 (ISO/IEC 13818-1 §2.4.3.6/§2.4.3.7) and MPEG-1 (ISO/IEC 11172-1
 * §2.4.3.3) syntax, and the av7110 classification of stream ids (docs/av7110.md §6.1). */
#include <errno.h>

#include "ffdvb/pes.h"

#define MPEG1_MAX_STUFFING 16 /* 11172-1 §2.4.3.3: "no more than 16 stuffing bytes" */

enum ffdvb_pes_kind ffdvb_pes_kind(uint8_t id)
{
	if (id == 0xBD || (id >= 0xC0 && id <= 0xEF)) /* private 1, MPEG audio, video */
		return FFDVB_PES_FORWARD;
	if (id == 0xBC || id == 0xBE || id == 0xBF || (id >= 0xF0 && id <= 0xF3) || id == 0xFF)
		return FFDVB_PES_SKIP;
	return FFDVB_PES_NOT_PES;
}

/* 13818-1 §2.4.3.6: these stream ids carry no optional PES header (Table 2-21's "if" list). */
static int has_optional_header(uint8_t id)
{
	return id != 0xBC && id != 0xBE && id != 0xBF && id != 0xF0 && id != 0xF1 && id != 0xFF &&
	       id != 0xF2 && id != 0xF8;
}

/* 13818-1 §2.4.3.7 / 11172-1 §2.4.3.3: 4-bit prefix, PTS[32..30], marker, PTS[29..15], marker,
 * PTS[14..0], marker. Marker bits are not checked (the firmware does not either). */
static uint64_t read_ts33(const uint8_t *p)
{
	return ((uint64_t)((p[0] >> 1) & 7) << 30) | ((uint64_t)p[1] << 22) |
	       ((uint64_t)(p[2] >> 1) << 15) | ((uint64_t)p[3] << 7) | (uint64_t)(p[4] >> 1);
}

/* What to answer when the header needs more than `avail` bytes: if the packet's own length
 * ends before, the header does not fit (-EINVAL); otherwise the caller may bring more. */
struct view {
	const uint8_t *buf;
	size_t avail;  /* min(len, 6 + PES_packet_length) */
	int truncated; /* avail stops at the packet end, not at the end of the caller's data */
};

static int need(const struct view *v, size_t n)
{
	if (v->avail >= n)
		return 0;
	return v->truncated ? -EINVAL : -EAGAIN;
}

static int parse_mpeg2(const struct view *v, struct ffdvb_pes_header *h)
{
	const uint8_t *b = v->buf;
	size_t hdl, ts_len;
	unsigned int pts_dts;
	int rc;

	if ((rc = need(v, 9)) < 0)
		return rc;
	hdl = b[8]; /* PES_header_data_length */
	if ((rc = need(v, 9 + hdl)) < 0)
		return rc;
	pts_dts = b[7] >> 6; /* PTS_DTS_flags: '01' is forbidden (§2.4.3.7) */
	ts_len = pts_dts == 2 ? 5 : pts_dts == 3 ? 10 : 0;
	if (pts_dts == 1 || ts_len > hdl)
		return -EINVAL;
	h->mpeg1 = 0;
	h->header_len = 9 + hdl;
	h->has_pts = pts_dts >= 2;
	h->has_dts = pts_dts == 3;
	h->pts = h->has_pts ? read_ts33(b + 9) : 0;
	h->dts = h->has_dts ? read_ts33(b + 14) : 0;
	return 0;
}

static int parse_mpeg1(const struct view *v, struct ffdvb_pes_header *h)
{
	const uint8_t *b = v->buf;
	size_t pos = 6;
	int rc;

	for (;;) { /* stuffing_byte 0xFF */
		if ((rc = need(v, pos + 1)) < 0)
			return rc;
		if (b[pos] != 0xFF)
			break;
		if (++pos - 6 > MPEG1_MAX_STUFFING)
			return -EINVAL;
	}
	if ((b[pos] & 0xC0) == 0x40) { /* '01' STD_buffer_scale, STD_buffer_size: 2 bytes */
		pos += 2;
		if ((rc = need(v, pos + 1)) < 0)
			return rc;
	}
	h->has_pts = h->has_dts = 0;
	h->pts = h->dts = 0;
	if ((b[pos] & 0xF0) == 0x20) { /* '0010' PTS */
		if ((rc = need(v, pos + 5)) < 0)
			return rc;
		h->has_pts = 1;
		h->pts = read_ts33(b + pos);
		pos += 5;
	} else if ((b[pos] & 0xF0) == 0x30) { /* '0011' PTS, then '0001' DTS */
		if ((rc = need(v, pos + 10)) < 0)
			return rc;
		h->has_pts = h->has_dts = 1;
		h->pts = read_ts33(b + pos);
		h->dts = read_ts33(b + pos + 5);
		pos += 10;
	} else if (b[pos] == 0x0F) { /* '0000 1111': no time stamps */
		pos += 1;
	} else {
		return -EINVAL;
	}
	h->mpeg1 = 1;
	h->header_len = pos;
	return 0;
}

int ffdvb_pes_header_parse(const uint8_t *buf, size_t len, struct ffdvb_pes_header *out)
{
	static const uint8_t prefix[3] = { 0x00, 0x00, 0x01 };
	struct ffdvb_pes_header h = { 0 };
	struct view v = { .buf = buf };
	size_t plen;
	int rc;

	for (size_t i = 0; i < 3 && i < len; i++) /* packet_start_code_prefix */
		if (buf[i] != prefix[i])
			return -EINVAL;
	if (len < 4)
		return -EAGAIN;
	if (buf[3] < 0xBC) /* 0xB9 end, 0xBA pack, 0xBB system header, ES start codes */
		return -EINVAL;
	if (len < 6)
		return -EAGAIN;
	h.stream_id = buf[3];
	h.packet_length = (uint16_t)(buf[4] << 8 | buf[5]);
	plen = h.packet_length;
	v.avail = len;
	if (plen && len >= 6 + plen) {
		v.avail = 6 + plen;
		v.truncated = 1;
	}
	if (!has_optional_header(h.stream_id)) {
		h.header_len = 6;
	} else {
		if ((rc = need(&v, 7)) < 0)
			return rc;
		/* '10' starts the MPEG-2 flags; MPEG-1 starts with 0xFF, '01', '0010', '0011' or 0x0F */
		rc = (buf[6] & 0xC0) == 0x80 ? parse_mpeg2(&v, &h) : parse_mpeg1(&v, &h);
		if (rc < 0)
			return rc;
	}
	*out = h;
	return (int)h.header_len;
}
