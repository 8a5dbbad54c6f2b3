/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Real time, as a live feed arrives (VDR's Transfer Mode): the stream is written at its own rate
 * (each packet no earlier than its position in the stream's duration), and the card must never
 * refuse a write for 100 ms or more while playing (VDR clears the device then). Meanwhile
 * DMX_GET_STC is sampled: it must be the PTS of the picture on screen
 * (or of the next one, on its way to the output). Then
 * sound controls on the decoded sound: AUDIO_SET_MUTE with the firmware's auto-unmute,
 * AUDIO_SET_MIXER volume, AUDIO_CHANNEL_SELECT. */
#include <inttypes.h>
#include <math.h>

#include "play_util.h"
#include "ffdvb/clock.h"

static uint64_t now_ns(void)
{
	return ffdvb_monotonic_ns();
}

/* whether pts was on screen at some moment of output time [t0, t1] or was the next picture
 * shown after t1 (the STC moves just before its picture reaches the output); -1 when no
 * picture was on screen yet at t0 */
static int near_screen(const struct ffdvb_output_picture_record *r, long n, uint64_t t0,
		       uint64_t t1, int64_t pts)
{
	int64_t on_screen = -1;
	long i;

	for (i = 0; i < n && r[i].t <= t1; i++) {
		if (r[i].blank)
			continue;
		if (r[i].t > t0 && on_screen == pts)
			return 1; /* replaced within the interval, after being on screen */
		if (r[i].t > t0 && on_screen < 0)
			return -1;
		on_screen = r[i].pts;
	}
	if (on_screen < 0)
		return -1;
	if (on_screen == pts)
		return 1;
	for (; i < n; i++)
		if (!r[i].blank)
			return r[i].pts == pts;
	return 0;
}

static void live(void)
{
	const char *path = stream("sd_mpeg2_mp2.ts");
	size_t len;
	uint8_t *ts = read_file(path, &len);
	struct player p;
	uint64_t start, longest = 0, stc_t0[400], stc_t1[400], last_sample = 0;
	uint64_t stc_v[400];
	int nstc = 0, stc_bad = 0;
	double secs = 2.0; /* the stream's duration */
	struct ffdvb_output_picture_record *r = NULL;
	long n;

	printf("-- live feed at the stream's own rate\n");
	len -= len % 188;
	player_open(&p, 0, 0);
	start = now_ns();
	for (size_t off = 0; off < len; off += 188) {
		uint64_t due = start + (uint64_t)((double)off / (double)len * secs * 1e9);
		uint64_t refused_since = 0;

		while (now_ns() < due) {
			player_pump(&p, 1);
			/* one sample every 5 ms over the whole stream */
			if (nstc < 400 && now_ns() - last_sample >= 5000000) {
				/* the read happened somewhere between t0 and t1 */
				stc_t0[nstc] = ffdvb_output_now(p.out);
				if (ffdvb_decoder_stc(p.dec, &stc_v[nstc]) == 0)
					stc_t1[nstc++] = ffdvb_output_now(p.out);
				last_sample = now_ns();
			}
		}
		for (;;) {
			const uint8_t *pkt = ts + off;
			enum ffdvb_ts_kind k = ffdvb_ts_route(p.ts_kind, pkt);
			void *f;
			ssize_t w;

			if (k == FFDVB_TS_UNKNOWN)
				break;
			f = k == FFDVB_TS_VIDEO ? p.vf : p.af;
			w = p.ops->write(f, pkt, 188, 1);
			if (w == 188 || w == 0)
				break;
			if (!refused_since)
				refused_since = now_ns();
			player_pump(&p, 1);
		}
		if (refused_since && now_ns() - refused_since > longest)
			longest = now_ns() - refused_since;
	}
	player_end_ts(&p);
	printf("   longest refusal: %.1f ms\n", (double)longest / 1e6);
	CHECK_LABELLED("live writes never refused for 100 ms or more", longest < 100000000ull);
	CHECK_EQ(player_wait_idle(&p, 10000), 0);
	n = ffdvb_output_pictures(p.out, &r);
	for (int i = 0; i < nstc; i++) {
		int on = near_screen(r, n, stc_t0[i], stc_t1[i], (int64_t)stc_v[i]);

		if (on == 0) {
			stc_bad++;
			printf("   STC %" PRIu64 " read at %.3f-%.3f ms: not on screen then\n",
			       stc_v[i], (double)stc_t0[i] / 1e6, (double)stc_t1[i] / 1e6);
		}
	}
	printf("   %d STC samples, %d not the picture on screen\n", nstc, stc_bad);
	CHECK_LABELLED("STC samples taken", nstc > 50);
	EXPECT_EQ("STC = PTS of the picture on screen or the next", stc_bad, 0);
	free(r);
	free(ts);
	player_close(&p);
}

/* RMS of the left and right channel over samples [from, to) */
static void rms(const int16_t *pcm, long from, long to, double *l, double *r)
{
	double sl = 0, sr = 0;

	for (long i = from; i < to; i++) {
		sl += (double)pcm[2 * i] * pcm[2 * i];
		sr += (double)pcm[2 * i + 1] * pcm[2 * i + 1];
	}
	*l = sqrt(sl / (double)(to - from));
	*r = sqrt(sr / (double)(to - from));
}

/* plays the stream with the given controls set first; returns RMS of both channels and
 * whether left == right sample for sample */
static void sound_with(const char *path, void (*setup)(struct player *), double *l, double *r,
		       int *same)
{
	struct player p;
	int16_t *pcm = NULL;
	long n;

	player_open(&p, 1, 0);
	setup(&p);
	CHECK_EQ(player_write_file(&p, path), 0);
	CHECK_EQ(player_wait_idle(&p, 30000), 0);
	n = ffdvb_output_sound_samples(p.out, &pcm);
	*same = 1;
	for (long i = n / 4; i < n * 3 / 4; i++)
		if (pcm[2 * i] != pcm[2 * i + 1])
			*same = 0;
	rms(pcm, n / 4, n * 3 / 4, l, r);
	free(pcm);
	player_close(&p);
}

static void set_nothing(struct player *p)
{
	(void)p;
}
static void set_mute(struct player *p)
{
	player_ioctl(p, p->af, FFDVB_AUDIO_SET_MUTE, 1, NULL);
}
static void set_mute_then_clear(struct player *p)
{
	/* VDR: mute in a trick mode, later Clear and play; no AUDIO_SET_MUTE 0 ever comes */
	player_ioctl(p, p->af, FFDVB_AUDIO_SET_MUTE, 1, NULL);
	player_ioctl(p, p->vf, FFDVB_VIDEO_CLEAR_BUFFER, 0, NULL);
	player_ioctl(p, p->af, FFDVB_AUDIO_CLEAR_BUFFER, 0, NULL);
}
static void set_half_volume(struct player *p)
{
	struct ffdvb_audio_mixer m = { 128, 128 };

	player_ioctl(p, p->af, FFDVB_AUDIO_SET_MIXER, 0, &m);
}
static void set_left(struct player *p)
{
	player_ioctl(p, p->af, FFDVB_AUDIO_CHANNEL_SELECT, FFDVB_AUDIO_MONO_LEFT, NULL);
}
static void set_right(struct player *p)
{
	player_ioctl(p, p->af, FFDVB_AUDIO_CHANNEL_SELECT, FFDVB_AUDIO_MONO_RIGHT, NULL);
}
static void set_zero_volume(struct player *p)
{
	struct ffdvb_audio_mixer m = { 0, 0 };

	player_ioctl(p, p->af, FFDVB_AUDIO_SET_MIXER, 0, &m);
}

static void sound_controls(void)
{
	/* left 440 Hz and right 660 Hz at the same level */
	const char *path = stream("sd_mpeg2_mp2.ts");
	const char *ac3 = stream("sd_mpeg2_ac3.ts");
	double l0, r0, l, r;
	int same;

	printf("-- sound controls\n");
	sound_with(path, set_nothing, &l0, &r0, &same);
	printf("   plain: rms %.0f / %.0f\n", l0, r0);
	CHECK_LABELLED("plain: both channels audible and different", l0 > 1000 && r0 > 1000 && !same);
	sound_with(path, set_mute, &l, &r, &same);
	CHECK_LABELLED("AUDIO_SET_MUTE 1: silence", l == 0 && r == 0);
	sound_with(path, set_mute_then_clear, &l, &r, &same);
	CHECK_LABELLED("AUDIO_SET_MUTE 1 then CLEAR_BUFFER while playing: audible again",
		       l > 1000 && r > 1000);
	sound_with(path, set_half_volume, &l, &r, &same);
	printf("   mixer 128: rms %.0f / %.0f\n", l, r);
	CHECK_LABELLED("AUDIO_SET_MIXER 128: half the level", fabs(l / l0 - 128.0 / 255) < 0.02 &&
								       fabs(r / r0 - 128.0 / 255) < 0.02);
	sound_with(path, set_left, &l, &r, &same);
	CHECK_LABELLED("AUDIO_CHANNEL_SELECT left: left on both", same && fabs(l - l0) < l0 * 0.01);
	sound_with(path, set_right, &l, &r, &same);
	CHECK_LABELLED("AUDIO_CHANNEL_SELECT right: right on both", same && fabs(r - r0) < r0 * 0.01);
	sound_with(ac3, set_zero_volume, &l, &r, &same);
	printf("   AC-3 with mixer 0: rms %.0f / %.0f\n", l, r);
	CHECK_LABELLED("AC-3: VDR's mixer 0 for Dolby is not applied (decoded to PCM, audible)",
		       l > 500 && r > 500);
}

int main(void)
{
	live();
	sound_controls();
	return finish("test_play_live");
}
