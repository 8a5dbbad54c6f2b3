/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Codec detection from the first payload bytes: just enough of a peek to pick a decoder (MPEG
 * sequence header, H.264 SPS, HEVC VPS, MPEG audio frame header, AAC in ADTS or LATM, IEC 61937
 * preamble). Splitting the
 * stream into units is the libavcodec parsers' job. */
#include <stdint.h>

#include "es_internal.h"

/* H.264 profile_idc values of 14496-10 Annex A (an SPS carries one of them) */
static int h264_profile(uint8_t p)
{
	static const uint8_t known[] = { 44, 66, 77, 83, 86, 88, 100, 110, 118, 122, 128, 134,
					 135, 138, 139, 144, 244 };

	for (size_t i = 0; i < sizeof(known); i++)
		if (known[i] == p)
			return 1;
	return 0;
}

/* MPEG-1 or MPEG-2: a sequence extension (00 00 01 B5, id 1) right after the sequence header
 * (13818-2 §6.2.2) before the GOP or the first picture. */
static enum AVCodecID mpeg_version(const uint8_t *p, size_t n, size_t i)
{
	for (i += 4; i + 4 < n; i++) {
		if (p[i] || p[i + 1] || p[i + 2] != 1)
			continue;
		if (p[i + 3] == 0xB5)
			return (p[i + 4] >> 4) == 1 ? AV_CODEC_ID_MPEG2VIDEO : AV_CODEC_ID_MPEG1VIDEO;
		if (p[i + 3] == 0x00 || p[i + 3] == 0xB8)
			return AV_CODEC_ID_MPEG1VIDEO;
	}
	return AV_CODEC_ID_MPEG2VIDEO; /* undecided: the MPEG-2 decoder takes both */
}

/* HEVC video parameter set (23008-2 §7.3.2.1): NAL type 32, layer 0, temporal id 1, and its
 * 16 reserved bits 0xFFFF after the first 16: an MPEG-2 slice start code 0x40 (row 65 of an HD
 * picture) does not carry them */
static int hevc_vps(const uint8_t *p, size_t n, size_t i)
{
	return i + 8 < n && p[i + 3] == 0x40 && p[i + 4] == 0x01 && p[i + 7] == 0xFF &&
	       p[i + 8] == 0xFF;
}

enum AVCodecID es_detect_video(const uint8_t *p, size_t n, size_t *off)
{
	size_t aud = SIZE_MAX; /* an H.264 access unit delimiter opens the unit of the SPS */
	size_t hevc_aud = SIZE_MAX; /* HEVC's (type 35) that of the VPS */

	for (size_t i = 0; i + 4 < n; i++) {
		uint8_t c;

		if (p[i] || p[i + 1] || p[i + 2] != 1)
			continue;
		c = p[i + 3];
		if (c == 0x09 && aud == SIZE_MAX)
			aud = i > 0 && p[i - 1] == 0 ? i - 1 : i;
		if (c == 0x46 && p[i + 4] == 0x01 && hevc_aud == SIZE_MAX)
			hevc_aud = i > 0 && p[i - 1] == 0 ? i - 1 : i;
		if (hevc_vps(p, n, i)) {
			*off = hevc_aud != SIZE_MAX ? hevc_aud : i > 0 && p[i - 1] == 0 ? i - 1 : i;
			return AV_CODEC_ID_HEVC;
		}
		if (c == 0xB3) {
			*off = i;
			return mpeg_version(p, n, i);
		}
		/* SPS: forbidden bit 0, nal_ref_idc != 0, type 7, known profile, reserved bits 0 */
		if ((c & 0x9F) == 0x07 && (c & 0x60) && i + 6 < n && h264_profile(p[i + 4]) &&
		    (p[i + 5] & 0x03) == 0) {
			*off = aud != SIZE_MAX ? aud : i > 0 && p[i - 1] == 0 ? i - 1 : i;
			return AV_CODEC_ID_H264;
		}
	}
	return AV_CODEC_ID_NONE;
}

