/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A/V sync through the whole path: avsync.ts (scripts/gen-streams.sh) has a white picture and a
 * 40 ms tone burst at the same PTS once a second over 60 s. The headless sink records when each
 * picture was shown and when each sound sample is heard; every flash must be shown within
 * 20 ms of its tone's first sample. Checked in plain play, after FREEZE/CONTINUE (VDR's pause),
 * after CLEAR_BUFFER followed by new data (VDR's jump), across a PTS discontinuity in the stream
 * (no clear: MPlayer's seek), and on the real-time clock for a shorter stretch. With a lip-sync
 * trim (--audio-delay 120), every tone comes 120 ms after its flash instead. */
#include <math.h>

#include "play_util.h"

#define MAX_SKEW_MS 20
#define TONE_LEVEL 2000   /* the burst peaks near 12000, silence is 0 */
#define QUIET_SAMPLES 9600 /* 200 ms of silence before an onset */

struct result {
	long pairs;
	double worst_ms;
};

/* output-clock time (ns) at which sample index i is heard */
static uint64_t sample_time(const struct ffdvb_output_sound_record *s, long n, size_t i)
{
	for (long k = n - 1; k >= 0; k--)
		if (s[k].first <= i)
			return s[k].t + (uint64_t)(i - s[k].first) * 1000000000ull / FFDVB_AUDIO_RATE;
	return 0;
}

/* pairs every flash shown after t_from with the nearest tone onset */
static struct result measure(struct player *p, const char *flash_md5, uint64_t t_from)
{
	struct ffdvb_output_picture_record *pics = NULL;
	struct ffdvb_output_sound_record *snd = NULL;
	int16_t *pcm = NULL;
	long np = ffdvb_output_pictures(p->out, &pics);
	long ns = ffdvb_output_sounds(p->out, &snd);
	long nsamp = ffdvb_output_sound_samples(p->out, &pcm);
	uint64_t *onset = calloc((size_t)nsamp / QUIET_SAMPLES + 2, sizeof(*onset));
	long nonset = 0, quiet = 0;
	struct result r = { 0, 0 };
	char hex[33];

	for (long i = 0; i < nsamp; i++) {
		int v = abs(pcm[2 * i]);

		/* the first loud sample after 200 ms without one (the burst's sine passes the level
		 * within 2 samples of its start; MP2's pre-echo before it stays far below) */
		if (v > TONE_LEVEL && quiet >= QUIET_SAMPLES)
			onset[nonset++] = sample_time(snd, ns, (size_t)i);
		quiet = v <= TONE_LEVEL ? quiet + 1 : 0;
	}
	long flashes = 0;

	for (long i = 0; i < np; i++) {
		md5_hex(pics[i].md5, hex);
		flashes += !strcmp(hex, flash_md5);
	}
	{
		int peak = 0;

		for (long i = 0; i < nsamp; i++)
			peak = abs(pcm[2 * i]) > peak ? abs(pcm[2 * i]) : peak;
		if (getenv("AVSYNC_DUMP")) {
			FILE *d = fopen(getenv("AVSYNC_DUMP"), "wb");

			fwrite(pcm, 4, (size_t)nsamp, d);
			fclose(d);
		}
		printf("   %ld pictures (%ld flashes), %ld samples (peak %d) with %ld tone onsets\n", np,
		       flashes, nsamp, peak, nonset);
	}
	for (long i = 0; i < np; i++) {
		double best = 1e9;

		md5_hex(pics[i].md5, hex);
		if (pics[i].t < t_from || strcmp(hex, flash_md5))
			continue;
		if (i > 0 && !memcmp(pics[i - 1].md5, pics[i].md5, 16))
			continue; /* the same flash again (still shown) */
		for (long k = 0; k < nonset; k++) {
			double d = ((double)pics[i].t - (double)onset[k]) / 1e6;

			if (fabs(d) < fabs(best))
				best = d;
		}
		if (fabs(best) > 500)
			continue; /* a flash whose tone was cut away (clear): nothing to pair */
		r.pairs++;
		if (fabs(best) > fabs(r.worst_ms))
			r.worst_ms = best;
	}
	free(onset);
	free(pics);
	free(snd);
	free(pcm);
	return r;
}

static void report(const char *what, struct result r, long min_pairs)
{
	printf("   %s: %ld flash/tone pairs, worst skew %+.1f ms\n", what, r.pairs, r.worst_ms);
	CHECK_LABELLED(what, r.pairs >= min_pairs && fabs(r.worst_ms) <= MAX_SKEW_MS);
}

static uint8_t *load(const char *path, size_t *len)
{
	uint8_t *b = read_file(path, len);

	if (!b) {
		printf("FAIL: cannot read %s\n", path);
		exit(1);
	}
	*len -= *len % 188;
	return b;
}

static uint64_t out_now(struct player *p)
{
	return ffdvb_output_now(p->out);
}

int main(void)
{
	const char *path = stream("avsync.ts");
	char (*ref)[33] = NULL;
	char flash[33];
	struct player p;
	size_t len;
	uint8_t *ts = load(path, &len);
	uint64_t t0;

	if (ffmpeg_frame_md5s(path, NULL, &ref) < 1) {
		printf("FAIL: ffmpeg cannot decode %s\n", path);
		return 1;
	}
	snprintf(flash, sizeof(flash), "%s", ref[0]); /* frame 0 is a flash */
	free(ref);

	printf("-- plain play, 60 s\n");
	player_open(&p, 1, 0);
	CHECK_EQ(player_write_ts(&p, ts, len), 0);
	CHECK_EQ(player_end_ts(&p), 0);
	CHECK_EQ(player_wait_idle(&p, 120000), 0);
	report("plain play", measure(&p, flash, 0), 58);
	player_close(&p);

	printf("-- pause (VDR: AV_SYNC 0, AUDIO_PAUSE, VIDEO_FREEZE) and play again\n");
	player_open(&p, 1, 0);
	CHECK_EQ(player_write_ts(&p, ts, len / 3 / 188 * 188), 0);
	player_ioctl(&p, p.af, FFDVB_AUDIO_SET_AV_SYNC, 0, NULL);
	player_ioctl(&p, p.af, FFDVB_AUDIO_PAUSE, 0, NULL);
	player_ioctl(&p, p.vf, FFDVB_VIDEO_FREEZE, 0, NULL);
	player_pump(&p, 300);
	t0 = out_now(&p);
	player_ioctl(&p, p.af, FFDVB_AUDIO_SET_AV_SYNC, 1, NULL);
	player_ioctl(&p, p.af, FFDVB_AUDIO_CONTINUE, 0, NULL);
	player_ioctl(&p, p.vf, FFDVB_VIDEO_CONTINUE, 0, NULL);
	CHECK_EQ(player_write_ts(&p, ts + len / 3 / 188 * 188, len - len / 3 / 188 * 188), 0);
	CHECK_EQ(player_end_ts(&p), 0);
	CHECK_EQ(player_wait_idle(&p, 120000), 0);
	report("after FREEZE/CONTINUE", measure(&p, flash, t0), 35);
	player_close(&p);

	printf("-- CLEAR_BUFFER, then data from elsewhere (VDR's jump)\n");
	player_open(&p, 1, 0);
	CHECK_EQ(player_write_ts(&p, ts, len / 2 / 188 * 188), 0);
	player_ioctl(&p, p.vf, FFDVB_VIDEO_CLEAR_BUFFER, 0, NULL);
	player_ioctl(&p, p.af, FFDVB_AUDIO_CLEAR_BUFFER, 0, NULL);
	t0 = out_now(&p);
	CHECK_EQ(player_write_ts(&p, ts, len / 3 / 188 * 188), 0); /* back to the start */
	CHECK_EQ(player_end_ts(&p), 0);
	CHECK_EQ(player_wait_idle(&p, 120000), 0);
	report("after CLEAR_BUFFER + new data", measure(&p, flash, t0), 17);
	player_close(&p);

	printf("-- a PTS discontinuity without a clear (the same stream again, PTS far away)\n");
	{
		const char *jump = "streams/avsync_jump.ts";

		/* 10 s of the stream, then the same 10 s again with every timestamp 1000 s later */
		if (access(jump, R_OK) != 0 &&
		    system("ffmpeg -nostdin -v error -y -i streams/avsync.ts -t 10 -c copy -f mpegts "
			   "streams/jump_a.ts && ffmpeg -nostdin -v error -y -i streams/avsync.ts -t 10 "
			   "-c copy -output_ts_offset 1000 -f mpegts streams/jump_b.ts && "
			   "cat streams/jump_a.ts streams/jump_b.ts > streams/avsync_jump.ts.tmp && "
			   "mv streams/avsync_jump.ts.tmp streams/avsync_jump.ts") != 0) {
			printf("FAIL: cannot make %s\n", jump);
			return 1;
		}
		size_t jlen;
		uint8_t *jts = load(jump, &jlen);

		player_open(&p, 1, 0);
		CHECK_EQ(player_write_ts(&p, jts, jlen), 0);
		CHECK_EQ(player_end_ts(&p), 0);
	CHECK_EQ(player_wait_idle(&p, 120000), 0);
		report("across a PTS discontinuity", measure(&p, flash, 0), 17);
		player_close(&p);
		free(jts);
	}

	printf("-- lip-sync trim: the sound 120 ms later than the picture, 15 s\n");
	player_open_trim(&p, 1, 0, 120);
	CHECK_EQ(player_write_ts(&p, ts, len / 4 / 188 * 188), 0);
	CHECK_EQ(player_end_ts(&p), 0);
	CHECK_EQ(player_wait_idle(&p, 120000), 0);
	{
		struct result r = measure(&p, flash, 0);

		printf("   trim 120 ms: %ld flash/tone pairs, skew farthest from 0 %+.1f ms\n",
		       r.pairs, r.worst_ms);
		/* every pair is 120 ms +- MAX_SKEW_MS apart, the flash first: the farthest one
		   within -140 ms, and had any been near 0 it would stand out as no shift at all */
		CHECK_LABELLED("trim 120 ms: flashes come 120 ms before their tones",
			       r.pairs >= 13 && r.worst_ms <= -120 + MAX_SKEW_MS &&
				       r.worst_ms >= -120 - MAX_SKEW_MS);
	}
	player_close(&p);

	printf("-- real-time clock, 8 s\n");
	player_open(&p, 0, 0);
	CHECK_EQ(player_write_ts(&p, ts, len / 7 / 188 * 188), 0);
	CHECK_EQ(player_end_ts(&p), 0);
	CHECK_EQ(player_wait_idle(&p, 30000), 0);
	report("real time", measure(&p, flash, 0), 7);
	player_close(&p);

	free(ts);
	return finish("test_play_avsync");
}
