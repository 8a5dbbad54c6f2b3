/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libavcodec's part of a stream: the parser that splits the elementary stream into access
 * units (av_parser_parse2, which also carries each PES PTS to the unit it belongs to) and the
 * decoder. The decoder is opened when the first unit comes out of the parser (video picks its
 * thread count from the picture size the parser reports); it is replaced, after a drain, when
 * the parser reports another MPEG audio layer, E-AC-3, or another picture size. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ffdvb/log.h"
#include "es_internal.h"

/* large enough for every broadcast format (and UHD), small enough that a garbage sequence
 * header cannot make the decoder allocate gigabytes */
#define ES_MAX_PIXELS (4096 * 2304)

static void receive_all(struct es *es)
{
	AVCodecContext *dec = es->c.dec;

	for (;;) {
		AVFrame *f = av_frame_alloc();
		int ret;

		if (!f)
			return;
		ret = avcodec_receive_frame(dec, f);
		if (ret < 0) {
			av_frame_free(&f);
			if (ret != AVERROR(EAGAIN) && ret != AVERROR_EOF)
				es->st.decode_errors++;
			return;
		}
		if (f->decode_error_flags || (f->flags & AV_FRAME_FLAG_CORRUPT))
			es->st.decode_errors++;
		if (es->cfg.kind == ES_VIDEO)
			es_video_frame(es, f);
		else
			es_audio_frame(es, f);
	}
}

/* the frames the decoder holds come out; it then accepts new data again */
static void decoder_drain(struct es *es)
{
	if (!es->c.opened)
		return;
	if (avcodec_send_packet(es->c.dec, NULL) == 0)
		receive_all(es);
	avcodec_flush_buffers(es->c.dec);
}

static int alloc_decoder(struct es *es, enum AVCodecID id)
{
	const AVCodec *codec = avcodec_find_decoder(id);

	if (!codec)
		return -ENOSYS;
	es->c.dec = avcodec_alloc_context3(codec);
	if (!es->c.dec)
		return -ENOMEM;
	es->c.dec->pkt_timebase = (AVRational){ 1, 90000 };
	es->c.dec->max_pixels = ES_MAX_PIXELS;
	es->c.opened = 0;
	if (es->last_id != AV_CODEC_ID_NONE && !es_same_codec_family(es->last_id, id))
		es->st.codec_changes++;
	es->last_id = id;
	es->c.id = id;
	snprintf(es->st.codec, sizeof(es->st.codec), "%s", codec->name);
	return 0;
}

int es_codec_open(struct es *es, int threads)
{
	AVCodecContext *dec = es->c.dec;
	int ret;

	if (!dec)
		return -EINVAL;
	if (es->c.opened)
		return 0;
	dec->thread_count = threads;
	dec->thread_type = FF_THREAD_SLICE; /* frame threads add a frame of latency each */
	if (es->cfg.kind == ES_VIDEO)
		dec->skip_frame = es->key_only ? AVDISCARD_NONKEY : AVDISCARD_DEFAULT;
	ret = avcodec_open2(dec, NULL, NULL);
	if (ret < 0)
		return ret;
	es->c.opened = 1;
	es->c.threads = threads;
	return 0;
}

int es_codec_replace(struct es *es, enum AVCodecID id, int threads)
{
	int ret;

	decoder_drain(es);
	avcodec_free_context(&es->c.dec);
	es->c.opened = 0;
	ret = alloc_decoder(es, id);
	return ret < 0 ? ret : es_codec_open(es, threads);
}

void es_codec_close(struct es *es)
{
	if (es->c.parser)
		av_parser_close(es->c.parser);
	es->c.parser = NULL;
	avcodec_free_context(&es->c.pctx);
	avcodec_free_context(&es->c.dec);
	av_packet_free(&es->c.pkt);
	es->c.opened = 0;
	es->c.id = AV_CODEC_ID_NONE;
}

static int start_parser(struct es *es)
{
	if (es->c.parser)
		av_parser_close(es->c.parser);
	es->c.parser = NULL;
	es->c.pending = 0;
	/* LPCM and SMPTE 302M: every packet is a unit (and libavcodec has no parser for them) */
	if (es->c.id == AV_CODEC_ID_PCM_DVD || es->c.id == AV_CODEC_ID_S302M)
		return 0;
	es->c.parser = av_parser_init(es->c.id);
	if (!es->c.parser)
		return -ENOSYS;
	return 0;
}

