/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the es tests: streams made by scripts/gen-streams.sh in the working directory,
 * split into PES by the project's repacker and routed like the card does (0xE0-0xEF to the
 * video es, the rest to the audio es), and the ffmpeg CLI's own decode of the same file as
 * the reference (framemd5 per picture, s16le 48 kHz stereo sound). */
#ifndef FFDVB_TEST_ES_UTIL_H
#define FFDVB_TEST_ES_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/frame.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/md5.h>

#include "check.h"
#include "test_streams.h"
#include "es.h"
#include "ffdvb/pes.h"
#include "test_pes_join.h"
#include "ffdvb/output.h"

/* ---- what the es hands out --------------------------------------------------------------- */

struct vframe {
	char md5[33];
	int64_t pts, duration;
	int w, h, key, interlaced, out_interlaced, dar_num, dar_den;
	int preview;
	int luma; /* mean of the first plane (sampled), 8-bit formats */
};

struct collect {
	struct vframe *v;
	size_t nv, capv, cap_pcm, cap_chunks; /* arrays grow by doubling; cap_pcm in bytes */
	int16_t *pcm;      /* interleaved stereo (four stereo samples per sample on a link of 4) */
	size_t nsamples;   /* per channel, at 48 kHz */
	size_t pcm_bytes;
	struct { int64_t pts, duration; size_t first, nb; } *chunk;
	size_t nchunks;
	int bad_format;    /* audio frames not S16 / stereo / 48 kHz (on their link) */
};

static inline void frame_md5(const AVFrame *f, char out[33])
{
	int size = av_image_get_buffer_size(f->format, f->width, f->height, 1);
	uint8_t *buf = malloc((size_t)size), d[16];

	av_image_copy_to_buffer(buf, size, (const uint8_t *const *)f->data, f->linesize, f->format,
				f->width, f->height, 1);
	av_md5_sum(d, buf, size);
	for (int i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
	free(buf);
}

static inline void on_frame(void *ctx, AVFrame *f, const struct es_frame_info *info)
{
	struct collect *c = ctx;

	if (f->width > 0) {
		struct vframe *v;

		if (c->nv == c->capv) {
			c->capv = c->capv ? 2 * c->capv : 64;
			c->v = realloc(c->v, c->capv * sizeof(*c->v));
		}
		v = &c->v[c->nv++];
		frame_md5(f, v->md5);
		v->pts = f->pts;
		v->duration = info->duration;
		v->w = f->width;
		v->h = f->height;
		v->key = info->key;
		v->interlaced = info->interlaced;
		v->out_interlaced = f->interlaced_frame;
		v->dar_num = info->dar_num;
		v->dar_den = info->dar_den;
		v->preview = info->preview;
		{
			long sum = 0, n = 0;

			for (int y = 0; y < f->height; y += 16)
				for (int x = 0; x < f->width; x += 16, n++)
					sum += f->data[0][(size_t)y * (size_t)f->linesize[0] + (size_t)x];
			v->luma = n ? (int)(sum / n) : 0;
		}
	} else {
		unsigned int link = info->link > 1 ? info->link : 1;
		size_t bytes = (size_t)f->nb_samples * 4 * link;

		if (f->format != AV_SAMPLE_FMT_S16 || f->ch_layout.nb_channels != 2 * (int)link ||
		    f->sample_rate != FFDVB_AUDIO_RATE)
			c->bad_format++;
		if (c->pcm_bytes + bytes > c->cap_pcm) {
			c->cap_pcm = 2 * (c->pcm_bytes + bytes);
			c->pcm = realloc(c->pcm, c->cap_pcm);
		}
		memcpy((uint8_t *)c->pcm + c->pcm_bytes, f->data[0], bytes);
		c->pcm_bytes += bytes;
		if (c->nchunks == c->cap_chunks) {
			c->cap_chunks = c->cap_chunks ? 2 * c->cap_chunks : 64;
			c->chunk = realloc(c->chunk, c->cap_chunks * sizeof(*c->chunk));
		}
		c->chunk[c->nchunks].pts = f->pts;
		c->chunk[c->nchunks].duration = info->duration;
		c->chunk[c->nchunks].first = c->nsamples;
		c->chunk[c->nchunks].nb = (size_t)f->nb_samples;
		c->nchunks++;
		c->nsamples += (size_t)f->nb_samples;
	}
	av_frame_free(&f);
}

static inline void collect_free(struct collect *c)
{
	free(c->v);
	free(c->pcm);
	free(c->chunk);
	memset(c, 0, sizeof(*c));
}

/* ---- the card's path: repacker -> es ------------------------------------------------------ */

/* the packet hook lets a test damage or drop packets on their way (return 0 to drop) */
typedef size_t (*pkt_hook_fn)(void *hctx, uint8_t *pkt, size_t len);

struct feeder {
	struct es *v, *a;
	struct collect cv, ca;
	struct ffdvb_repacker rp;
	pkt_hook_fn hook;
	void *hctx;
	size_t packets;
};

static inline void feeder_sink_whole(void *ctx, uint8_t id, const uint8_t *pkt, size_t len)
{
	struct feeder *fd = ctx;
	uint8_t copy[FFDVB_PES_OUT_MAX];

	memcpy(copy, pkt, len);
	fd->packets++;
	if (fd->hook && (len = fd->hook(fd->hctx, copy, len)) == 0)
		return;
	if (id >= 0xE0 && id <= 0xEF) {
		if (fd->v)
			es_feed_pes(fd->v, copy, len, on_frame, &fd->cv);
	} else if (fd->a) {
		es_feed_pes(fd->a, copy, len, on_frame, &fd->ca);
	}
}

TEST_PES_JOINING_SINK(feeder_sink, feeder_sink_whole)

static inline void feeder_init(struct feeder *fd, int video, int audio, enum es_deinterlace deint)
{
	struct es_config vc = { ES_VIDEO, deint, 0 }, ac = { ES_AUDIO, ES_DEINTERLACE_OFF, 0 };

	memset(fd, 0, sizeof(*fd));
	fd->v = video ? es_new(&vc) : NULL;
	fd->a = audio ? es_new(&ac) : NULL;
	ffdvb_repacker_init(&fd->rp, feeder_sink, fd);
}

/* TS (188-byte packets, sync bytes) through ffdvb_repacker_ts_packet, else the PES/PS path in
 * 4096-byte writes; drop(i) != 0 drops TS packet i */
static inline void feeder_data(struct feeder *fd, const uint8_t *buf, size_t len, int (*drop)(size_t))
{
	if (len >= FFDVB_TS_PACKET_SIZE && buf[0] == 0x47 && len % FFDVB_TS_PACKET_SIZE == 0) {
		for (size_t i = 0; i * FFDVB_TS_PACKET_SIZE < len; i++)
			if (!drop || !drop(i))
				ffdvb_repacker_ts_packet(&fd->rp, buf + i * FFDVB_TS_PACKET_SIZE);
	} else {
		for (size_t off = 0; off < len; off += 4096)
			ffdvb_repacker_feed(&fd->rp, buf + off, len - off < 4096 ? len - off : 4096);
	}
}

static inline void feeder_end(struct feeder *fd)
{
	ffdvb_repacker_flush(&fd->rp);
	if (fd->v)
		es_drain(fd->v, on_frame, &fd->cv);
	if (fd->a)
		es_drain(fd->a, on_frame, &fd->ca);
}

static inline void feeder_file(struct feeder *fd, const char *path)
{
	size_t len;
	uint8_t *buf = test_read_file(path, &len);

	feeder_data(fd, buf, len, NULL);
	free(buf);
	feeder_end(fd);
}

static inline void feeder_free(struct feeder *fd)
{
	es_free(fd->v);
	es_free(fd->a);
	collect_free(&fd->cv);
	collect_free(&fd->ca);
}

/* ---- the ffmpeg CLI's decode --------------------------------------------------------------- */

/* framemd5 of the video: returns the count, *md5 a malloc'ed array */
/* ffmpeg's pictures of file through the filter chain vf ("" for none): their framemd5 */
static inline size_t ref_md5_vf(const char *file, const char *vf, char (**md5)[33])
{
	char cmd[1024], line[512];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ffmpeg -nostdin -v error -i '%s' -map 0:v %s%s -f framemd5 -",
		 file, *vf ? "-vf " : "", vf);
	p = popen(cmd, "r");
	*md5 = NULL;
	while (p && fgets(line, sizeof(line), p)) {
		char *h = strrchr(line, ',');

		if (line[0] == '#' || !h)
			continue;
		*md5 = realloc(*md5, (n + 1) * sizeof(**md5));
		sscanf(h + 1, " %32s", (*md5)[n]);
		n++;
	}
	if (p)
		pclose(p);
	return n;
}

