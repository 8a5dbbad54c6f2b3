/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The headless record: one line per picture shown and per sound chunk queued, and every sound
 * sample, for tests and tools. Its own lock: written by the owner thread, read from any. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libavutil/imgutils.h>
#include <libavutil/md5.h>

#include "output_internal.h"

int record_init(struct record *r)
{
	memset(r, 0, sizeof(*r));
	r->max_lines = FFDVB_RECORD_LINES_MAX;
	r->max_sound_bytes = FFDVB_RECORD_SOUND_BYTES_MAX;
	return -pthread_mutex_init(&r->lock, NULL);
}

void record_release(struct record *r)
{
	free(r->pics);
	free(r->sounds);
	free(r->pending_ahead);
	free(r->samples);
	av_free(r->pack);
	pthread_mutex_destroy(&r->lock);
}

/* grows *arr (of elem-sized items) so that it holds at least need items */
static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 64;
	while (n < need)
		n *= 2;
	void *p = realloc(*arr, n * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

int record_frame_md5(const AVFrame *frame, uint8_t **scratch, size_t *scratch_size,
		     uint8_t md5[16])
{
	int size = av_image_get_buffer_size(frame->format, frame->width, frame->height, 1);
	if (size < 0)
		return -EINVAL;
	if ((size_t)size > *scratch_size) {
		av_free(*scratch);
		*scratch = av_malloc(size);
		*scratch_size = *scratch ? (size_t)size : 0;
		if (!*scratch)
			return -ENOMEM;
	}
	int n = av_image_copy_to_buffer(*scratch, size, (const uint8_t *const *)frame->data,
					frame->linesize, frame->format, frame->width,
					frame->height, 1);
	if (n < 0)
		return -EINVAL;
	av_md5_sum(md5, *scratch, n);
	return 0;
}

int record_picture(struct record *r, uint64_t t, const AVFrame *frame, int64_t pts, int blank)
{
	struct ffdvb_output_picture_record pr = { .t = t, .pts = pts, .blank = !!blank };
	if (frame && !blank) {
		/* hashed outside the lock: the scratch buffer belongs to the owner thread */
		int ret = record_frame_md5(frame, &r->pack, &r->pack_size, pr.md5);
		if (ret < 0)
			return ret;
		pr.width = frame->width;
		pr.height = frame->height;
	}
	pthread_mutex_lock(&r->lock);
	if (r->npics >= r->max_lines) {
		r->truncated = 1;
		pthread_mutex_unlock(&r->lock);
		return 0;
	}
	int ret = grow((void **)&r->pics, &r->cap_pics, r->npics + 1, sizeof(pr));
	if (!ret)
		r->pics[r->npics++] = pr;
	pthread_mutex_unlock(&r->lock);
	return ret;
}

int record_sound(struct record *r, uint64_t t, int t_known, uint64_t ahead, int64_t pts,
		 const int16_t *samples, size_t nb)
{
	int ret;
	pthread_mutex_lock(&r->lock);
	if (r->nsounds >= r->max_lines ||
	    (r->nsamples + nb) * FFDVB_AUDIO_FRAME_BYTES > r->max_sound_bytes) {
		r->truncated = 1;
		pthread_mutex_unlock(&r->lock);
		return 0;
	}
	size_t npending = r->nsounds - r->first_pending;
	ret = grow((void **)&r->sounds, &r->cap_sounds, r->nsounds + 1, sizeof(*r->sounds));
	if (!ret)
		ret = grow((void **)&r->pending_ahead, &r->cap_pending, r->nsounds + 1,
			   sizeof(*r->pending_ahead));
	if (!ret)
		ret = grow((void **)&r->samples, &r->cap_samples, r->nsamples + nb,
			   FFDVB_AUDIO_FRAME_BYTES);
	if (ret)
		goto unlock;
	if (t_known && npending == 0)
		r->first_pending = r->nsounds + 1;
	r->pending_ahead[r->nsounds] = ahead;
	r->sounds[r->nsounds++] = (struct ffdvb_output_sound_record){
		.t = t_known ? t : UINT64_MAX, .pts = pts, .first = r->nsamples, .nb = nb,
	};
	memcpy(r->samples + r->nsamples * FFDVB_AUDIO_CHANNELS, samples,
	       nb * FFDVB_AUDIO_FRAME_BYTES);
	r->nsamples += nb;
unlock:
	pthread_mutex_unlock(&r->lock);
	return ret;
}

void record_sound_resume(struct record *r, uint64_t now)
{
	pthread_mutex_lock(&r->lock);
	for (size_t i = r->first_pending; i < r->nsounds; i++)
		if (r->sounds[i].t == UINT64_MAX)
			r->sounds[i].t = now + vaudio_ns(r->pending_ahead[i]);
	r->first_pending = r->nsounds;
	pthread_mutex_unlock(&r->lock);
}

void record_sound_clear(struct record *r)
{
	/* pending chunks keep t = UINT64_MAX: they are never heard */
	pthread_mutex_lock(&r->lock);
	r->first_pending = r->nsounds;
	pthread_mutex_unlock(&r->lock);
}

/* ---- public accessors (any thread) -------------------------------------------------------- */

/* a malloc'ed copy of n items (a valid pointer even for n == 0) */
static void *copy_of(const void *src, size_t n, size_t elem)
{
	void *p = malloc(n ? n * elem : 1);
	if (p && n)
		memcpy(p, src, n * elem);
	return p;
}

static long copy_out(struct ffdvb_output *o, const void *const *arr, const size_t *n, size_t elem,
		     void **out)
{
	if (!out)
		return -EINVAL;
	if (!o->cfg.record)
		return -ENODATA;
	pthread_mutex_lock(&o->rec.lock);
	size_t count = *n;
	*out = copy_of(*arr, count, elem);
	pthread_mutex_unlock(&o->rec.lock);
	return *out ? (long)count : -ENOMEM;
}

long ffdvb_output_pictures(struct ffdvb_output *o, struct ffdvb_output_picture_record **out)
{
	if (!o)
		return -EINVAL;
	return copy_out(o, (const void *const *)&o->rec.pics, &o->rec.npics, sizeof(**out),
			(void **)out);
}

long ffdvb_output_sounds(struct ffdvb_output *o, struct ffdvb_output_sound_record **out)
{
	if (!o)
		return -EINVAL;
	return copy_out(o, (const void *const *)&o->rec.sounds, &o->rec.nsounds, sizeof(**out),
			(void **)out);
}

long ffdvb_output_sound_samples(struct ffdvb_output *o, int16_t **out)
{
	if (!o)
		return -EINVAL;
	return copy_out(o, (const void *const *)&o->rec.samples, &o->rec.nsamples,
			FFDVB_AUDIO_FRAME_BYTES, (void **)out);
}

/* what write_record writes: a copy, so that the presenter never waits for the disk */
struct record_copy {
	struct ffdvb_output_picture_record *pics;
	struct ffdvb_output_sound_record *sounds;
	int16_t *samples;
	size_t npics, nsounds, nsamples;
	int truncated;
};

static int write_log(FILE *f, const struct record_copy *r)
{
	for (size_t i = 0; i < r->npics; i++) {
		const struct ffdvb_output_picture_record *p = &r->pics[i];
		char hex[33];
		for (int k = 0; k < 16; k++)
			snprintf(hex + 2 * k, 3, "%02x", p->md5[k]);
		fprintf(f, "picture %llu %lld %d %d %d %s\n", (unsigned long long)p->t,
			(long long)p->pts, p->width, p->height, p->blank, hex);
	}
	for (size_t i = 0; i < r->nsounds; i++) {
		const struct ffdvb_output_sound_record *s = &r->sounds[i];
		fprintf(f, "sound %llu %lld %zu %zu\n", (unsigned long long)s->t,
			(long long)s->pts, s->first, s->nb);
	}
	if (r->truncated)
		fputs("truncated\n", f);
	return ferror(f) ? -EIO : 0;
}

static int write_pcm(FILE *f, const void *ctx)
{
	const struct record_copy *r = ctx;

	/* s16le: the samples are host order; this project only targets little-endian hosts */
	return fwrite(r->samples, FFDVB_AUDIO_FRAME_BYTES, r->nsamples, f) == r->nsamples ? 0
												   : -EIO;
}

static int write_log_file(FILE *f, const void *ctx)
{
	return write_log(f, ctx);
}

int ffdvb_output_write_record(struct ffdvb_output *o, const char *log_path, const char *pcm_path)
{
	if (!o || !log_path)
		return -EINVAL;
	if (!o->cfg.record)
		return -ENODATA;
	struct record_copy c = { 0 };

	pthread_mutex_lock(&o->rec.lock);
	c.npics = o->rec.npics;
	c.nsounds = o->rec.nsounds;
	c.nsamples = pcm_path ? o->rec.nsamples : 0;
	c.truncated = o->rec.truncated;
	c.pics = copy_of(o->rec.pics, c.npics, sizeof(*c.pics));
	c.sounds = copy_of(o->rec.sounds, c.nsounds, sizeof(*c.sounds));
	c.samples = copy_of(o->rec.samples, c.nsamples, FFDVB_AUDIO_FRAME_BYTES);
	pthread_mutex_unlock(&o->rec.lock);
	int ret = !c.pics || !c.sounds || !c.samples ? -ENOMEM : 0;

	if (!ret)
		ret = output_write_atomic(log_path, write_log_file, &c);
	if (!ret && pcm_path)
		ret = output_write_atomic(pcm_path, write_pcm, &c);
	free(c.pics);
	free(c.sounds);
	free(c.samples);
	return ret;
}
