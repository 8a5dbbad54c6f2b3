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
 * picture, and the stream's thread decodes the next pictures meanwhile. Up to DEINT_JOBS decoded
 * pictures wait for the filter, so that neither thread waits for the other's slower picture (an
 * I-frame decodes in about twice a B-frame's time, the filter takes the same time for each).
 * Only the filter graph is that thread's (while pictures wait for it or are in it); what comes
 * out is handed on from the stream's thread, at its next packet (es_deint_poll) or picture, or
 * before it waits for data (es_settle), so callbacks, counters and order stay as before. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>

#include "es_internal.h"

/* bwdif gives at most two pictures per picture (send_field); more wait in the sink */
#define DEINT_OUTS 4
/* decoded pictures waiting for the filter's thread, besides the one in it */
#define DEINT_JOBS 2
/* what the finished pictures can have made before the stream's thread takes it */
#define DEINT_DONE ((DEINT_JOBS + 1) * DEINT_OUTS)

/* one picture out of the filter, or a decoded one the graph refused (it goes out as decoded) */
struct deint_out {
	AVFrame *f;
	int rejected;
	struct es_frame_info info; /* a refused picture's */
};

struct es_deint {
	AVFilterGraph *g;
	AVFilterContext *src, *sink;
	AVRational out_tb;
	int w, h, fmt;
	AVRational sar;
	/* the filter's thread; the fields below are under lock */
	pthread_t thread;
	int threaded;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int busy, quit;                /* busy: a picture is in the filter */
	struct deint_out jobs[DEINT_JOBS]; /* oldest first */
	int njobs;
	struct deint_out done[DEINT_DONE]; /* oldest first */
	int ndone;
};

/* one picture through the graph, what came out appended to out[] (room for DEINT_OUTS); on
 * the filter's thread, or on the stream's without one */
static int run(struct es_deint *d, struct deint_out *job, struct deint_out *out)
{
	int n = 0;

	if (av_buffersrc_add_frame(d->src, job->f) < 0) {
		job->rejected = 1;
		out[n++] = *job;
		return n;
	}
	av_frame_free(&job->f);
	while (n < DEINT_OUTS) {
		AVFrame *f = av_frame_alloc();

		if (!f || av_buffersink_get_frame(d->sink, f) < 0) {
			av_frame_free(&f);
			break;
		}
		out[n++] = (struct deint_out){ .f = f };
	}
	return n;
}

static void *worker(void *arg)
{
	struct es_deint *d = arg;
	struct deint_out job, out[DEINT_OUTS];

	pthread_mutex_lock(&d->lock);
	for (;;) {
		while (!d->njobs && !d->quit)
			pthread_cond_wait(&d->cond, &d->lock);
		if (d->quit)
			break;
		job = d->jobs[0];
		memmove(d->jobs, d->jobs + 1, (size_t)--d->njobs * sizeof(d->jobs[0]));
		d->busy = 1;
		pthread_cond_broadcast(&d->cond); /* a job's room is free */
		pthread_mutex_unlock(&d->lock);
		int n = run(d, &job, out);
		pthread_mutex_lock(&d->lock);
		/* at most DEINT_JOBS + 1 pictures finish between two hand-outs: always room */
		memcpy(d->done + d->ndone, out, (size_t)n * sizeof(out[0]));
		d->ndone += n;
		d->busy = 0;
		pthread_cond_broadcast(&d->cond);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
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
	d->out_tb = av_buffersink_get_time_base(d->sink);
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

/* the pictures in done[] go out, in order (taken under the lock when threaded) */
static void emit_done(struct es *es, struct deint_out *done, int n)
{
	AVRational tb = n ? es->deint->out_tb : (AVRational){ 1, 90000 };

	for (int i = 0; i < n; i++) {
		AVFrame *f = done[i].f;

		if (done[i].rejected) {
			av_buffer_unref(&f->opaque_ref);
			es_video_emit(es, f, &done[i].info);
		} else
			emit_out(es, f, tb);
	}
}

/* the finished pictures move to out[]; under the lock when threaded */
static int take_done(struct es_deint *d, struct deint_out *out)
{
	int n = d->ndone;

	memcpy(out, d->done, (size_t)n * sizeof(out[0]));
	d->ndone = 0;
	return n;
}

/* what the filter has finished goes out; with wait, once it has finished every picture */
static void hand_out(struct es *es, int wait)
{
	struct es_deint *d = es->deint;
	struct deint_out out[DEINT_DONE];
	int n;

	if (!d)
		return;
	if (d->threaded) {
		pthread_mutex_lock(&d->lock);
		while (wait && (d->busy || d->njobs))
			pthread_cond_wait(&d->cond, &d->lock);
		n = take_done(d, out);
		pthread_mutex_unlock(&d->lock);
	} else
		n = take_done(d, out);
	emit_done(es, out, n);
}

void es_deint_poll(struct es *es)
{
	hand_out(es, 0);
}

void es_deint_settle(struct es *es)
{
	hand_out(es, 1);
}

void es_deint_frame(struct es *es, AVFrame *f, const struct es_frame_info *info)
{
	struct es_deint *d = es->deint;
	struct deint_out job = { .f = f, .info = *info }, out[DEINT_DONE];
	int n;

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
		hand_out(es, 1); /* the earlier pictures first */
		es_video_emit(es, f, info); /* no filter: the picture as decoded */
		return;
	}
	memcpy(f->opaque_ref->data, info, sizeof(*info));
	if (!d->threaded) {
		d->ndone = run(d, &job, d->done);
		hand_out(es, 0);
		return;
	}
	/* what is done leaves with the new job's entry, so that at most DEINT_JOBS + 1 pictures
	   can finish before the next hand-out: done[] never overflows */
	pthread_mutex_lock(&d->lock);
	while (d->njobs == DEINT_JOBS)
		pthread_cond_wait(&d->cond, &d->lock);
	n = take_done(d, out);
	d->jobs[d->njobs++] = job;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
	emit_done(es, out, n);
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
	hand_out(es, 1); /* the filter's thread is idle from here: the graph is ours */
	if (av_buffersrc_add_frame(d->src, NULL) == 0) {
		for (AVFrame *out; (out = av_frame_alloc());) {
			if (av_buffersink_get_frame(d->sink, out) < 0) {
				av_frame_free(&out);
				break;
			}
			emit_out(es, out, d->out_tb);
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
		d->quit = 1; /* the waiting pictures are not started */
		pthread_cond_broadcast(&d->cond);
		pthread_mutex_unlock(&d->lock);
		pthread_join(d->thread, NULL);
		pthread_cond_destroy(&d->cond);
		pthread_mutex_destroy(&d->lock);
	}
	for (int i = 0; i < d->njobs; i++)
		av_frame_free(&d->jobs[i].f);
	for (int i = 0; i < d->ndone; i++)
		av_frame_free(&d->done[i].f);
	avfilter_graph_free(&d->g);
	free(d);
	es->deint = NULL;
}