static inline size_t ref_md5(const char *file, char (**md5)[33])
{
	return ref_md5_vf(file, "", md5);
}

/* the sound as s16le 48 kHz stereo: returns samples per channel */
static inline size_t ref_pcm(const char *file, int16_t **pcm)
{
	char cmd[1024];
	size_t n = 0, cap = 0, r;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "ffmpeg -nostdin -v error -i '%s' -map 0:a -ac 2 -ar 48000 -f s16le -", file);
	p = popen(cmd, "r");
	*pcm = NULL;
	do {
		if (n + 65536 > cap) {
			cap = (n + 65536) * 2;
			*pcm = realloc(*pcm, cap);
		}
		r = p ? fread((uint8_t *)*pcm + n, 1, cap - n, p) : 0;
		n += r;
	} while (r > 0);
	if (p)
		pclose(p);
	return n / 4;
}

/* RMS of the difference over the common length, in 16-bit units; *differ: samples not equal */
static inline double pcm_rms_diff(const int16_t *a, const int16_t *b, size_t n, size_t *differ)
{
	double sum = 0;

	*differ = 0;
	for (size_t i = 0; i < 2 * n; i++) {
		double d = (double)a[i] - b[i];

		sum += d * d;
		*differ += a[i] != b[i];
	}
	return n ? sqrt(sum / (2.0 * n)) : 0;
}

/* audio chunks: each pts continues the previous one by its duration (within a tick) */
static inline size_t audio_pts_breaks(const struct collect *c)
{
	size_t breaks = 0;

	for (size_t i = 1; i < c->nchunks; i++) {
		int64_t want = c->chunk[i - 1].pts + c->chunk[i - 1].duration;

		if (c->chunk[i].pts == AV_NOPTS_VALUE || llabs(c->chunk[i].pts - want) > 1)
			breaks++;
	}
	return breaks;
}

#endif