int es_codec_start(struct es *es, enum AVCodecID id)
{
	int ret;

	if (es->c.id != AV_CODEC_ID_NONE)
		es_codec_drain(es);
	es_codec_close(es);
	es->c.pkt = av_packet_alloc();
	es->c.pctx = avcodec_alloc_context3(NULL);
	if (!es->c.pkt || !es->c.pctx) {
		es_codec_close(es);
		return -ENOMEM;
	}
	ret = alloc_decoder(es, id);
	if (ret == 0) {
		es->c.pctx->codec_id = id;
		es->c.pctx->codec_type = es->cfg.kind == ES_VIDEO ? AVMEDIA_TYPE_VIDEO
								  : AVMEDIA_TYPE_AUDIO;
		ret = start_parser(es);
	}
	if (ret == 0 && es->cfg.kind == ES_AUDIO)
		ret = es_codec_open(es, 1);
	if (ret < 0) {
		es_codec_close(es);
		es->st.codec[0] = '\0';
		return ret;
	}
	es->last_w = es->last_h = 0;
	return 0;
}

void es_codec_decode(struct es *es, const uint8_t *data, size_t len, int64_t pts, int64_t dts,
		     int key)
{
	AVPacket *pkt = es->c.pkt;
	int ret;

	if (!es->c.opened || len > INT_MAX)
		return;
	pkt->data = (uint8_t *)data;
	pkt->size = (int)len;
	pkt->pts = pts;
	pkt->dts = dts;
	pkt->flags = key ? AV_PKT_FLAG_KEY : 0;
	ret = avcodec_send_packet(es->c.dec, pkt);
	if (ret == AVERROR(EAGAIN)) {
		receive_all(es);
		ret = avcodec_send_packet(es->c.dec, pkt);
	}
	pkt->data = NULL;
	pkt->size = 0;
	if (ret < 0)
		es->st.decode_errors++;
	receive_all(es);
}

AVFrame *es_codec_decode_alone(struct es *es, const uint8_t *data, size_t len, int64_t pts,
			       int64_t dts)
{
	const AVCodec *codec = avcodec_find_decoder(es->c.id);
	AVCodecContext *d = codec ? avcodec_alloc_context3(codec) : NULL;
	AVPacket *pkt = av_packet_alloc();
	AVFrame *f = av_frame_alloc(), *got = NULL;

	if (!d || !pkt || !f || len > INT_MAX)
		goto out;
	d->pkt_timebase = (AVRational){ 1, 90000 };
	d->max_pixels = ES_MAX_PIXELS;
	d->thread_count = es->c.threads;
	d->thread_type = FF_THREAD_SLICE;
	if (avcodec_open2(d, NULL, NULL) < 0)
		goto out;
	pkt->data = (uint8_t *)data;
	pkt->size = (int)len;
	pkt->pts = pts;
	pkt->dts = dts;
	pkt->flags = AV_PKT_FLAG_KEY;
	if (avcodec_send_packet(d, pkt) < 0 || avcodec_send_packet(d, NULL) < 0)
		goto out;
	/* the end of data makes the decoder give out the picture it holds back */
	while (avcodec_receive_frame(d, f) == 0) {
		if (!got && !f->decode_error_flags && !(f->flags & AV_FRAME_FLAG_CORRUPT)) {
			got = f;
			f = av_frame_alloc();
			if (!f)
				break;
		} else {
			av_frame_unref(f);
		}
	}
out:
	av_frame_free(&f);
	av_packet_free(&pkt);
	avcodec_free_context(&d);
	return got;
}

/* one access unit from the parser */
static void unit(struct es *es, const uint8_t *data, int len)
{
	AVCodecParserContext *p = es->c.parser;
	enum AVCodecID said = es->c.pctx->codec_id;

	es->st.units++;
	if (es->cfg.kind == ES_VIDEO) {
		if (!es_video_unit(es, p->key_frame == 1, p->pict_type))
			return;
	} else if (said != es->c.id && said != AV_CODEC_ID_NONE) {
		/* the parser saw another MPEG audio layer, or E-AC-3 behind AC-3 */
		if (es_codec_replace(es, said, 1) < 0)
			return;
	}
	if (es->cfg.kind == ES_AUDIO && es_spdif_unit(es, data, (size_t)len, p->pts))
		return;
	if (es->cfg.kind == ES_VIDEO && es->preview_due)
		es_video_preview(es, data, (size_t)len, p->pts, p->dts, p->pict_type);
	es_codec_decode(es, data, (size_t)len, p->pts, p->dts, p->key_frame == 1);
}