/* A frame of length len at i is a whole one: it ends the payload, or the next one starts
 * with the same sync where the payload shows it. */
static int frame_fits(const uint8_t *p, size_t n, size_t i, size_t len, uint8_t sync0,
		      uint8_t mask1, uint8_t sync1)
{
	if (len == 0 || i + len > n)
		return 0;
	if (i + len == n)
		return 1;
	return i + len + 1 < n && p[i + len] == sync0 && (p[i + len + 1] & mask1) == sync1;
}

/* AAC in ADTS (13818-7 §6.2: sync 0xFFF, layer 00) or in LATM/LOAS (14496-3 §1.7.2: sync
 * 0x2B7 and a 13-bit length), which DVB carries in MPEG audio PES (stream types 0x0F, 0x11) */
static enum AVCodecID aac_at(const uint8_t *p, size_t n, size_t i)
{
	if (i + 7 <= n && p[i] == 0xFF && (p[i + 1] & 0xF6) == 0xF0 && ((p[i + 2] >> 2) & 0xF) < 13) {
		size_t len = (size_t)(p[i + 3] & 3) << 11 | (size_t)p[i + 4] << 3 | p[i + 5] >> 5;

		if (len >= 7 && frame_fits(p, n, i, len, 0xFF, 0xF6, 0xF0))
			return AV_CODEC_ID_AAC;
	}
	if (i + 3 <= n && p[i] == 0x56 && (p[i + 1] & 0xE0) == 0xE0) {
		size_t len = 3 + ((size_t)(p[i + 1] & 0x1F) << 8 | p[i + 2]);

		if (frame_fits(p, n, i, len, 0x56, 0xE0, 0xE0))
			return AV_CODEC_ID_AAC_LATM;
	}
	return AV_CODEC_ID_NONE;
}

enum AVCodecID es_detect_mpa(const uint8_t *p, size_t n, size_t *off)
{
	for (size_t i = 0; i + 3 < n; i++) {
		unsigned int ver, layer, br, sr;
		enum AVCodecID aac = aac_at(p, n, i);

		if (aac != AV_CODEC_ID_NONE) {
			*off = i;
			return aac;
		}

		if (p[i] != 0xFF || (p[i + 1] & 0xE0) != 0xE0)
			continue;
		ver = (p[i + 1] >> 3) & 3;
		layer = (p[i + 1] >> 1) & 3;
		br = p[i + 2] >> 4;
		sr = (p[i + 2] >> 2) & 3;
		if (ver == 1 || layer == 0 || br == 0 || br == 15 || sr == 3)
			continue;
		*off = i;
		return layer == 3 ? AV_CODEC_ID_MP1 : layer == 2 ? AV_CODEC_ID_MP2 : AV_CODEC_ID_MP3;
	}
	return AV_CODEC_ID_NONE;
}

long es_detect_iec(const uint8_t *p, size_t n, int *swapped)
{
	for (size_t i = 0; i + 4 <= n; i++) { /* any byte: the buffer may start mid-word */
		if (p[i] == 0xF8 && p[i + 1] == 0x72 && p[i + 2] == 0x4E && p[i + 3] == 0x1F) {
			*swapped = 0;
			return (long)i;
		}
		if (p[i] == 0x72 && p[i + 1] == 0xF8 && p[i + 2] == 0x1F && p[i + 3] == 0x4E) {
			*swapped = 1;
			return (long)i;
		}
	}
	return -1;
}

static int family(enum AVCodecID id)
{
	switch (id) {
	case AV_CODEC_ID_MPEG1VIDEO:
	case AV_CODEC_ID_MPEG2VIDEO:
		return AV_CODEC_ID_MPEG2VIDEO;
	case AV_CODEC_ID_AC3:
	case AV_CODEC_ID_EAC3: /* the AC-3 parser tells E-AC-3 only after the first frames */
		return AV_CODEC_ID_AC3;
	default:
		return id;
	}
}

int es_same_codec_family(enum AVCodecID a, enum AVCodecID b)
{
	return family(a) == family(b);
}
