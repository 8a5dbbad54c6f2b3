/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which H.264 and HEVC access units the live preview may show at once
 * (es_clean_random_access, src/decoder/es_video.c): an H.264 IDR whatever its nal_ref_idc; an
 * HEVC IDR_N_LP or CRA; not an HEVC IDR_W_RADL, whose leading pictures come out before it,
 * nor a picture that needs earlier ones. Units written here byte by byte, as an encoder puts
 * them out (parameter sets first, 3- and 4-byte start codes). */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "es_internal.h"

/* an access unit: a start code and a header for each NAL type (HEVC: two bytes, type << 1),
 * and a few payload bytes after each */
static size_t unit(uint8_t *out, enum AVCodecID id, const unsigned int *types, int n, int long_sc)
{
	size_t len = 0;

	for (int i = 0; i < n; i++) {
		if (long_sc)
			out[len++] = 0;
		out[len++] = 0, out[len++] = 0, out[len++] = 1;
		if (id == AV_CODEC_ID_H264) {
			out[len++] = (uint8_t)types[i]; /* nal_ref_idc in the caller's bits */
		} else {
			out[len++] = (uint8_t)(types[i] << 1);
			out[len++] = 1; /* layer 0, temporal id 0 (+1) */
		}
		memcpy(out + len, "\x88\x84\x21\xa0", 4);
		len += 4;
	}
	return len;
}

#define IS(id, want, ...)                                                                    \
	do {                                                                                 \
		const unsigned int t_[] = { __VA_ARGS__ };                                   \
		uint8_t b_[256];                                                             \
		for (int sc_ = 0; sc_ < 2; sc_++) {                                          \
			size_t n_ = unit(b_, id, t_, (int)(sizeof(t_) / sizeof(t_[0])), sc_); \
			EXPECT_EQ(#id " " #__VA_ARGS__, es_clean_random_access(id, b_, n_), want); \
		}                                                                            \
	} while (0)

int main(void)
{
	const enum AVCodecID h264 = AV_CODEC_ID_H264, hevc = AV_CODEC_ID_HEVC;

	/* H.264 (one byte: nal_ref_idc << 5 | type): AUD, SPS, PPS, then the slice */
	IS(h264, 1, 0x09, 0x67, 0x68, 0x65);          /* IDR */
	IS(h264, 1, 0x09, 0x67, 0x68, 0x06, 0x25);    /* IDR after an SEI, another nal_ref_idc */
	IS(h264, 0, 0x09, 0x41);                      /* a non-IDR slice (an I-slice can be one) */
	IS(h264, 0, 0x09, 0x67, 0x68, 0x01);          /* non-IDR, no references kept */

	/* HEVC: AUD 35, VPS 32, SPS 33, PPS 34, prefix SEI 39, then the slice's type */
	IS(hevc, 1, 35, 32, 33, 34, 39, 20);          /* IDR_N_LP */
	IS(hevc, 1, 35, 32, 33, 34, 21);              /* CRA: its RASL pictures are skipped */
	IS(hevc, 0, 35, 32, 33, 34, 19);              /* IDR_W_RADL: refused */
	IS(hevc, 0, 35, 32, 33, 34, 19, 19);          /* ... also in two slices */
	IS(hevc, 0, 35, 1);                           /* TRAIL_R */
	IS(hevc, 0, 35, 32, 33, 34);                  /* parameter sets without a picture */

	/* nothing, or less than a start code and a header */
	EXPECT_EQ("empty", es_clean_random_access(hevc, (const uint8_t *)"", 0), 0);
	EXPECT_EQ("a start code alone",
		  es_clean_random_access(h264, (const uint8_t *)"\0\0\1", 3), 0);
	return finish("test_es_random_access");
}
