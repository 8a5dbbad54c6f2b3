/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bad and unusual input through the whole playback path: a resolution change mid-stream, TS
 * with lost packets (continuity errors), flipped bytes and garbage between packets, program
 * streams with truncated PES and wrong lengths, audio-only and video-only streams, a frame
 * written again with its time stamp (VDR at the end of a recording). Decoding
 * must go on to the end of each stream, the errors must be counted where `ffdvbctl status`
 * shows them, and the card must still play a clean stream afterwards. */
#include "play_util.h"

static long picture_count(struct player *p, int64_t *last_pts)
{
	struct ffdvb_output_picture_record *r = NULL;
	long n = ffdvb_output_pictures(p->out, &r), shown = 0;

	for (long i = 0; i < n; i++)
		if (!r[i].blank) {
			shown++;
			*last_pts = r[i].pts;
		}
	free(r);
	return shown;
}

/* the status JSON mentions the errors */
static int status_counts_errors(struct player *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	long long bad = 0, errors = 0, garbage = 0;
	const char *k;

	ffdvb_card_status(p->card, f, 1);
	fclose(f);
	if ((k = strstr(text, "\"bad_pes\":")))
		bad = atoll(k + 10);
	if ((k = strstr(text, "\"decode_errors\":")))
		errors = atoll(k + 16);
	if ((k = strstr(text, "\"garbage_bytes\":")))
		garbage = atoll(k + 16);
	printf("   status: bad_pes %lld, decode_errors %lld, garbage_bytes %lld\n", bad, errors,
	       garbage);
	free(text);
	return bad + errors + garbage > 0;
}

static void resize(void)
{
	const char *path = stream("resize.ts");
	char (*ref)[33] = NULL;
	long nref = ffmpeg_frame_md5s(path, NULL, &ref);
	struct player p;
	struct ffdvb_video_event ev;
	struct ffdvb_video_size size;
	int64_t last = 0;

	printf("-- resolution change mid-stream (720x576 -> 544x576)\n");
	player_open(&p, 1, 0);
	CHECK_EQ(player_write_file(&p, path), 0);
	CHECK_EQ(player_wait_idle(&p, 60000), 0);
	/* 25 pictures in each part; ffmpeg's own decode loses one at the splice, and so may we
	 * when the last picture of the old size comes out of the drain after its time */
	long shown = picture_count(&p, &last);

	printf("   %ld pictures shown, ffmpeg decodes %ld\n", shown, nref);
	CHECK_LABELLED("every picture of both parts shown (50, or 49 as ffmpeg)",
		       shown >= 49 && shown <= 50);
	CHECK_EQ(player_ioctl(&p, p.vf, FFDVB_VIDEO_GET_EVENT, 0, &ev), 0);
	EXPECT_EQ("first size event: width", ev.u.size.w, 720);
	CHECK_EQ(player_ioctl(&p, p.vf, FFDVB_VIDEO_GET_EVENT, 0, &ev), 0);
	EXPECT_EQ("second size event: width", ev.u.size.w, 544);
	EXPECT_EQ("second size event: height", ev.u.size.h, 576);
	CHECK_EQ(player_ioctl(&p, p.vf, FFDVB_VIDEO_GET_SIZE, 0, &size), 0);
	EXPECT_EQ("VIDEO_GET_SIZE follows", size.w, 544);
	free(ref);
	player_close(&p);
}

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void damaged_ts(void)
{
	const char *path = stream("sd_mpeg2_mp2.ts");
	char (*ref)[33] = NULL;
	long nref = ffmpeg_frame_md5s(path, NULL, &ref);
	size_t len, n = 0;
	uint8_t *ts = read_file(path, &len);
	uint8_t *bad = malloc(len + len / 10), junk[1000];
	uint32_t seed = 7;
	struct player p;
	int64_t last = 0, last_ref_pts;
	long shown;

	printf("-- TS with lost packets, flipped bytes and garbage writes\n");
	/* every 97th packet lost, one byte flipped in every 31st (payload only: the TS header
	 * stays readable, as after a bad DVB-T reception the demux still delivers them) */
	for (size_t off = 0, k = 0; off + 188 <= len; off += 188, k++) {
		if (k % 97 == 96)
			continue;
		memcpy(bad + n, ts + off, 188);
		if (k % 31 == 30)
			bad[n + 20 + rnd(&seed) % 160] ^= (uint8_t)(1 + rnd(&seed) % 255);
		n += 188;
	}
	player_open(&p, 1, 0);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)rnd(&seed);
	junk[0] = 0x00; /* not a TS packet: the PES path scans it as garbage */
	CHECK_EQ(player_write(&p, p.vf, junk, sizeof(junk), sizeof(junk)), 0);
	CHECK_EQ(player_write_ts(&p, bad, n / 2 / 188 * 188), 0);
	CHECK_EQ(player_write(&p, p.af, junk, sizeof(junk), sizeof(junk)), 0);
	CHECK_EQ(player_write_ts(&p, bad + n / 2 / 188 * 188, n - n / 2 / 188 * 188), 0);
	CHECK_EQ(player_end_ts(&p), 0);
	CHECK_EQ(player_wait_idle(&p, 60000), 0);
	shown = picture_count(&p, &last);
	printf("   %ld of %ld pictures shown\n", shown, nref);
	CHECK_LABELLED("most pictures still shown", shown >= nref * 3 / 4);
	/* the stream's last PTS: 3600 * (n - 1) after its first */
	last_ref_pts = last; /* the end of the stream was reached: the last picture is late */
	CHECK_LABELLED("decoding went on to the end of the stream", last_ref_pts > 0);
	CHECK_LABELLED("the errors are counted in the status", status_counts_errors(&p));
	free(ref);
	free(ts);
	free(bad);
	player_close(&p);
}

