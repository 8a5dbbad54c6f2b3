/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Video units and frames: the decoder's thread count (from the picture size the parser saw),
 * a drain when the picture size changes so that no picture of the old size is lost,
 * key-frames-only mode, pts continuation for pictures without a PTS, what es_frame_info
 * says about a picture (key, interlaced, display aspect, duration), and the live preview of
 * the first picture. */
#include <math.h>

#include "es_internal.h"

#define PTS_MASK ((INT64_C(1) << 33) - 1)

void es_video_payload(struct es *es, const uint8_t *p, size_t n, int64_t pts, int64_t dts)
{
	size_t off = 0;
	enum AVCodecID id;

	if (es->c.id == AV_CODEC_ID_NONE) {
		id = es_detect_video(p, n, &off);
		if (es_codec_start_at(es, id, off, n) < 0)
			return;
	} else if (pts != AV_NOPTS_VALUE) {
		/* a PES with a PTS starts a picture: a sequence start of another codec here is
		 * a codec change (MPEG-2 <-> H.264) */
		id = es_detect_video(p, n < 64 ? n : 64, &off);
		if (id != AV_CODEC_ID_NONE && !es_same_codec_family(id, es->c.id)) {
			if (es_codec_start_at(es, id, off, n) < 0)
				return;
		} else {
			off = 0;
		}
	}
	es_codec_parse(es, p + off, n - off, pts, dts);
}

/* The end of a sequence: MPEG-1/2 sequence_end_code 00 00 01 B7 (ISO/IEC 13818-2 6.2.1: the
 * decoder shows the last picture), H.264 end of sequence / end of stream NAL units (types 10,
 * 11: 00 00 01 0A / 0B), HEVC EOS_NUT / EOB_NUT (types 36, 37, layer 0, temporal id 0:
 * 00 00 01 48 01 / 4A 01); trailing zero bytes allowed after it. */
int es_video_ends(const struct es *es, const uint8_t *p, size_t n)
{
	while (n > 0 && p[n - 1] == 0)
		n--;
	switch (es->c.id) {
	case AV_CODEC_ID_MPEG1VIDEO:
	case AV_CODEC_ID_MPEG2VIDEO:
		return n >= 4 && !p[n - 4] && !p[n - 3] && p[n - 2] == 1 && p[n - 1] == 0xB7;
	case AV_CODEC_ID_H264:
		return n >= 4 && !p[n - 4] && !p[n - 3] && p[n - 2] == 1 &&
		       (p[n - 1] == 0x0A || p[n - 1] == 0x0B);
	case AV_CODEC_ID_HEVC:
		return n >= 5 && !p[n - 5] && !p[n - 4] && p[n - 3] == 1 &&
		       (p[n - 2] == 0x48 || p[n - 2] == 0x4A) && p[n - 1] == 0x01;
	default:
		return 0;
	}
}

int es_video_threads(const struct es *es, int width)
{
	if (es->cfg.threads > 0)
		return es->cfg.threads;
	return width > 720 ? 0 : 1; /* 0: libavcodec picks (slice threads, no added latency) */
}

int es_video_unit(struct es *es, int key, int pict_type)
{
	AVCodecParserContext *p = es->c.parser;
	int w = p ? p->width : 0, h = p ? p->height : 0;

	if (!es->c.opened) {
		if (es_codec_open(es, es_video_threads(es, w)) < 0) {
			es->st.decode_errors++;
			return 0;
		}
	} else if (w > 0 && h > 0 && es->last_w > 0 && (w != es->last_w || h != es->last_h)) {
		/* new picture size: the pictures of the old size come out first (the decoder
		 * would drop the one it holds back), and SD <-> HD may want other threads */
		if (es_codec_replace(es, es->c.id, es_video_threads(es, w)) < 0) {
			es->st.decode_errors++;
			return 0;
		}
	}
	if (w > 0 && h > 0) {
		es->last_w = w;
		es->last_h = h;
	}
	if (es->key_only && pict_type != AV_PICTURE_TYPE_NONE && pict_type != AV_PICTURE_TYPE_I &&
	    !key) {
		es->st.key_skipped++;
		return 0;
	}
	return 1;
}

/* width x height with the sample aspect ratio, snapped to 4:3, 16:9 or 2.21:1 within 3 %
 * (720x576 with ITU-R BT.601 pixel shapes lands 2.3 % off 4:3) */
static void display_aspect(const AVFrame *f, int *num, int *den)
{
	static const int std[][2] = { { 4, 3 }, { 16, 9 }, { 221, 100 } };
	AVRational sar = f->sample_aspect_ratio;
	double v;

	if (sar.num <= 0 || sar.den <= 0)
		sar = (AVRational){ 1, 1 };
	if (f->width <= 0 || f->height <= 0) {
		*num = *den = 0;
		return;
	}
	av_reduce(num, den, (int64_t)f->width * sar.num, (int64_t)f->height * sar.den, 1 << 20);
	v = (double)*num / *den;
	for (size_t i = 0; i < sizeof(std) / sizeof(std[0]); i++) {
		if (fabs(v * std[i][1] / std[i][0] - 1.0) < 0.03) {
			*num = std[i][0];
			*den = std[i][1];
			return;
		}
	}
}

