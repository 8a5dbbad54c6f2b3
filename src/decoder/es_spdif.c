/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Passthrough: AC-3, DTS and E-AC-3 access units packed as IEC 61937 bursts by libavformat's
 * spdif muxer (writing into memory) and handed on as S16 frames flagged
 * es_frame_info.passthrough, so that nothing after us changes a bit of them: the AV receiver
 * behind the digital output decodes them. A burst lasts exactly as long as the sound it
 * carries (1536 samples for AC-3 and E-AC-3, the frame's for DTS), so its pts times it like
 * decoded sound. AC-3 and DTS bursts are 48 kHz stereo; E-AC-3's need a 192 kHz link, so
 * their frames carry four stereo samples per 48 kHz sample (8 "channels", info.link 4). The
 * muxer gathers E-AC-3 frames of fewer than 6 blocks into one burst: it then writes nothing
 * for the first ones, whose pts is kept for the burst. Only 48 kHz streams pass; others are
 * decoded. See docs/audio.md. */
#include <libavformat/avformat.h>
#include <stdlib.h>
#include <string.h>

#include "ffdvb/log.h"
#include "ffdvb/output.h"
#include "es_internal.h"

#define BURST_MAX 65536 /* bytes: no burst of a 48 kHz format is larger */

struct es_spdif {
	AVFormatContext *fmt;
	enum AVCodecID id;
	int64_t n;          /* units written: the muxer's own (monotonic) timestamps */
	int64_t pts;        /* of the first unit of a burst still being gathered */
	uint8_t buf[BURST_MAX]; /* what the muxer wrote for the last unit */
	size_t len;
};

static int collect(void *opaque, uint8_t *data, int n)
{
	struct es_spdif *sp = opaque;

	if (n < 0 || sp->len + (size_t)n > BURST_MAX)
		return AVERROR(ENOSPC);
	memcpy(sp->buf + sp->len, data, (size_t)n);
	sp->len += (size_t)n;
	return n;
}

void es_spdif_free(struct es *es)
{
	struct es_spdif *sp = es->spdif;

	if (!sp)
		return;
	if (sp->fmt) {
		if (sp->fmt->pb)
			av_freep(&sp->fmt->pb->buffer);
		avio_context_free(&sp->fmt->pb);
		avformat_free_context(sp->fmt);
	}
	free(sp);
	es->spdif = NULL;
}

static struct es_spdif *spdif_open(enum AVCodecID id)
{
	struct es_spdif *sp = calloc(1, sizeof(*sp));
	uint8_t *iobuf = av_malloc(4096);
	AVStream *st;

	if (!sp || !iobuf || avformat_alloc_output_context2(&sp->fmt, NULL, "spdif", NULL) < 0)
		goto fail;
	sp->id = id;
	sp->pts = AV_NOPTS_VALUE;
	sp->fmt->pb = avio_alloc_context(iobuf, 4096, 1, sp, NULL, collect, NULL);
	if (!sp->fmt->pb)
		goto fail;
	iobuf = NULL;
	st = avformat_new_stream(sp->fmt, NULL);
	if (!st)
		goto fail;
	st->time_base = (AVRational){ 1, 90000 };
	st->codecpar->codec_type = AVMEDIA_TYPE_AUDIO;
	st->codecpar->codec_id = id;
	st->codecpar->sample_rate = FFDVB_AUDIO_RATE;
	if (avformat_write_header(sp->fmt, NULL) < 0)
		goto fail;
	sp->len = 0; /* the header writes nothing; be sure */
	return sp;
fail:
	av_free(iobuf);
	if (sp) {
		struct es tmp = { .spdif = sp };

		es_spdif_free(&tmp);
	}
	return NULL;
}

static int passes(const struct es *es)
{
	int sr = es->c.pctx ? es->c.pctx->sample_rate : 0;

	if (sr != FFDVB_AUDIO_RATE)
		return 0;
	return (es->c.id == AV_CODEC_ID_AC3 && (es->passthrough & ES_PASS_AC3)) ||
	       (es->c.id == AV_CODEC_ID_DTS && (es->passthrough & ES_PASS_DTS)) ||
	       (es->c.id == AV_CODEC_ID_EAC3 && (es->passthrough & ES_PASS_EAC3));
}

/* the link a format's bursts need, in multiples of 48 kHz (IEC 61937-3: E-AC-3 at four times
 * the rate of its sound) */
static unsigned int link_of(enum AVCodecID id)
{
	return id == AV_CODEC_ID_EAC3 ? 4 : 1;
}

static void emit(struct es *es, const uint8_t *burst, size_t len, int64_t pts)
{
	unsigned int link = link_of(es->spdif->id);
	size_t bytes = FFDVB_AUDIO_FRAME_BYTES * link; /* per 48 kHz sample */
	struct es_frame_info info = { .key = 1, .passthrough = 1, .link = link };
	AVFrame *f = av_frame_alloc();

	if (!f)
		return;
	f->format = AV_SAMPLE_FMT_S16;
	f->sample_rate = FFDVB_AUDIO_RATE;
	f->nb_samples = (int)(len / bytes);
	av_channel_layout_default(&f->ch_layout, (int)(FFDVB_AUDIO_CHANNELS * link));
	if (av_frame_get_buffer(f, 0) < 0) {
		av_frame_free(&f);
		return;
	}
	memcpy(f->data[0], burst, (size_t)f->nb_samples * bytes);
	if (pts != AV_NOPTS_VALUE) /* else continued from the previous bursts */
		es_audio_anchor(es, pts);
	f->pts = es_audio_next_pts(es);
	es->anchor_samples += f->nb_samples;
	info.duration = av_rescale(f->nb_samples, 90000, FFDVB_AUDIO_RATE);
	es->st.frames++;
	es->st.passthrough_bursts++;
	if (es->cb)
		es->cb(es->cb_ctx, f, &info);
	else
		av_frame_free(&f);
}

int es_spdif_unit(struct es *es, const uint8_t *data, size_t len, int64_t pts)
{
	AVPacket *pkt = es->c.pkt;
	struct es_spdif *sp;
	int ret;

	if (!passes(es) || len > INT_MAX) {
		if (es->spdif && !es->passthrough)
			es_spdif_free(es);
		return 0;
	}
	if (es->spdif && es->spdif->id != es->c.id)
		es_spdif_free(es);
	if (!es->spdif && !(es->spdif = spdif_open(es->c.id)))
		return 0; /* decoded instead */
	sp = es->spdif;
	pkt->data = (uint8_t *)data;
	pkt->size = (int)len;
	pkt->pts = pkt->dts = sp->n++;
	pkt->duration = 1;
	if (sp->len || sp->pts == AV_NOPTS_VALUE) /* the previous unit made a burst: a new one */
		sp->pts = pts;
	sp->len = 0;
	ret = av_write_frame(sp->fmt, pkt);
	avio_flush(sp->fmt->pb);
	pkt->data = NULL;
	pkt->size = 0;
	if (ret < 0 || sp->len % (FFDVB_AUDIO_FRAME_BYTES * link_of(sp->id))) {
		es->st.decode_errors++; /* a unit the muxer refused: skipped like a bad frame */
		sp->pts = AV_NOPTS_VALUE; /* the next unit starts a burst */
		return 1;
	}
	if (sp->len)
		emit(es, sp->buf, sp->len, sp->pts);
	return 1;
}
