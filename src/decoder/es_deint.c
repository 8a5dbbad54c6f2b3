/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Deinterlacing with libavfilter's bwdif: one picture per field (mode send_field, 50 per second
 * for 25i, the motion a TV shows) or one per coded picture (send_frame); only pictures flagged
 * interlaced are touched (deint=interlaced), progressive ones pass as they are. The graph is
 * built at the first interlaced picture and rebuilt when size or format change; it holds one
 * picture back (it needs the next field), which es_deint_drain lets out; es_deint_alone
 * deinterlaces one picture by itself (the live preview, es_video.c). Each picture's
 * es_frame_info rides through the filter on the frame itself (opaque_ref, which libavfilter
 * copies to every picture made from it), so both fields of a picture find theirs. */
#include <stdlib.h>
#include <string.h>

#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>

#include "es_internal.h"

struct es_deint {
	AVFilterGraph *g;
	AVFilterContext *src, *sink;
	int w, h, fmt;
	AVRational sar;
};

static struct es_deint *build(const AVFrame *f, enum es_deinterlace mode, int threads)
{
	struct es_deint *d = calloc(1, sizeof(*d));
	AVFilterContext *bw = NULL;
	AVRational sar = f->sample_aspect_ratio;
	char args[160];

	if (!d)
		return NULL;
	if (sar.num <= 0 || sar.den <= 0)
		sar = (AVRational){ 1, 1 };
	d->w = f->width;
	d->h = f->height;
	d->fmt = f->format;
	d->sar = f->sample_aspect_ratio;
	d->g = avfilter_graph_alloc();
	if (!d->g)
		goto fail;
	/* slice threads on every CPU (libavfilter's choice), SD too: bwdif is most of what an SD
	   picture costs beside its decode (on one thread the SD bench ran at 0.5-0.9 of ffmpeg
	   with its filter threads) */
	d->g->nb_threads = threads;
	snprintf(args, sizeof(args), "video_size=%dx%d:pix_fmt=%d:time_base=1/90000:pixel_aspect=%d/%d",
		 f->width, f->height, f->format, sar.num, sar.den);
	if (avfilter_graph_create_filter(&d->src, avfilter_get_by_name("buffer"), "in", args, NULL,
					 d->g) < 0 ||
	    avfilter_graph_create_filter(&bw, avfilter_get_by_name("bwdif"), "deint",
					 mode == ES_DEINTERLACE_FIELD
						 ? "mode=send_field:parity=auto:deint=interlaced"
						 : "mode=send_frame:parity=auto:deint=interlaced",
					 NULL,
					 d->g) < 0 ||
	    avfilter_graph_create_filter(&d->sink, avfilter_get_by_name("buffersink"), "out", NULL,
					 NULL, d->g) < 0 ||
	    avfilter_link(d->src, 0, bw, 0) < 0 || avfilter_link(bw, 0, d->sink, 0) < 0 ||
	    avfilter_graph_config(d->g, NULL) < 0)
		goto fail;
	return d;
fail:
	avfilter_graph_free(&d->g);
	free(d);
	return NULL;
}

/* the picture's info, halved in duration when the filter made two pictures of it */
static struct es_frame_info take_info(const struct es *es, AVFrame *out)
{
	struct es_frame_info info = { 0 };

	if (out->opaque_ref && out->opaque_ref->size == sizeof(info))
		memcpy(&info, out->opaque_ref->data, sizeof(info));
	av_buffer_unref(&out->opaque_ref);
	if (es->cfg.deinterlace == ES_DEINTERLACE_FIELD && info.interlaced) {
		info.duration /= 2;
		info.field = 1;
	}
	return info;
}

static void pull(struct es *es)
{
	AVRational tb = av_buffersink_get_time_base(es->deint->sink);

	for (;;) {
		struct es_frame_info info;
		AVFrame *out = av_frame_alloc();

		if (!out || av_buffersink_get_frame(es->deint->sink, out) < 0) {
			av_frame_free(&out);
			return;
		}
		info = take_info(es, out);
		if (out->pts != AV_NOPTS_VALUE) /* bwdif counts in half frames */
			out->pts = av_rescale_q(out->pts, tb, (AVRational){ 1, 90000 });
		es_video_emit(es, out, &info);
	}
}

void es_deint_frame(struct es *es, AVFrame *f, const struct es_frame_info *info)
{
	struct es_deint *d = es->deint;

	if (d && (d->w != f->width || d->h != f->height || d->fmt != f->format ||
		  av_cmp_q(d->sar, f->sample_aspect_ratio) != 0))
		es_deint_drain(es);
	if (!es->deint)
		es->deint = build(f, es->cfg.deinterlace, 0);
	av_buffer_unref(&f->opaque_ref);
	f->opaque_ref = es->deint ? av_buffer_alloc(sizeof(*info)) : NULL;
	if (!f->opaque_ref) {
		es_video_emit(es, f, info); /* no filter: the picture as decoded */
		return;
	}
	memcpy(f->opaque_ref->data, info, sizeof(*info));
	if (av_buffersrc_add_frame(es->deint->src, f) < 0) {
		av_buffer_unref(&f->opaque_ref);
		es_video_emit(es, f, info);
		return;
	}
	av_frame_free(&f);
	pull(es);
}

AVFrame *es_deint_alone(AVFrame *f)
{
	/* one thread: a pool of slice threads for one picture costs more than it saves */
	struct es_deint *d = build(f, ES_DEINTERLACE_FRAME, 1);
	AVFrame *out = av_frame_alloc();
	int64_t pts = f->pts;
	int ok;

	/* The picture twice, the copy a frame later: bwdif takes it as its own next picture and
	   gives the first out. (The end of data instead, after which bwdif repeats the last
	   picture itself, took 200-500 ms for this one picture in the TCG guest; 10-20 ms so.) */
	ok = d && out && av_buffersrc_add_frame_flags(d->src, f, AV_BUFFERSRC_FLAG_KEEP_REF) >= 0;
	f->pts = pts + 3600;
	ok = ok && av_buffersrc_add_frame_flags(d->src, f, AV_BUFFERSRC_FLAG_KEEP_REF) >= 0;
	f->pts = pts;
	if (!ok || av_buffersink_get_frame(d->sink, out) < 0)
		av_frame_free(&out);
	if (d) {
		avfilter_graph_free(&d->g);
		free(d);
	}
	return out;
}

void es_deint_drain(struct es *es)
{
	if (!es->deint)
		return;
	if (av_buffersrc_add_frame(es->deint->src, NULL) == 0)
		pull(es);
	es_deint_free(es);
}

void es_deint_free(struct es *es)
{
	if (es->deint) {
		avfilter_graph_free(&es->deint->g);
		free(es->deint);
		es->deint = NULL;
	}
}