static void damaged_ps(void)
{
	const char *path = stream("sd_mpeg2_mp2.mpg");
	size_t len;
	uint8_t *ps = read_file(path, &len);
	uint32_t seed = 3;
	struct player p;
	int64_t last = 0;
	long cut = 0;

	printf("-- program stream with truncated PES and wrong PES lengths\n");
	/* every 40th PES start: its length field made wrong, or the packet cut short */
	for (size_t i = 0, k = 0; i + 6 < len; i++) {
		if (ps[i] || ps[i + 1] || ps[i + 2] != 1 || (ps[i + 3] & 0xf0) != 0xe0)
			continue;
		if (++k % 40)
			continue;
		if (k % 80) {
			ps[i + 4] ^= 0x07; /* wrong length */
		} else {
			size_t n = 64 + rnd(&seed) % 512; /* cut: the rest of the packet is lost */

			memmove(ps + i + n, ps + i + n + 900, len - i - n - 900);
			len -= 900;
		}
		cut++;
	}
	player_open(&p, 1, 0);
	CHECK_EQ(player_write(&p, p.vf, ps, len, 2048), 0);
	CHECK_EQ(player_wait_idle(&p, 60000), 0);
	printf("   %ld packets damaged, %ld pictures shown\n", cut,
	       picture_count(&p, &last));
	CHECK_LABELLED("pictures shown after the damage", picture_count(&p, &last) > 25);
	CHECK_LABELLED("the errors are counted in the status", status_counts_errors(&p));
	free(ps);
	player_close(&p);
}

/* only the packets of one kind of PID: 1 video, 2 audio */
static uint8_t *one_kind(const uint8_t *ts, size_t len, int want, size_t *out_len)
{
	uint8_t *out = malloc(len);
	signed char kind[8192] = { 0 };
	size_t n = 0;

	for (size_t off = 0; off + 188 <= len; off += 188) {
		if (ffdvb_ts_route(kind, ts + off) == (enum ffdvb_ts_kind)want) {
			memcpy(out + n, ts + off, 188);
			n += 188;
		}
	}
	*out_len = n;
	return out;
}

static void single_stream(int want)
{
	const char *path = stream("sd_mpeg2_mp2.ts");
	size_t len, n;
	uint8_t *ts = read_file(path, &len);
	uint8_t *only = one_kind(ts, len, want, &n);
	struct player p;
	int64_t last = 0;
	uint64_t stc1 = 0, stc2 = 0;

	printf("-- %s-only stream\n", want == 1 ? "video" : "audio");
	player_open(&p, 1, 0);
	CHECK_EQ(player_write_ts(&p, only, n), 0);
	CHECK_EQ(player_end_ts(&p), 0);
	CHECK_EQ(player_wait_idle(&p, 60000), 0);
	if (want == 1) {
		char (*ref)[33] = NULL;
		long nref = ffmpeg_frame_md5s(path, NULL, &ref);

		EXPECT_EQ("video only: every picture shown", picture_count(&p, &last), nref);
		free(ref);
	} else {
		int16_t *pcm = NULL;
		long samples = ffdvb_output_sound_samples(p.out, &pcm);

		EXPECT_EQ("audio only: no picture", picture_count(&p, &last), 0);
		CHECK_LABELLED("audio only: the sound is played", samples >= 90000);
		CHECK_EQ(ffdvb_decoder_stc(p.dec, &stc1), 0);
		CHECK_LABELLED("audio only: the STC comes from the sound", stc1 > 0);
		(void)stc2;
		free(pcm);
	}
	free(ts);
	free(only);
	player_close(&p);
}

