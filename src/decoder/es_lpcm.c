/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private stream 1 (0xBD): what follows the PES header decides the format.
 *  - 0B 77: AC-3/E-AC-3 frames directly (DVB); later PES need not start on a frame.
 *  - 0x80-0x87: DVD AC-3 substream: id, frame count, 2-byte first access unit offset, AC-3.
 *  - 7F FE 80 01: DTS frames directly (DVB, stream type 0x82 in ffmpeg's TS); 0x88-0x8F: the
 *    DVD DTS substream, with the same 4-byte header as AC-3's. The core is decoded.
 *  - 0xA0-0xAF: DVD LPCM: id, frame count, 2-byte offset, then 3 header bytes (emphasis/mute/
 *    frame number; quantization(2) frequency(2) reserved(1) channels-1(3); dynamic range),
 *    then big-endian samples. MPlayer and ffmpeg's vob/dvd muxers both write 0x01|(freq<<4)
 *    for 16-bit stereo (freq 0 = 48k, 1 = 96k, 2 = 44.1k, 3 = 32k). libavcodec's pcm_dvd
 *    decoder takes those 3 header bytes + samples as a packet.
 *  - IEC 61937 bursts inside LPCM (MPlayer -ac hwac3): Pa Pb = F8 72 4E 1F as 16-bit words
 *    (big-endian as LPCM carries them; little-endian accepted too), Pc = data type (1 AC-3,
 *    21 E-AC-3), Pd = payload length (bits for AC-3, bytes for E-AC-3); the payload is
 *    AC-3 in the same 16-bit words and goes to the AC-3 parser.
 *  - SMPTE 302M (DVB's uncompressed audio, vidtv's only stream): a 4-byte AES3 header whose
 *    first 16 bits count the payload bytes after it; libavcodec's s302m decoder wants exactly
 *    one PES payload per packet, so the fragments are gathered first.
 * A PES larger than the repacker's 2048 bytes arrives split: continuation fragments carry no
 * substream header and continue what the first one started. Other substreams (subpictures
 * 0x20-0x3F) are skipped. */
#include <stdlib.h>
#include <string.h>

#include "ffdvb/output.h"
#include "es_internal.h"

#define IEC_LOST_SYNC (64 * 1024) /* LPCM bytes without a burst before IEC mode ends */
#define IEC_MAX_BURST (65536)

static int ensure(struct es *es, enum AVCodecID id)
{
	if (es->c.id == id || (id == AV_CODEC_ID_AC3 && es->c.id == AV_CODEC_ID_EAC3))
		return 0;
	return es_codec_start(es, id);
}

/* LPCM samples with the last header in front, as pcm_dvd wants them */
static void lpcm_data(struct es *es, const uint8_t *d, size_t n, int64_t pts)
{
	uint8_t *buf;

	if (n == 0)
		return;
	buf = malloc(n + 3 + AV_INPUT_BUFFER_PADDING_SIZE);
	if (!buf)
		return;
	memcpy(buf, es->lpcm_hdr, 3);
	memcpy(buf + 3, d, n);
	memset(buf + 3 + n, 0, AV_INPUT_BUFFER_PADDING_SIZE);
	es_codec_parse(es, buf, n + 3, pts, AV_NOPTS_VALUE);
	free(buf);
}

/* ---- IEC 61937 -------------------------------------------------------------------------- */

void es_iec_reset(struct es *es) /* and the 302M gathering: both hold private stream 1 state */
{
	free(es->iec.buf);
	memset(&es->iec, 0, sizeof(es->iec));
	free(es->s302m.buf);
	memset(&es->s302m, 0, sizeof(es->s302m));
}

/* ---- SMPTE 302M ------------------------------------------------------------------------- */

/* audio_packet_size(16) number_channels(2) channel_identification(8) bits_per_sample(2)
 * alignment_bits(4): 2/4/6/8 channels of 16/20/24-bit samples, packed in pairs of channels
 * (5, 6 or 7 bytes per pair), zero alignment bits. */
static size_t s302m_need(const uint8_t *p, size_t n)
{
	size_t size, pair;
	unsigned int bits;

	if (n < 4)
		return 0;
	size = (size_t)p[0] << 8 | p[1];
	bits = (p[3] >> 4) & 3;
	if (bits == 3 || (p[3] & 0x0F) || size == 0)
		return 0;
	pair = 5 + bits;
	if (size % (pair * (1 + (p[2] >> 6))))
		return 0;
	return size + 4;
}

static void s302m_data(struct es *es, const uint8_t *d, size_t n)
{
	size_t take;

	if (!es->s302m.need)
		return;
	take = n < es->s302m.need - es->s302m.len ? n : es->s302m.need - es->s302m.len;
	memcpy(es->s302m.buf + es->s302m.len, d, take);
	es->s302m.len += take;
	es->st.skipped_bytes += n - take;
	if (es->s302m.len == es->s302m.need) {
		es_codec_parse(es, es->s302m.buf, es->s302m.len, es->s302m.pts, AV_NOPTS_VALUE);
		es->s302m.need = es->s302m.len = 0;
	}
}

static int s302m_start(struct es *es, const uint8_t *p, size_t n, int64_t pts)
{
	size_t need = s302m_need(p, n);
	uint8_t *buf;

	if (!need || ensure(es, AV_CODEC_ID_S302M) < 0)
		return -1;
	if (es->s302m.len) /* the previous PES ended short: lost packets */
		es->st.skipped_bytes += es->s302m.len;
	buf = realloc(es->s302m.buf, need + AV_INPUT_BUFFER_PADDING_SIZE);
	if (!buf)
		return -1;
	memset(buf + need, 0, AV_INPUT_BUFFER_PADDING_SIZE);
	es->s302m.buf = buf;
	es->s302m.need = need;
	es->s302m.len = 0;
	es->s302m.pts = pts;
	s302m_data(es, p, n);
	return 0;
}

static unsigned int word(const uint8_t *p, int swapped)
{
	return swapped ? (unsigned int)p[0] | (unsigned int)p[1] << 8
		       : (unsigned int)p[0] << 8 | (unsigned int)p[1];
}

/* payload bytes of a burst with data type pc and length pd; 0: no payload; -1: not a burst */
static long burst_bytes(unsigned int pc, unsigned int pd)
{
	switch (pc & 0x1F) {
	case 0: /* null */
	case 3: /* pause */
		return 0;
	case 1: /* AC-3: Pd in bits */
		return pd % 8 == 0 && pd > 0 ? (long)(pd / 8) : -1;
	case 21: /* E-AC-3: Pd in bytes */
		return pd > 0 ? (long)pd : -1;
	default:
		return -1;
	}
}

/* drops k bytes from the front; pts marks move with the data (the newest mark before the
 * front stays, at a negative offset, for bursts that start after it) */
static void iec_drop(struct es_iec *b, size_t k)
{
	int keep = 0;

	memmove(b->buf, b->buf + k, b->len - k);
	b->len -= k;
	for (int i = 0; i < b->nmarks; i++)
		b->marks[i].off -= (long long)k;
	while (keep + 1 < b->nmarks && b->marks[keep + 1].off <= 0)
		keep++;
	memmove(b->marks, b->marks + keep, (size_t)(b->nmarks - keep) * sizeof(b->marks[0]));
	b->nmarks -= keep;
}

/* pts of the sample at the front: the newest mark at or before it, advanced by the 16-bit
 * stereo samples in between (LPCM carrying IEC 61937 is 48 kHz 16-bit stereo) */
static int64_t iec_front_pts(const struct es_iec *b)
{
	for (int i = b->nmarks - 1; i >= 0; i--)
		if (b->marks[i].off <= 0)
			return b->marks[i].pts + av_rescale(-b->marks[i].off / 4, 90000, FFDVB_AUDIO_RATE);
	return AV_NOPTS_VALUE;
}

static int iec_append(struct es_iec *b, const uint8_t *d, size_t n, int64_t pts)
{
	if (b->len + n > b->cap) {
		size_t cap = (b->len + n) * 2;
		uint8_t *nb = realloc(b->buf, cap);

		if (!nb)
			return -1;
		b->buf = nb;
		b->cap = cap;
	}
	if (pts != AV_NOPTS_VALUE) {
		if (b->nmarks == ES_IEC_MARKS) { /* forget the oldest */
			b->nmarks--;
			memmove(b->marks, b->marks + 1, (size_t)b->nmarks * sizeof(b->marks[0]));
		}
		b->marks[b->nmarks].off = (long long)b->len;
		b->marks[b->nmarks].pts = pts;
		b->nmarks++;
	}
	memcpy(b->buf + b->len, d, n);
	b->len += n;
	return 0;
}

static void iec_data(struct es *es, const uint8_t *d, size_t n, int64_t pts)
{
	struct es_iec *b = &es->iec;

	if (iec_append(b, d, n, pts) < 0)
		return;
	for (;;) {
		int swapped = 0;
		long at = es_detect_iec(b->buf, b->len, &swapped), len;
		size_t need;

		if (at < 0) { /* keep a possible start of a preamble */
			size_t k = b->len > 3 ? b->len - 3 : 0;

			b->since_sync += k;
			iec_drop(b, k);
			break;
		}
		b->since_sync += (size_t)at;
		iec_drop(b, (size_t)at);
		if (b->len < 8)
			break;
		len = burst_bytes(word(b->buf + 4, swapped), word(b->buf + 6, swapped));
		if (len < 0 || len > IEC_MAX_BURST) { /* not a burst we know: look further */
			iec_drop(b, 2);
			es->st.skipped_bytes += 2;
			continue;
		}
		need = 8 + (((size_t)len + 1) & ~(size_t)1);
		if (b->len < need)
			break;
		if (len > 0) {
			int64_t bpts = iec_front_pts(b);
			uint8_t *p = b->buf + 8;

			if (swapped)
				for (long i = 0; i < len; i += 2) { /* odd: the pad byte */
					uint8_t t = p[i];

					p[i] = p[i + 1];
					p[i + 1] = t;
				}
			es_codec_parse(es, p, (size_t)len, bpts, AV_NOPTS_VALUE);
		}
		iec_drop(b, need);
		b->since_sync = 0;
	}
}

/* ---- substreams ------------------------------------------------------------------------- */

/* real LPCM could hold F8 72 4E 1F by chance: also ask for a burst type we know */
static int looks_like_iec(const uint8_t *d, size_t n)
{
	int swapped = 0;
	long at = es_detect_iec(d, n, &swapped);

	return at >= 0 && (size_t)at + 8 <= n &&
	       burst_bytes(word(d + at + 4, swapped), word(d + at + 6, swapped)) > 0;
}

static void lpcm_substream(struct es *es, const uint8_t *d, size_t n, int64_t pts)
{
	if (es->bd != ES_BD_IEC && looks_like_iec(d, n)) {
		if (ensure(es, AV_CODEC_ID_AC3) < 0) {
			es->bd = ES_BD_NONE;
			return;
		}
		es_iec_reset(es);
		es->bd = ES_BD_IEC;
	}
	if (es->bd == ES_BD_IEC) {
		iec_data(es, d, n, pts);
		if (es->iec.since_sync < IEC_LOST_SYNC)
			return;
		es_iec_reset(es); /* plain LPCM again */
		es->bd = ES_BD_LPCM;
		return;
	}
	if (ensure(es, AV_CODEC_ID_PCM_DVD) < 0) {
		es->st.skipped_bytes += n;
		es->bd = ES_BD_NONE;
		return;
	}
	es->bd = ES_BD_LPCM;
	lpcm_data(es, d, n, pts);
}

static void continuation(struct es *es, const uint8_t *p, size_t n)
{
	switch (es->bd == es->bd_cont ? es->bd : ES_BD_NONE) {
	case ES_BD_RAW_AC3:
	case ES_BD_DVD_AC3:
	case ES_BD_RAW_DTS:
	case ES_BD_DVD_DTS:
		es_codec_parse(es, p, n, AV_NOPTS_VALUE, AV_NOPTS_VALUE);
		break;
	case ES_BD_LPCM:
		lpcm_data(es, p, n, AV_NOPTS_VALUE);
		break;
	case ES_BD_IEC:
		iec_data(es, p, n, AV_NOPTS_VALUE);
		break;
	case ES_BD_S302M:
		s302m_data(es, p, n);
		break;
	default:
		es->st.skipped_bytes += n;
	}
}

/* AC-3 or DTS frames after a header of hdr bytes: the codec (re)started if needed, the mode
 * kept for continuation fragments */
static void coded_frames(struct es *es, enum AVCodecID id, enum es_bd_mode mode, const uint8_t *p,
			 size_t n, size_t hdr, int64_t pts)
{
	if (ensure(es, id) < 0) {
		es->st.skipped_bytes += n;
		return;
	}
	es->bd = es->bd_cont = mode;
	es_codec_parse(es, p + hdr, n - hdr, pts, AV_NOPTS_VALUE);
}

void es_bd_payload(struct es *es, const uint8_t *p, size_t n, int64_t pts, int cont)
{
	uint8_t sub;

	if (cont) {
		continuation(es, p, n);
		return;
	}
	es->bd_cont = ES_BD_NONE;
	if (n == 0)
		return;
	sub = p[0];
	if ((n >= 4 && p[0] == 0x7F && p[1] == 0xFE && p[2] == 0x80 && p[3] == 0x01) ||
	    es->bd == ES_BD_RAW_DTS) {
		coded_frames(es, AV_CODEC_ID_DTS, ES_BD_RAW_DTS, p, n, 0, pts);
	} else if ((n >= 2 && p[0] == 0x0B && p[1] == 0x77) || es->bd == ES_BD_RAW_AC3) {
		coded_frames(es, AV_CODEC_ID_AC3, ES_BD_RAW_AC3, p, n, 0, pts);
	} else if (sub >= 0x80 && sub <= 0x87 && n >= 4) {
		coded_frames(es, AV_CODEC_ID_AC3, ES_BD_DVD_AC3, p, n, 4, pts);
	} else if (sub >= 0x88 && sub <= 0x8F && n >= 4) {
		coded_frames(es, AV_CODEC_ID_DTS, ES_BD_DVD_DTS, p, n, 4, pts);
	} else if (sub >= 0xA0 && sub <= 0xAF && n >= 7) {
		memcpy(es->lpcm_hdr, p + 4, 3);
		lpcm_substream(es, p + 7, n - 7, pts);
		es->bd_cont = es->bd;
	} else if (s302m_start(es, p, n, pts) == 0) {
		es->bd = es->bd_cont = ES_BD_S302M;
	} else {
		es->st.skipped_bytes += n;
	}
}
