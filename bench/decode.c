/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb-bench-decode: figures of the whole playback path, in-process (card write path ->
 * repacker -> rings -> decoder threads -> presenter -> headless output), no kernel involved.
 *
 *   ffdvb-bench-decode throughput FILE.ts   TS in 188-byte writes (audio PIDs to audio0, video
 *                                           to video0, as VDR), then the codec's end of sequence
 *                                           (ffmpeg's TS muxer writes none) so that the last
 *                                           pictures come out at once, as at ffmpeg's end of
 *                                           file; virtual clock: as fast as it decodes. Prints
 *                                           the wall time in ms.
 *   ffdvb-bench-decode realtime FILE.ts S [W]  plays the file in real time for S seconds of
 *                                           wall time (less if it ends first), read from disk
 *                                           as it goes; prints the CPU share of one core after
 *                                           the first W seconds (default 0: all of it) and the
 *                                           peak RSS (with BENCH_NAME also the pictures shown
 *                                           and dropped).
 *   ffdvb-bench-decode threads h264|hevc|mpeg2video
 *                                           the thread count libavcodec picks for that decoder
 *                                           opened as ours opens HD video (es_video_threads:
 *                                           thread_count 0 above 720 wide; es_codec_open:
 *                                           FF_THREAD_SLICE, no size set before the open).
 *   ffdvb-bench-decode zap FILE.ts          plays 3 s, clears both buffers, writes the file again
 *                                           from its start; prints the time from the first write
 *                                           after the clear to the first picture, and the
 *                                           stream's own PTS lead (first audio to first video).
 * Output: `figure NAME VALUE UNIT` lines. With BENCH_NAME=PREFIX (bench/decode.sh's HD
 * streams), the throughput figures are PREFIX_ours..., the realtime ones PREFIX_realtime_cpu,
 * PREFIX_rss_peak, PREFIX_realtime_wall, PREFIX_realtime_pictures_{shown,dropped}, and the
 * threads one PREFIX_threads. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <event2/event.h>
#include <libavcodec/avcodec.h>
#include <libavutil/log.h>

#include "ffdvb/abi.h"
#include "ffdvb/card.h"
#include "ffdvb/decoder.h"
#include "ffdvb/node.h"
#include "ffdvb/output.h"
#include "ffdvb/ts.h"

struct bench {
	struct event_base *base;
	struct ffdvb_card *card;
	struct ffdvb_decoder *dec;
	const struct ffdvb_node_ops *ops;
	void *vf, *af;
	struct event *guard; /* wait_room's longest wait */
	signed char kind[8192];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pump(struct bench *b, int ms)
{
	struct timeval tv = { 0, ms * 1000 };

	event_base_loopexit(b->base, &tv);
	event_base_dispatch(b->base);
}

static void wake_nothing(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
}

static int ioc(struct bench *b, void *f, unsigned int cmd, unsigned long arg)
{
	struct ffdvb_ioctl io = { .cmd = cmd, .arg = arg };

	return b->ops->ioctl(f, &io);
}

static enum ffdvb_deinterlace deinterlace = FFDVB_DEINTERLACE_FIELD; /* the daemon's default */

static void open_card(struct bench *b, int virtual_clock, int record)
{
	struct ffdvb_decoder_config dc = {
		.output = { .kind = FFDVB_OUTPUT_NONE, .virtual_clock = virtual_clock,
			    .record = record },
		.deinterlace = deinterlace,
	};
	struct ffdvb_card_config cfg = { 0 };

	memset(b, 0, sizeof(*b));
	av_log_set_level(AV_LOG_FATAL);
	b->base = event_base_new();
	b->dec = b->base ? ffdvb_decoder_new(&dc) : NULL;
	cfg.decoder = b->dec;
	cfg.output = b->dec ? ffdvb_decoder_output(b->dec) : NULL;
	b->card = b->dec ? ffdvb_card_new(b->base, &cfg) : NULL;
	b->guard = b->card ? evtimer_new(b->base, wake_nothing, NULL) : NULL;
	if (!b->guard) {
		fprintf(stderr, "bench: cannot create the card: %s\n", strerror(errno));
		exit(1);
	}
	b->ops = ffdvb_card_node_ops(FFDVB_NODE_VIDEO);
	if (b->ops->open(ffdvb_card_node(b->card, FFDVB_NODE_VIDEO), O_RDWR | O_NONBLOCK, &b->vf) ||
	    b->ops->open(ffdvb_card_node(b->card, FFDVB_NODE_AUDIO), O_RDWR | O_NONBLOCK, &b->af)) {
		fprintf(stderr, "bench: cannot open video0/audio0\n");
		exit(1);
	}
	ioc(b, b->af, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY);
	ioc(b, b->af, FFDVB_AUDIO_SET_AV_SYNC, 1);
	ioc(b, b->af, FFDVB_AUDIO_PLAY, 0);
	ioc(b, b->vf, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	ioc(b, b->vf, FFDVB_VIDEO_PLAY, 0);
}

static void close_card(struct bench *b)
{
	b->ops->release(b->vf);
	b->ops->release(b->af);
	event_free(b->guard);
	ffdvb_card_free(b->card);
	ffdvb_decoder_free(b->dec);
	event_base_free(b->base);
}

/* until the card has done something (the decoder took data: there may be room), as a client
 * blocked in write() is woken when its node is (at most 50 ms: a guard, not a pace). A fixed
 * 2 ms sleep here let the decoder's ring run dry meanwhile: its thread then slept, and each
 * feed that followed had to wake it. */
static void wait_room(struct bench *b)
{
	struct timeval tv = { 0, 50000 };

	evtimer_add(b->guard, &tv);
	event_base_loop(b->base, EVLOOP_ONCE);
	evtimer_del(b->guard);
}

/* one TS packet, waiting while the card refuses it */
static void put(struct bench *b, void *f, const uint8_t *pkt)
{
	while (b->ops->write(f, pkt, 188, 1) == -EAGAIN)
		wait_room(b);
}

static void write_ts(struct bench *b, const uint8_t *ts, size_t len, double stop_after_s,
		     double *first_write)
{
	double start = now_s();

	for (size_t off = 0; off + 188 <= len; off += 188) {
		const uint8_t *p = ts + off;
		enum ffdvb_ts_kind k = ffdvb_ts_route(b->kind, p);

		if (k == FFDVB_TS_UNKNOWN)
			continue;
		if (first_write && *first_write == 0)
			*first_write = now_s();
		put(b, k == FFDVB_TS_VIDEO ? b->vf : b->af, p);
		if (stop_after_s > 0 && now_s() - start > stop_after_s)
			break;
	}
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

/* the file read from disk as it is written, so that the peak RSS is the playback path's and
 * not the file's; stops after stop_after_s seconds of wall time. *t1 and *c1 get the wall and
 * CPU time once warm seconds have passed (at the first 64 KiB boundary after them). */
static void write_file(struct bench *b, const char *path, double stop_after_s, double warm,
		       double *t1, double *c1)
{
	static uint8_t buf[188 * 348];
	FILE *f = fopen(path, "rb");
	double start = now_s();
	int marked = 0;
	size_t n;

	if (!f) {
		fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while ((n = fread(buf, 188, sizeof(buf) / 188, f)) > 0) {
		if (!marked && now_s() - start >= warm) {
			*t1 = now_s();
			*c1 = cpu_s();
			marked = 1;
		}
		write_ts(b, buf, n * 188, 0, NULL);
		if (now_s() - start > stop_after_s)
			break;
	}
	fclose(f);
	if (!marked) {
		fprintf(stderr, "bench: %s ended within the warm-up\n", path);
		exit(1);
	}
}

/* the end of sequence of the stream's video codec after its last packet (es_video_ends) */
static void end_video(struct bench *b)
{
	static const uint8_t mpeg2[] = { 0, 0, 1, 0xb7 }, h264[] = { 0, 0, 1, 0x0b },
			     hevc[] = { 0, 0, 1, 0x4a, 0x01 };
	struct ffdvb_decoder_stats s;
	const uint8_t *code;
	int n;
	uint8_t pkt[188];

	ffdvb_decoder_get_stats(b->dec, &s);
	if (!strcmp(s.video_codec, "h264"))
		code = h264, n = sizeof(h264);
	else if (!strcmp(s.video_codec, "hevc"))
		code = hevc, n = sizeof(hevc);
	else
		code = mpeg2, n = sizeof(mpeg2);
	for (int pid = 0; pid < 8192; pid++) {
		if (b->kind[pid] != FFDVB_TS_VIDEO)
			continue;
		ffdvb_ts_video_end(pkt, pid, code, n);
		put(b, b->vf, pkt);
	}
}

static void wait_idle(struct bench *b)
{
	struct ffdvb_decoder_stats s;
	int turns = 0;

	for (int i = 0; i < 100000 && turns < 3; i++) {
		pump(b, 1);
		ffdvb_decoder_get_stats(b->dec, &s);
		turns = s.idle ? turns + 1 : 0;
	}
}

static uint8_t *load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;

	if (!f) {
		fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(*len);
	if (!buf || fread(buf, 1, *len, f) != *len) {
		fprintf(stderr, "bench: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	return buf;
}

/* the thread count libavcodec picks for the decoder `name` opened as es_codec_open opens HD
 * video: thread_count 0 (es_video_threads above 720 wide), slice threads, no size set */
static int lib_threads(const char *name)
{
	const AVCodec *c = avcodec_find_decoder_by_name(name);
	AVCodecContext *ctx = c ? avcodec_alloc_context3(c) : NULL;
	int n = -1;

	if (!ctx)
		return -1;
	ctx->thread_count = 0;
	ctx->thread_type = FF_THREAD_SLICE;
	if (avcodec_open2(ctx, c, NULL) == 0)
		n = ctx->active_thread_type == FF_THREAD_SLICE ? ctx->thread_count : 1;
	avcodec_free_context(&ctx);
	return n;
}

int main(int argc, char **argv)
{
	struct bench b;
	size_t len;
	uint8_t *ts = NULL;
	const char *name = getenv("BENCH_NAME");

	if (argc < 3) {
		fprintf(stderr, "usage: ffdvb-bench-decode throughput|realtime|zap FILE.ts [SECONDS "
				"[WARMUP]]\n       ffdvb-bench-decode threads h264|hevc|mpeg2video\n");
		return 2;
	}
	if (name && !*name)
		name = NULL;
	if (!strcmp(argv[1], "threads")) {
		int n = lib_threads(argv[2]);

		if (n < 1) {
			fprintf(stderr, "bench: no decoder %s in libavcodec\n", argv[2]);
			return 1;
		}
		printf("figure %s_threads %d count\n", name ? name : "decode_hd", n);
		return 0;
	}
	if (getenv("BENCH_DEINTERLACE")) /* no, frame or field */
		deinterlace = !strcmp(getenv("BENCH_DEINTERLACE"), "frame")   ? FFDVB_DEINTERLACE_FRAME
			      : !strcmp(getenv("BENCH_DEINTERLACE"), "field") ? FFDVB_DEINTERLACE_FIELD
									      : FFDVB_DEINTERLACE_OFF;
	if (!strcmp(argv[1], "throughput")) {
		double t0, t, c0;
		struct ffdvb_decoder_stats s;
		const char *tag = deinterlace == FFDVB_DEINTERLACE_FIELD   ? "_bwdif_field"
				  : deinterlace == FFDVB_DEINTERLACE_FRAME ? "_bwdif"
									   : "";
		const char *pre = name ? name : "decode";

		ts = load(argv[2], &len);
		t0 = now_s();
		c0 = cpu_s();
		open_card(&b, 1, 0);
		write_ts(&b, ts, len, 0, NULL);
		end_video(&b);
		wait_idle(&b);
		t = now_s() - t0;
		ffdvb_decoder_get_stats(b.dec, &s);
		printf("figure %s_ours%s_ms %.0f ms\n", pre, tag, t * 1000);
		printf("figure %s_ours%s_cpu_ms %.0f ms\n", pre, tag, (cpu_s() - c0) * 1000);
		printf("figure %s_ours%s_pictures %llu count\n", pre, tag,
		       (unsigned long long)s.video_frames_shown);
		close_card(&b);
	} else if (!strcmp(argv[1], "realtime")) {
		double secs = argc > 3 ? atof(argv[3]) : 20, warm = argc > 4 ? atof(argv[4]) : 0;
		double t0, t1 = 0, c1 = 0;
		struct ffdvb_decoder_stats s;
		struct rusage ru;

		if (warm < 0 || warm >= secs) {
			fprintf(stderr, "bench: the warm-up must be shorter than the run\n");
			return 2;
		}
		open_card(&b, 0, 0);
		t0 = now_s();
		/* CPU time from the end of the warm-up: the first writes fill the rings and the
		 * decoder runs ahead until its queues are full, faster than real time */
		write_file(&b, argv[2], secs, warm, &t1, &c1);
		ffdvb_decoder_get_stats(b.dec, &s);
		getrusage(RUSAGE_SELF, &ru);
		if (name) {
			printf("figure %s_realtime_cpu %.1f %%\n", name,
			       100 * (cpu_s() - c1) / (now_s() - t1));
			printf("figure %s_rss_peak %.1f MB\n", name, ru.ru_maxrss / 1024.0);
			printf("figure %s_realtime_wall %.2f s\n", name, now_s() - t0);
			printf("figure %s_realtime_pictures_shown %llu count\n", name,
			       (unsigned long long)s.video_frames_shown);
			printf("figure %s_realtime_pictures_dropped %llu count\n", name,
			       (unsigned long long)s.video_frames_dropped);
		} else {
			printf("figure realtime_cpu_share %.1f %%\n",
			       100 * (cpu_s() - c1) / (now_s() - t1));
			printf("figure realtime_peak_rss %.1f MB\n", ru.ru_maxrss / 1024.0);
			printf("figure realtime_wall %.2f s\n", now_s() - t0);
		}
		close_card(&b);
	} else if (!strcmp(argv[1], "zap")) {
		double first = 0, shown = 0, lead = 0;
		struct ffdvb_output_picture_record *pics = NULL;
		struct ffdvb_output_sound_record *snd = NULL;
		long np, ns, p0, s0;
		struct ffdvb_output *out;

		ts = load(argv[2], &len);
		open_card(&b, 0, 1);
		out = ffdvb_decoder_output(b.dec);
		write_ts(&b, ts, len, 3, NULL);
		ioc(&b, b.vf, FFDVB_VIDEO_CLEAR_BUFFER, 0);
		ioc(&b, b.af, FFDVB_AUDIO_CLEAR_BUFFER, 0);
		p0 = ffdvb_output_pictures(out, &pics);
		free(pics);
		s0 = ffdvb_output_sounds(out, &snd);
		free(snd);
		memset(b.kind, 0, sizeof(b.kind));
		write_ts(&b, ts, len, 1.0, &first);
		np = ffdvb_output_pictures(out, &pics);
		ns = ffdvb_output_sounds(out, &snd);
		/* The picture the presenter had taken when the clear came is still shown after the
		 * clear returns (shown before the first write of the new stream, from the old one):
		 * the same file again starts at lower PTS, so pictures at or past the last one shown
		 * before the clear are the old stream's. Counted, not taken for the first one. */
		long old = 0, p1 = p0;

		while (p0 > 0 && p1 < np && pics[p1].pts >= pics[p0 - 1].pts) {
			old++;
			p1++;
		}
		if (np > p1 && ns > s0) {
			long k = s0;

			while (k < ns && snd[k].pts < 0)
				k++;
			shown = (double)pics[p1].t / 1e9;
			/* the clock starts at the earlier of the first picture and first sound */
			if (k < ns)
				lead = (double)(pics[p1].pts - snd[k].pts) / 90000.0;
		}
		if (!shown) {
			fprintf(stderr, "bench: no picture after the clear\n");
			return 1;
		}
		printf("figure zap_old_pictures_after_clear %ld count\n", old);
		printf("figure zap_first_picture %.1f ms\n", (shown - first) * 1000);
		printf("figure zap_stream_pts_lead %.1f ms\n", lead > 0 ? lead * 1000 : 0.0);
		printf("figure zap_beyond_pts_lead %.1f ms\n",
		       (shown - first - (lead > 0 ? lead : 0)) * 1000);
		free(pics);
		free(snd);
		close_card(&b);
	} else {
		fprintf(stderr, "bench: unknown mode %s\n", argv[1]);
		return 2;
	}
	free(ts);
	return 0;
}
