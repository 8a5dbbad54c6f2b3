/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Deinterlacing with libavfilter's bwdif: one picture per field (mode send_field, 50 per second
 * for 25i, the motion a TV shows) or one per coded picture (send_frame); only pictures flagged
 * interlaced are touched (deint=interlaced), progressive ones pass as they are. The graph is
 * built at the first interlaced picture and rebuilt when size or format change; it holds one
 * picture back (it needs the next field), which es_deint_drain lets out; es_deint_alone
 * deinterlaces one picture by itself (the live preview, es_video.c). Each picture's
 * es_frame_info rides through the filter on the frame itself (opaque_ref, which libavfilter
 * copies to every picture made from it), so both fields of a picture find theirs.
 * The filter runs on a thread of its own: bwdif costs about as much as the decode of an SD
 * picture, and the stream's thread decodes the next picture meanwhile. Only the filter graph is
 * that thread's (while a picture is in it); what comes out is handed on from the stream's
 * thread, at its next packet (es_deint_poll) or picture, or before it waits for data
 * (es_settle), so callbacks, counters and order stay as before. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>

#include "es_internal.h"

/* bwdif gives at most two pictures per picture (send_field); more wait in the sink */
#define DEINT_OUTS 4

struct es_deint {
	AVFilterGraph *g;
	AVFilterContext *src, *sink;
	int w, h, fmt;
	AVRational sar;
	/* the filter's thread; the fields below are under lock */
	pthread_t thread;
	int threaded;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int busy, quit;                /* busy: job is in the filter, the graph is the thread's */
	AVFrame *job;
	struct es_frame_info job_info;
	AVFrame *rejected;             /* the graph refused the job: it goes out as decoded */
	AVFrame *out[DEINT_OUTS];
	int nout;
};

/* one picture through the graph; on the filter's thread, or on the stream's without one */
static void run(struct es_deint *d)
{
	AVFrame *f = d->job;

	d->job = NULL;
	if (av_buffersrc_add_frame(d->src, f) < 0) {
		d->rejected = f;
		return;
	}
	av_frame_free(&f);
	while (d->nout < DEINT_OUTS) {
		AVFrame *out = av_frame_alloc();

		if (!out || av_buffersink_get_frame(d->sink, out) < 0) {
			av_frame_free(&out);
			return;
		}
		d->out[d->nout++] = out;
	}
}

