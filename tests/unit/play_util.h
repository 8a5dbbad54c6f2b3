/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared helpers of the playback tests: a card with a decoder and a headless output, the node
 * calls a client makes, writing a stream file through the card's write path (pumping the event
 * loop while the card refuses, as a blocked writer would wait), test streams made by
 * scripts/gen-streams.sh, and the ffmpeg CLI's own decode to compare with. */
#ifndef TEST_PLAY_UTIL_H
#define TEST_PLAY_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>
#include <libavutil/log.h>

#include "check.h"
#include "test_streams.h"
#include "ffdvb/abi.h"
#include "ffdvb/card.h"
#include "ffdvb/clock.h"
#include "ffdvb/decoder.h"
#include "ffdvb/output.h"
#include "ffdvb/ts.h"
#include "card_internal.h"

struct player {
	struct event_base *base;
	struct ffdvb_card *card;
	const struct ffdvb_node_ops *ops;
	struct ffdvb_decoder *dec;
	struct ffdvb_output *out;
	void *vf, *af; /* video0 and audio0, opened for writing */
	signed char ts_kind[8192]; /* player_write_ts: 0 unknown, 1 video, 2 audio PID */
};

static inline uint64_t real_ms(void)
{
	return ffdvb_monotonic_ns() / 1000000;
}

/* Runs the card's event loop for about ms milliseconds (decoder wake-ups move the rings). */
static inline void player_pump(struct player *p, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	event_base_loopexit(p->base, &tv);
	event_base_dispatch(p->base);
}

static inline int player_ioctl(struct player *p, void *f, unsigned int cmd, unsigned long arg,
			       void *buf)
{
	struct ffdvb_ioctl io = { .cmd = cmd, .arg = arg, .buf = buf };

	return p->ops->ioctl(f, &io);
}

/* video0 and audio0 open for writing, both playing from memory with A/V sync on, as VDR's
 * pmAudioVideo does. clock: 1 = the headless sink's virtual clock, 0 = real time.
 * audio_delay_ms: the lip-sync trim (--audio-delay). */
static inline void player_open_trim(struct player *p, int virtual_clock, int deinterlace,
				    int audio_delay_ms)
{
	struct ffdvb_decoder_config dc = {
		.output = { .kind = FFDVB_OUTPUT_NONE, .virtual_clock = virtual_clock, .record = 1 },
		.deinterlace = deinterlace,
		.audio_delay_ms = audio_delay_ms,
	};
	struct ffdvb_card_config cfg = { 0 };

	memset(p, 0, sizeof(*p));
	/* damaged pictures are counted and checked; libavcodec's own words only on request */
	av_log_set_level(getenv("FFDVB_TEST_AVLOG") ? AV_LOG_WARNING : AV_LOG_FATAL);
	p->base = event_base_new();
	p->dec = p->base ? ffdvb_decoder_new(&dc) : NULL;
	cfg.decoder = p->dec;
	cfg.output = p->dec ? ffdvb_decoder_output(p->dec) : NULL;
	p->card = p->dec ? ffdvb_card_new(p->base, &cfg) : NULL;
	if (!p->card) {
		printf("FAIL: cannot create a card with a decoder: %s\n", strerror(errno));
		exit(1);
	}
	p->ops = ffdvb_card_node_ops(FFDVB_NODE_VIDEO);
	p->out = ffdvb_decoder_output(p->dec);
	if (p->ops->open(ffdvb_card_node(p->card, FFDVB_NODE_VIDEO), O_RDWR | O_NONBLOCK, &p->vf) ||
	    p->ops->open(ffdvb_card_node(p->card, FFDVB_NODE_AUDIO), O_RDWR | O_NONBLOCK, &p->af)) {
		printf("FAIL: cannot open video0/audio0\n");
		exit(1);
	}
	player_ioctl(p, p->vf, FFDVB_VIDEO_SET_BLANK, 1, NULL);
	player_ioctl(p, p->af, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY, NULL);
	player_ioctl(p, p->af, FFDVB_AUDIO_SET_AV_SYNC, 1, NULL);
	player_ioctl(p, p->af, FFDVB_AUDIO_PLAY, 0, NULL);
	player_ioctl(p, p->vf, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY, NULL);
	player_ioctl(p, p->vf, FFDVB_VIDEO_PLAY, 0, NULL);
}

static inline void player_open(struct player *p, int virtual_clock, int deinterlace)
{
	player_open_trim(p, virtual_clock, deinterlace, 0);
}

static inline void player_close(struct player *p)
{
	p->ops->release(p->vf);
	p->ops->release(p->af);
	ffdvb_card_free(p->card);
	ffdvb_decoder_free(p->dec);
	event_base_free(p->base);
}

/* Writes len bytes to node file f whole, in calls of `chunk` bytes, waiting (pumping the loop)
 * while the card refuses. Returns 0, or -1 if nothing moved for 10 s. */
static inline int player_write(struct player *p, void *f, const uint8_t *buf, size_t len,
			       size_t chunk)
{
	size_t done = 0;
	uint64_t stuck_since = real_ms();

	while (done < len) {
		size_t n = len - done < chunk ? len - done : chunk;
		ssize_t r = p->ops->write(f, buf + done, n, 1);

		if (r > 0) {
			done += (size_t)r;
			stuck_since = real_ms();
			continue;
		}
		if (r != -EAGAIN) {
			printf("FAIL: write returned %zd\n", r);
			return -1;
		}
		if (real_ms() - stuck_since > 10000) {
			printf("FAIL: the card took nothing for 10 s (%zu of %zu bytes written)\n", done,
			       len);
			return -1;
		}
		player_pump(p, 2);
	}
	return 0;
}