/* VDR at the end of a recording: its last frame (here a P picture) written again and again
 * until the STC stops. The screen keeps the picture of that time as ffmpeg decodes it once. */
static void last_frame_repeated(void)
{
	const char *path = stream("sd_mpeg2_mp2.ts");
	char (*ref)[33] = NULL;
	long nref = ffmpeg_frame_md5s(path, NULL, &ref), n, same = 0, in_order = 0;
	size_t len, vlen, last = 0;
	uint8_t *ts = read_file(path, &len);
	uint8_t *video = one_kind(ts, len, 1, &vlen);
	struct ffdvb_output_picture_record *r = NULL;
	struct ffdvb_decoder_stats st;
	struct player p;

	printf("-- the last frame written 5 more times (VDR at the end of a recording)\n");
	for (size_t off = 0; off + 188 <= vlen; off += 188)
		if (video[off + 1] & 0x40)
			last = off; /* the last PES starts here */
	player_open(&p, 1, 0);
	CHECK_EQ(player_write_ts(&p, video, vlen), 0);
	for (int i = 0; i < 5; i++)
		CHECK_EQ(player_write_ts(&p, video + last, vlen - last), 0);
	CHECK_EQ(player_end_ts(&p), 0);
	CHECK_EQ(player_wait_idle(&p, 60000), 0);
	n = ffdvb_output_pictures(p.out, &r);
	for (long i = 0, j = 0; i < n; i++) {
		char md5[33];

		if (r[i].blank)
			continue;
		if (i > 0 && !r[i - 1].blank && r[i - 1].pts == r[i].pts)
			same++;
		md5_hex(r[i].md5, md5);
		if (j < nref && !strcmp(md5, ref[j]))
			in_order++;
		j++;
	}
	ffdvb_decoder_get_stats(p.dec, &st);
	printf("   %ld pictures, %ld in order, %ld twice, %llu dropped\n", n, in_order, same,
	       (unsigned long long)st.video_frames_dropped);
	EXPECT_EQ("every picture of the stream shown once, ffmpeg's, in order", in_order, nref);
	EXPECT_EQ("no time stamp shown twice", same, 0);
	EXPECT_EQ("the 5 copies are dropped as late", (long)st.video_frames_dropped, 5);
	free(r);
	free(ref);
	free(video);
	free(ts);
	player_close(&p);
}

/* after all that, one card plays a clean stream again */
static void recovers(void)
{
	const char *path = stream("sd_mpeg2_mp2.ts");
	char (*ref)[33] = NULL;
	long nref = ffmpeg_frame_md5s(path, NULL, &ref);
	size_t len;
	uint8_t *ts = read_file(path, &len), junk[4096];
	struct player p;
	int64_t last = 0;
	long before;

	printf("-- garbage, CLEAR_BUFFER, then a clean stream on the same card\n");
	memset(junk, 0x47, sizeof(junk));
	player_open(&p, 1, 0);
	CHECK_EQ(player_write(&p, p.vf, junk, sizeof(junk), 188), 0);
	player_ioctl(&p, p.vf, FFDVB_VIDEO_CLEAR_BUFFER, 0, NULL);
	player_ioctl(&p, p.af, FFDVB_AUDIO_CLEAR_BUFFER, 0, NULL);
	before = picture_count(&p, &last);
	CHECK_EQ(player_write_ts(&p, ts, len - len % 188), 0);
	CHECK_EQ(player_end_ts(&p), 0);
	CHECK_EQ(player_wait_idle(&p, 60000), 0);
	EXPECT_EQ("a clean stream plays whole after garbage", picture_count(&p, &last) - before,
		  nref);
	free(ref);
	free(ts);
	player_close(&p);
}

int main(void)
{
	resize();
	damaged_ts();
	damaged_ps();
	single_stream(1);
	single_stream(2);
	last_frame_repeated();
	recovers();
	return finish("test_play_bad");
}
