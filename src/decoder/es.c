/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The elementary-stream object: takes repacked PES packets, checks and strips their header,
 * routes the payload by stream id (video 0xE0-0xEF; MPEG audio 0xC0-0xDF; private stream 1
 * 0xBD) and hands the PES PTS on with it. Drain, reset and the key-frames-only and live
 * switches. */
#include <stdlib.h>
#include <string.h>

#include <libswresample/swresample.h>

#include "ffdvb/output.h"
#include "ffdvb/pes.h"
#include "es_internal.h"

struct es *es_new(const struct es_config *cfg)
{
	struct es *es = calloc(1, sizeof(*es));

	if (!es)
		return NULL;
	es->cfg = *cfg;
	es->c.id = AV_CODEC_ID_NONE;
	es->last_id = AV_CODEC_ID_NONE;
	es->next_pts = es->last_vpts = AV_NOPTS_VALUE;
	es->anchor_pts = AV_NOPTS_VALUE;
	es->preview_due = 1;
	return es;
}

static void forget(struct es *es)
{
	es_codec_close(es);
	es_deint_free(es);
	es_audio_reset(es);
	es_iec_reset(es);
	es->bd = es->bd_cont = ES_BD_NONE;
	es->family = 0;
	es->last_len = 0;
	es->last_w = es->last_h = 0;
	es->next_pts = es->last_vpts = AV_NOPTS_VALUE;
	es->preview_due = 1;
	es->st.codec[0] = '\0';
	es->unknown_noted = 0; /* a new stream: said again if it is unknown too */
	es->unknown_bytes = 0;
}

void es_free(struct es *es)
{
	if (!es)
		return;
	forget(es);
	es_spdif_free(es);
	free(es->pad);
	free(es);
}

void es_reset(struct es *es)
{
	forget(es);
}

/* the minimal header the repacker gives continuation fragments (docs/av7110.md §6.1) */
static int minimal_header(const uint8_t *pkt, size_t hlen, const struct ffdvb_pes_header *h)
{
	if (h->mpeg1)
		return hlen == 7 && pkt[6] == 0x0F;
	return hlen == 9 && pkt[6] == 0x80 && pkt[7] == 0x00 && pkt[8] == 0x00;
}

static void audio_payload(struct es *es, uint8_t id, const uint8_t *p, size_t n, int64_t pts,
			  int cont)
{
	uint8_t family = id == 0xBD ? 0xBD : 0xC0;

	if (family != es->family) { /* MPEG audio <-> private stream 1: detect afresh */
		if (es->c.id != AV_CODEC_ID_NONE) {
			es_codec_drain(es);
			es_codec_close(es);
		}
		es_iec_reset(es);
		es->bd = es->bd_cont = ES_BD_NONE;
		es->family = family;
		cont = 0;
	}
	if (family == 0xBD)
		es_bd_payload(es, p, n, pts, cont);
	else
		es_mpa_payload(es, p, n, pts);
}

int es_feed_pes(struct es *es, const uint8_t *pkt, size_t len, es_frame_fn cb, void *ctx)
{
	struct ffdvb_pes_header h;
	int64_t pts, dts;
	size_t n;
	int hlen, cont;
	uint8_t id;

	es->cb = cb;
	es->cb_ctx = ctx;
	es_deint_poll(es); /* the pictures the filter finished meanwhile */
	es->st.pes_packets++;
	hlen = ffdvb_pes_header_parse(pkt, len, &h);
	/* the card's packets are whole: a length that disagrees means a damaged packet */
	if (hlen < 0 || (h.packet_length && (size_t)h.packet_length + 6 != len)) {
		es->st.bad_pes++;
		es->last_len = 0;
		return 0;
	}
	id = h.stream_id;
	n = len - (size_t)hlen;
	es->st.bytes += n;
	cont = es->last_len == FFDVB_PES_OUT_MAX && es->last_sid == id && !h.has_pts &&
	       minimal_header(pkt, (size_t)hlen, &h);
	es->last_len = len;
	es->last_sid = id;
	pts = h.has_pts ? (int64_t)h.pts : AV_NOPTS_VALUE;
	dts = h.has_dts ? (int64_t)h.dts : AV_NOPTS_VALUE;
	if (es->cfg.kind == ES_VIDEO && id >= 0xE0 && id <= 0xEF) {
		es_video_payload(es, pkt + hlen, n, pts, dts);
		if (es_video_ends(es, pkt + hlen, n)) {
			es_drain(es, cb, ctx);
			return 1;
		}
	} else if (es->cfg.kind == ES_AUDIO && (id == 0xBD || (id >= 0xC0 && id <= 0xDF)))
		audio_payload(es, id, pkt + hlen, n, pts, cont);
	else
		es->st.skipped_bytes += n; /* not a stream this object decodes */
	return 0;
}

void es_drain(struct es *es, es_frame_fn cb, void *ctx)
{
	es->cb = cb;
	es->cb_ctx = ctx;
	es_codec_drain(es);
	if (es->cfg.kind == ES_VIDEO)
		es_deint_drain(es);
	else
		es_audio_drain(es);
	es->preview_due = 1; /* the decoder starts again from a key picture */
}

void es_settle(struct es *es)
{
	es_deint_settle(es);
}

int es_feed_raw(struct es *es, const uint8_t *data, size_t len, int64_t pts, es_frame_fn cb,
		void *ctx)
{
	es->cb = cb;
	es->cb_ctx = ctx;
	es->st.bytes += len;
	es->last_len = 0;
	if (es->cfg.kind == ES_VIDEO)
		es_video_payload(es, data, len, pts, AV_NOPTS_VALUE);
	else
		es->st.skipped_bytes += len;
	es_drain(es, cb, ctx);
	return 0;
}

int es_holds(struct es *es)
{
	const AVCodecContext *dec = es->c.dec;

	if (es->c.id == AV_CODEC_ID_NONE)
		return es->family == 0xBD; /* LPCM gathers bursts and S302M packets by itself */
	if (es->cfg.kind == ES_VIDEO || es->family != 0xC0 || es->spdif)
		return 1; /* reordering, private stream 1 buffers, E-AC-3 bursts gathered */
	if (es->c.pending || !dec || (dec->codec && dec->codec->capabilities & AV_CODEC_CAP_DELAY))
		return 1;
	return es->swr && swr_get_delay(es->swr, FFDVB_AUDIO_RATE) > 0;
}

void es_set_key_frames_only(struct es *es, int on)
{
	es->key_only = !!on;
	if (es->c.opened && es->cfg.kind == ES_VIDEO)
		es->c.dec->skip_frame = on ? AVDISCARD_NONKEY : AVDISCARD_DEFAULT;
}

void es_set_live(struct es *es, int on)
{
	es->live = !!on;
}

void es_set_passthrough(struct es *es, unsigned int formats)
{
	es->passthrough = formats & (ES_PASS_AC3 | ES_PASS_DTS | ES_PASS_EAC3);
}

void es_get_stats(const struct es *es, struct es_stats *out)
{
	*out = es->st;
}
