/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Audio: MPEG audio payloads into the parser, and every decoded frame converted with
 * libswresample to what the output plays (FFDVB_AUDIO_RATE, FFDVB_AUDIO_CHANNELS interleaved
 * S16): mono goes to both channels at full level, more channels are downmixed by swr's matrix.
 * Output pts: continued from the previous output by the samples produced since, anchored at
 * a packet's PTS (minus what the resampler still holds) at the start and whenever the PTS
 * disagrees by more than ES_AUDIO_PTS_SLACK. */
#include <libavutil/opt.h>
#include <libswresample/swresample.h>

#include "ffdvb/output.h"
#include "es_internal.h"

#define PTS_MASK ((INT64_C(1) << 33) - 1)
/* A packet PTS this close to where the samples so far lead keeps the count going: DVD LPCM
 * PTS (ffmpeg's muxer) belong to the first audio frame starting in the packet, not its first
 * byte, and resampling rounds; only a jump or a drift beyond this (40 ms, inside the 45 ms
 * A/V detectability limit) re-anchors. */
#define ES_AUDIO_PTS_SLACK 3600

static AVChannelLayout stereo = AV_CHANNEL_LAYOUT_STEREO; /* not const: swr_alloc_set_opts2 */

void es_mpa_payload(struct es *es, const uint8_t *p, size_t n, int64_t pts)
{
	if (es->c.id == AV_CODEC_ID_NONE) {
		size_t off = 0;
		enum AVCodecID id = es_detect_mpa(p, n, &off);

		if (es_codec_start_at(es, id, off, n) < 0)
			return;
		p += off;
		n -= off;
	}
	es_codec_parse(es, p, n, pts, AV_NOPTS_VALUE);
}

void es_audio_anchor(struct es *es, int64_t pts)
{
	int64_t diff = 0;

	if (es->anchor_pts != AV_NOPTS_VALUE) {
		diff = ((pts & PTS_MASK) - es_audio_next_pts(es)) & PTS_MASK;
		if (diff > PTS_MASK / 2)
			diff = PTS_MASK + 1 - diff;
	}
	if (es->anchor_pts == AV_NOPTS_VALUE || diff > ES_AUDIO_PTS_SLACK) {
		es->anchor_pts = pts & PTS_MASK;
		es->anchor_samples = 0;
	}
}

int64_t es_audio_next_pts(const struct es *es)
{
	if (es->anchor_pts == AV_NOPTS_VALUE)
		return AV_NOPTS_VALUE;
	return (es->anchor_pts + av_rescale(es->anchor_samples, 90000, FFDVB_AUDIO_RATE)) & PTS_MASK;
}

static int setup_swr(struct es *es, const AVFrame *f)
{
	AVChannelLayout in = { 0 };
	int ret;

	if (f->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || !av_channel_layout_check(&f->ch_layout))
		av_channel_layout_default(&in, f->ch_layout.nb_channels);
	else if (av_channel_layout_copy(&in, &f->ch_layout) < 0)
		return -1;
	if (es->swr && f->sample_rate == es->swr_rate && f->format == es->swr_fmt &&
	    !av_channel_layout_compare(&in, &es->swr_layout)) {
		av_channel_layout_uninit(&in);
		return 0;
	}
	swr_free(&es->swr);
	av_channel_layout_uninit(&es->swr_layout);
	ret = swr_alloc_set_opts2(&es->swr, &stereo, AV_SAMPLE_FMT_S16, FFDVB_AUDIO_RATE, &in,
				  f->format, f->sample_rate, 0, NULL);
	if (ret == 0 && in.nb_channels == 1) {
		static const double both[2] = { 1.0, 1.0 };

		ret = swr_set_matrix(es->swr, both, 1);
	}
	if (ret == 0)
		ret = swr_init(es->swr);
	if (ret < 0) {
		swr_free(&es->swr);
		av_channel_layout_uninit(&in);
		return -1;
	}
	es->swr_layout = in;
	es->swr_rate = f->sample_rate;
	es->swr_fmt = f->format;
	return 0;
}

/* converts nb input samples (in NULL: flush what swr holds) and hands the result out */
static void convert(struct es *es, const uint8_t **in, int nb)
{
	struct es_frame_info info = { 0 };
	AVFrame *out = av_frame_alloc();
	int max = swr_get_out_samples(es->swr, nb), n;

	if (!out || max <= 0)
		goto drop;
	out->format = AV_SAMPLE_FMT_S16;
	out->sample_rate = FFDVB_AUDIO_RATE;
	out->nb_samples = max;
	if (av_channel_layout_copy(&out->ch_layout, &stereo) < 0 || av_frame_get_buffer(out, 0) < 0)
		goto drop;
	n = swr_convert(es->swr, out->data, max, in, nb);
	if (n <= 0)
		goto drop;
	out->nb_samples = n;
	out->pts = es_audio_next_pts(es);
	es->anchor_samples += n;
	info.key = 1;
	info.duration = av_rescale(n, 90000, FFDVB_AUDIO_RATE);
	es->st.frames++;
	if (es->cb)
		es->cb(es->cb_ctx, out, &info);
	else
		av_frame_free(&out);
	return;
drop:
	av_frame_free(&out);
}

void es_audio_frame(struct es *es, AVFrame *f)
{
	if (f->nb_samples <= 0 || f->sample_rate <= 0 || setup_swr(es, f) < 0) {
		es->st.decode_errors++;
		av_frame_free(&f);
		return;
	}
	/* the first sample out now is what swr still holds from before */
	if (f->pts != AV_NOPTS_VALUE)
		es_audio_anchor(es, f->pts - swr_get_delay(es->swr, 90000));
	convert(es, (const uint8_t **)f->extended_data, f->nb_samples);
	av_frame_free(&f);
}

void es_audio_drain(struct es *es)
{
	if (es->swr)
		convert(es, NULL, 0);
}

void es_audio_reset(struct es *es)
{
	swr_free(&es->swr);
	av_channel_layout_uninit(&es->swr_layout);
	es->anchor_pts = AV_NOPTS_VALUE;
	es->anchor_samples = 0;
}