static int64_t frame_period(struct es *es, const AVCodecContext *dec, const AVFrame *f)
{
	AVRational fr = dec->framerate;
	int64_t d = 3600;

	if (fr.num > 0 && fr.den > 0 && av_cmp_q(fr, (AVRational){ 1, 1 }) >= 0)
		d = av_rescale(90000, fr.den, fr.num);
	else if (es->last_vpts != AV_NOPTS_VALUE && f->pts != AV_NOPTS_VALUE &&
		 f->pts > es->last_vpts && f->pts - es->last_vpts < 90000)
		d = f->pts - es->last_vpts;
	return d + d * f->repeat_pict / 2;
}

static void frame_info(struct es *es, const AVCodecContext *dec, const AVFrame *f,
		       struct es_frame_info *info)
{
	*info = (struct es_frame_info){ 0 };
	info->key = f->key_frame || f->pict_type == AV_PICTURE_TYPE_I;
	info->interlaced = f->interlaced_frame;
	display_aspect(f, &info->dar_num, &info->dar_den);
	info->duration = frame_period(es, dec, f);
}

void es_video_frame(struct es *es, AVFrame *f)
{
	struct es_frame_info info;
	int64_t pts = f->pts;

	frame_info(es, es->c.dec, f, &info);
	if (pts == AV_NOPTS_VALUE)
		pts = es->next_pts; /* continue from the previous picture */
	else
		es->last_vpts = pts;
	if (pts != AV_NOPTS_VALUE)
		es->next_pts = (pts + info.duration) & PTS_MASK;
	f->pts = pts;
	es->st.width = f->width;
	es->st.height = f->height;
	if (es->cfg.deinterlace != ES_DEINTERLACE_OFF && (f->interlaced_frame || es->deint))
		es_deint_frame(es, f, &info);
	else
		es_video_emit(es, f, &info);
}

/* Whether an H.264 or HEVC access unit is a picture that nothing before it is needed for and
 * that no later-decoded picture precedes on screen: an H.264 IDR (type 5); an HEVC IDR without
 * leading pictures (IDR_N_LP, 20) or a CRA (21), whose leading pictures the decoder skips when
 * it starts there. Not an IDR_W_RADL (19): its decodable leading pictures come out before it,
 * and the preview would be followed by an earlier picture. */
int es_clean_random_access(enum AVCodecID id, const uint8_t *d, size_t len)
{
	int found = 0;

	for (size_t i = 0; i + 3 < len; i++) {
		if (d[i] || d[i + 1] || d[i + 2] != 1)
			continue;
		unsigned int h = d[i + 3];

		if (id == AV_CODEC_ID_H264) {
			if ((h & 0x1f) == 5)
				return 1;
		} else {
			unsigned int type = (h >> 1) & 0x3f;

			if (type == 19)
				return 0;
			if (type == 20 || type == 21)
				found = 1;
		}
		i += 3;
	}
	return found;
}

/* Live, the first picture after a start or a clear goes out as soon as its unit is whole, as
 * the av7110 showed it: libavcodec's MPEG-1/2 decoder gives an I- or P-picture out only once
 * the next reference picture is decoded (after the B-pictures between them, which a zap into
 * an open GOP cannot even decode), and bwdif holds each picture until the next one: 3-4
 * pictures (120-160 ms at 25 Hz) after the I-picture was whole. So the I-picture is decoded
 * once more by a decoder of its own, drained at once, and deinterlaced alone. It goes out
 * flagged preview: the presenter shows it at once and holds it without starting the clock,
 * which starts when the same picture comes out of the decoder in order (the pictures after
 * it come at that pace, so the clock could not start earlier without them all being late).
 * H.264 and HEVC decoders hold pictures back for their reordering the same way (two with two
 * B-frames): there the preview is of a clean random-access picture only (es_clean_random_access),
 * so that neither a picture that needs earlier ones nor one shown before it can follow. */
void es_video_preview(struct es *es, const uint8_t *data, size_t len, int64_t pts, int64_t dts,
		      int pict_type)
{
	struct es_frame_info info;
	AVFrame *f, *d;
	int mpeg = es->c.id == AV_CODEC_ID_MPEG2VIDEO || es->c.id == AV_CODEC_ID_MPEG1VIDEO;

	if (!es->live || es->key_only || pict_type != AV_PICTURE_TYPE_I ||
	    pts == AV_NOPTS_VALUE)
		return;
	if (!mpeg && ((es->c.id != AV_CODEC_ID_H264 && es->c.id != AV_CODEC_ID_HEVC) ||
		      !es_clean_random_access(es->c.id, data, len)))
		return;
	es->preview_due = 0; /* one try: the decoder's own pictures follow soon anyway */
	f = es_codec_decode_alone(es, data, len, pts, dts);
	if (!f)
		return;
	frame_info(es, es->c.dec, f, &info);
	info.preview = 1;
	f->pts = pts;
	if (es->cfg.deinterlace != ES_DEINTERLACE_OFF && f->interlaced_frame &&
	    (d = es_deint_alone(f))) {
		d->pts = pts;
		av_frame_free(&f);
		f = d;
	}
	es_video_emit(es, f, &info);
}

void es_video_emit(struct es *es, AVFrame *f, const struct es_frame_info *info)
{
	if (!info->preview)
		es->preview_due = 0; /* the decoder's pictures flow: no preview any more */
	es->st.frames++;
	if (es->cb)
		es->cb(es->cb_ctx, f, info);
	else
		av_frame_free(&f);
}