/* libavcodec's parsers read up to AV_INPUT_BUFFER_PADDING_SIZE bytes past the input: the
 * card's packets have no such room, so they go through a padded copy */
static const uint8_t *padded(struct es *es, const uint8_t *data, size_t len)
{
	if (len + AV_INPUT_BUFFER_PADDING_SIZE > es->pad_cap) {
		size_t cap = len + AV_INPUT_BUFFER_PADDING_SIZE + 4096;
		uint8_t *p = realloc(es->pad, cap);

		if (!p)
			return NULL;
		es->pad = p;
		es->pad_cap = cap;
	}
	memcpy(es->pad, data, len);
	memset(es->pad + len, 0, AV_INPUT_BUFFER_PADDING_SIZE);
	return es->pad;
}

void es_codec_parse(struct es *es, const uint8_t *data, size_t len, int64_t pts, int64_t dts)
{
	if (es->c.id == AV_CODEC_ID_NONE)
		return;
	if (!es->c.parser) {
		es->st.units++;
		es_codec_decode(es, data, len, pts, dts, 1);
		return;
	}
	while (len > 0) {
		size_t chunk = len > (1u << 20) ? 1u << 20 : len;
		const uint8_t *in = padded(es, data, chunk);
		size_t off = 0;

		if (!in)
			return;
		while (off < chunk) {
			uint8_t *out = NULL;
			int outlen = 0;
			int n = av_parser_parse2(es->c.parser, es->c.pctx, &out, &outlen, in + off,
						 (int)(chunk - off), pts, dts, 0);

			if (n < 0 || (n == 0 && outlen == 0)) /* no progress: never spin */
				return;
			off += (size_t)n;
			pts = dts = AV_NOPTS_VALUE; /* belongs to the first byte fed */
			/* a unit is the bytes the parser kept plus those it took now */
			es->c.pending += (size_t)n;
			if (outlen > 0)
				es->c.pending = (size_t)outlen < es->c.pending
							? es->c.pending - (size_t)outlen
							: 0;
			if (outlen > 0)
				unit(es, out, outlen);
			if (!es->c.parser) /* the unit changed the codec */
				return;
		}
		data += chunk;
		len -= chunk;
	}
}

void es_codec_drain(struct es *es)
{
	if (es->c.id == AV_CODEC_ID_NONE)
		return;
	if (es->c.parser) {
		uint8_t *out = NULL;
		int outlen = 0;

		av_parser_parse2(es->c.parser, es->c.pctx, &out, &outlen, NULL, 0, AV_NOPTS_VALUE,
				 AV_NOPTS_VALUE, 0);
		if (outlen > 0)
			unit(es, out, outlen);
		/* a flushed parser starts afresh: a new one is the safe way to get that */
		start_parser(es);
	}
	decoder_drain(es);
}

#define ES_UNKNOWN_NOTE_BYTES (64 * 1024)

int es_codec_start_at(struct es *es, enum AVCodecID id, size_t off, size_t n)
{
	if (id == AV_CODEC_ID_NONE) {
		es->st.skipped_bytes += n;
		es->unknown_bytes += n;
		/* a format we do not take says so once, instead of a silent black picture */
		if (!es->unknown_noted && es->unknown_bytes >= ES_UNKNOWN_NOTE_BYTES) {
			es->unknown_noted = 1;
			/* ffdvbctl status shows it too, until a format we know comes */
			snprintf(es->st.codec, sizeof(es->st.codec), "unknown");
			ffdvb_log(FFDVB_LOG_WARNING, "decoder: no %s format we decode in the first %d "
				  "KiB of the stream (%s): skipped", es->cfg.kind == ES_VIDEO ? "video"
				  : "audio", ES_UNKNOWN_NOTE_BYTES / 1024, es->cfg.kind == ES_VIDEO
				  ? "MPEG-1/2, H.264 and HEVC are" : "MPEG audio, AAC, AC-3, E-AC-3, "
				  "DTS, LPCM and IEC 61937 are");
		}
		return -1;
	}
	es->st.skipped_bytes += off;
	if (es_codec_start(es, id) < 0) {
		es->st.skipped_bytes += n - off;
		return -1;
	}
	return 0;
}