static void *worker(void *arg)
{
	struct es_deint *d = arg;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		while (!d->busy && !d->quit)
			pthread_cond_wait(&d->cond, &d->lock);
		if (d->quit)
			break;
		pthread_mutex_unlock(&d->lock);
		run(d);
		pthread_mutex_lock(&d->lock);
		d->busy = 0;
		pthread_cond_broadcast(&d->cond);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* until the filter's thread is done with its picture (at once when wait is 0): 1 when idle */
static int idle(struct es_deint *d, int wait)
{
	int busy;

	if (!d->threaded)
		return 1;
	pthread_mutex_lock(&d->lock);
	while (wait && d->busy)
		pthread_cond_wait(&d->cond, &d->lock);
	busy = d->busy;
	pthread_mutex_unlock(&d->lock);
	return !busy;
}

static struct es_deint *build(const AVFrame *f, enum es_deinterlace mode, int pipelined)
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
	d->g->nb_threads = 1; /* no slice threads: see es_deint_frame and es_deint_alone */
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
	if (pipelined && !pthread_mutex_init(&d->lock, NULL)) {
		if (!pthread_cond_init(&d->cond, NULL)) {
			d->threaded = !pthread_create(&d->thread, NULL, worker, d);
			if (!d->threaded)
				pthread_cond_destroy(&d->cond);
		}
		if (!d->threaded)
			pthread_mutex_destroy(&d->lock); /* no thread: filtered on the stream's */
	}
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

static void emit_out(struct es *es, AVFrame *out, AVRational tb)
{
	struct es_frame_info info = take_info(es, out);

	if (out->pts != AV_NOPTS_VALUE) /* bwdif counts in half frames */
		out->pts = av_rescale_q(out->pts, tb, (AVRational){ 1, 90000 });
	es_video_emit(es, out, &info);
}

/* what the filter made of its last picture goes out (the graph is idle) */
static void hand_out(struct es *es)
{
	struct es_deint *d = es->deint;
	AVRational tb = av_buffersink_get_time_base(d->sink);
	int full = d->nout == DEINT_OUTS;

	if (d->rejected) {
		AVFrame *f = d->rejected;

		d->rejected = NULL;
		av_buffer_unref(&f->opaque_ref);
		es_video_emit(es, f, &d->job_info);
	}
	for (int i = 0; i < d->nout; i++)
		emit_out(es, d->out[i], tb);
	d->nout = 0;
	for (AVFrame *out; full && (out = av_frame_alloc());) {
		if (av_buffersink_get_frame(d->sink, out) < 0) {
			av_frame_free(&out);
			break;
		}
		emit_out(es, out, tb);
	}
}

void es_deint_poll(struct es *es)
{
	if (es->deint && idle(es->deint, 0))
		hand_out(es);
}

void es_deint_settle(struct es *es)
{
	if (es->deint) {
		idle(es->deint, 1);
		hand_out(es);
	}
}

void es_deint_frame(struct es *es, AVFrame *f, const struct es_frame_info *info)
{
	struct es_deint *d = es->deint;

	es_deint_settle(es); /* the previous picture's first */
	if (d && (d->w != f->width || d->h != f->height || d->fmt != f->format ||
		  av_cmp_q(d->sar, f->sample_aspect_ratio) != 0))
		es_deint_drain(es);
	/* The filter's own thread runs beside the decoding one, without slice threads besides:
	   bench decode on 2 CPUs, SD field rate 620-686 ms without, 773-878 ms with libavfilter's
	   3; 1080i field rate played in real time on a host other VMs kept busy dropped 28-93 late
	   pictures in 3 of 13 runs with them, 0-2 in 5 runs without. One thread deinterlaces a
	   1080i field in about 3.5 ms, 50 a second. */
	if (!es->deint)
		es->deint = build(f, es->cfg.deinterlace, 1);
	d = es->deint;
	av_buffer_unref(&f->opaque_ref);
	f->opaque_ref = d ? av_buffer_alloc(sizeof(*info)) : NULL;
	if (!f->opaque_ref) {
		es_video_emit(es, f, info); /* no filter: the picture as decoded */
		return;
	}
	memcpy(f->opaque_ref->data, info, sizeof(*info));
	d->job = f;
	d->job_info = *info;
	if (!d->threaded) {
		run(d);
		hand_out(es);
		return;
	}
	pthread_mutex_lock(&d->lock);
	d->busy = 1;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

AVFrame *es_deint_alone(AVFrame *f)
{
	/* one thread: a pool of slice threads for one picture costs more than it saves */
	struct es_deint *d = build(f, ES_DEINTERLACE_FRAME, 0);
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
	struct es_deint *d = es->deint;

	if (!d)
		return;
	idle(d, 1);
	hand_out(es);
	if (av_buffersrc_add_frame(d->src, NULL) == 0) {
		AVRational tb = av_buffersink_get_time_base(d->sink);

		for (AVFrame *out; (out = av_frame_alloc());) {
			if (av_buffersink_get_frame(d->sink, out) < 0) {
				av_frame_free(&out);
				break;
			}
			emit_out(es, out, tb);
		}
	}
	es_deint_free(es);
}

/* what the filter holds or made is dropped (a reset) */
void es_deint_free(struct es *es)
{
	struct es_deint *d = es->deint;

	if (!d)
		return;
	if (d->threaded) {
		pthread_mutex_lock(&d->lock);
		while (d->busy)
			pthread_cond_wait(&d->cond, &d->lock);
		d->quit = 1;
		pthread_cond_broadcast(&d->cond);
		pthread_mutex_unlock(&d->lock);
		pthread_join(d->thread, NULL);
		pthread_cond_destroy(&d->cond);
		pthread_mutex_destroy(&d->lock);
	}
	av_frame_free(&d->job);
	av_frame_free(&d->rejected);
	for (int i = 0; i < d->nout; i++)
		av_frame_free(&d->out[i]);
	avfilter_graph_free(&d->g);
	free(d);
	es->deint = NULL;
}