static inline uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	if (n >= 0 && (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* TS as VDR writes it (PlayTsVideo / PlayTsAudio): each 188-byte packet of a video PID to
 * video0, of an audio PID to audio0, one write per packet; PIDs without PES (PAT, PMT) are not
 * written. A PID's kind is the stream id of its first PES start. Returns 0 or -1. */
static inline int player_write_ts(struct player *p, const uint8_t *ts, size_t len)
{
	signed char *kind = p->ts_kind;

	for (size_t off = 0; off + 188 <= len; off += 188) {
		const uint8_t *pkt = ts + off;
		enum ffdvb_ts_kind k = ffdvb_ts_route(kind, pkt);

		if (k == FFDVB_TS_UNKNOWN)
			continue;
		if (player_write(p, k == FFDVB_TS_VIDEO ? p->vf : p->af, pkt, 188, 188) < 0)
			return -1;
	}
	return 0;
}

/* Video PES in TS are unbounded: only the next payload_unit_start ends the last one (§4.1).
 * At the end of a stream, send what a continuing stream would: a packet starting a padding
 * PES on each video PID. Returns 0 or -1. */
static inline int player_end_ts(struct player *p)
{
	const signed char *kind = p->ts_kind;

	for (int pid = 0; pid < 8192; pid++) {
		uint8_t end[188];

		if (kind[pid] != FFDVB_TS_VIDEO)
			continue;
		ffdvb_ts_pes_end(end, pid);
		if (player_write(p, p->vf, end, 188, 188) < 0)
			return -1;
	}
	return 0;
}

/* A whole stream file: TS split as VDR does (player_write_ts), anything else (program
 * streams) to video0 in 2048-byte writes. Returns 0 or -1. */
static inline int player_write_file(struct player *p, const char *path)
{
	size_t len;
	uint8_t *buf = read_file(path, &len);
	int r;

	if (!buf) {
		printf("FAIL: cannot read %s\n", path);
		return -1;
	}
	if (len >= 188 && buf[0] == 0x47)
		r = player_write_ts(p, buf, len - len % 188) || player_end_ts(p) ? -1 : 0;
	else
		r = player_write(p, p->vf, buf, len, 2048);
	free(buf);
	return r;
}

/* Waits until everything written was presented (and the sound heard). 0 or -1 on timeout. */
static inline int player_wait_idle(struct player *p, int timeout_ms)
{
	uint64_t end = real_ms() + (uint64_t)timeout_ms;
	struct ffdvb_decoder_stats s;
	int idle_turns = 0;

	while (real_ms() < end) {
		player_pump(p, 5);
		ffdvb_decoder_get_stats(p->dec, &s);
		/* idle a few turns in a row, with the card's rings empty too */
		idle_turns = s.idle && card_ring_fill(&p->card->st[FFDVB_STREAM_VIDEO].ring) == 0 &&
				     card_ring_fill(&p->card->st[FFDVB_STREAM_AUDIO].ring) == 0
				     ? idle_turns + 1
				     : 0;
		if (idle_turns >= 3)
			return 0;
	}
	printf("FAIL: playback did not finish within %d ms\n", timeout_ms);
	return -1;
}

/* ---- streams --------------------------------------------------------------------------- */

/* Makes the named test stream (scripts/gen-streams.sh) in ./streams and returns its path. */
static inline const char *stream(const char *name)
{
	return test_stream_in("streams", name);
}

/* ffmpeg's own decode of the video: the MD5 of each frame in order, as hex strings (framemd5
 * hashes the packed raw picture, as the headless record does). Returns the count. */
static inline int ffmpeg_frame_md5s(const char *path, const char *vf, char (**md5)[33])
{
	char cmd[1024], line[512];
	FILE *f;
	int n = 0, cap = 0;

	snprintf(cmd, sizeof(cmd),
		 "ffmpeg -nostdin -v error -threads 1 -i '%s' -map 0:v:0 %s%s -f framemd5 - ", path,
		 vf ? "-vf " : "", vf ? vf : "");
	f = popen(cmd, "r");
	*md5 = NULL;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *last;

		if (line[0] == '#')
			continue;
		last = strrchr(line, ',');
		if (!last)
			continue;
		while (*++last == ' ')
			;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			*md5 = realloc(*md5, (size_t)cap * sizeof(**md5));
		}
		snprintf((*md5)[n], 33, "%.32s", last);
		n++;
	}
	pclose(f);
	return n;
}

/* ffmpeg's decode of the first audio stream as s16 stereo 48 kHz: the number of samples. */
static inline long ffmpeg_audio_samples(const char *path)
{
	char cmd[1024];
	FILE *f;
	char buf[65536];
	size_t n, total = 0;

	snprintf(cmd, sizeof(cmd),
		 "ffmpeg -nostdin -v error -threads 1 -i '%s' -map 0:a:0 -ac 2 -ar 48000 -f s16le -",
		 path);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		total += n;
	pclose(f);
	return (long)(total / FFDVB_AUDIO_FRAME_BYTES);
}

static inline void md5_hex(const uint8_t md5[16], char out[33])
{
	for (int i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", md5[i]);
}

#endif
