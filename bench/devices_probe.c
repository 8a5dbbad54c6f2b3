// SPDX-License-Identifier: GPL-2.0-or-later
/* ffdvb-bench-devices-probe: A/V sync where it leaves the machine, watched from outside the
 * daemon (bench/run.sh devices, in the VM). While ffdvbd plays avsync.ts (a white picture and
 * a 1 kHz burst at the same PTS once a second) with --output drm and its sound on the ALSA
 * loopback card (snd-aloop), this probe
 *  - polls the KMS CRTC the daemon drives: when its scan-out buffer changes, it reads that
 *    buffer's middle and notes the time a white picture went up (the display controller's
 *    view, not the daemon's);
 *  - captures the loopback's other end: a sample appears there when it leaves the daemon's
 *    playback buffer, so a burst's first sample is timed as it is played out.
 * Both on CLOCK_MONOTONIC. Prints `flash T_NS`, `onset T_NS`, then `pair OFFSET_MS` for each
 * flash with its burst (picture minus sound: > 0 the picture is late) and the figures
 * av_offset_devices_mean_ms and _worst_ms (every pair but the first), _first_ms (how playback
 * starts), av_pairs, probe_screen_poll_ms (a flash is seen up to that much late; the sound
 * side is as fine as the loopback's timer, a few ms).
 * usage: ffdvb-bench-devices-probe SECONDS CAPTURE_PCM [DRM_CARD]
 *   e.g. 20 hw:Loopback,1,0 /dev/dri/card0 */
#include <alsa/asoundlib.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "ffdvb/clock.h"
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#define RATE 48000
#define PERIOD 240             /* 5 ms capture periods */
#define LEVEL 2000             /* the burst peaks near 16000; silence is 0 */
#define QUIET (RATE / 5)       /* an onset follows 200 ms without a loud sample */
#define MAX_EVENTS 1024
#define PAIR_MS 500.0          /* a flash farther than this from every burst has none */

static uint64_t now_ns(void)
{
	return ffdvb_monotonic_ns();
}

static uint64_t flashes[MAX_EVENTS], onsets[MAX_EVENTS];
static size_t nflash, nonset;
static volatile int stop;

/* ---- sound -------------------------------------------------------------------------------- */

static void *capture(void *arg)
{
	snd_pcm_t *pcm = arg;
	int16_t buf[PERIOD * 2];
	long quiet = QUIET;

	while (!stop) {
		snd_pcm_sframes_t n = snd_pcm_readi(pcm, buf, PERIOD);
		uint64_t t = now_ns();

		if (n < 0) {
			if (snd_pcm_recover(pcm, (int)n, 1) < 0) {
				fprintf(stderr, "probe: capture: %s\n", snd_strerror((int)n));
				return NULL;
			}
			continue;
		}
		snd_pcm_sframes_t later = 0; /* captured after this read's last sample */

		if (snd_pcm_avail(pcm) > 0)
			later = snd_pcm_avail(pcm);
		for (snd_pcm_sframes_t i = 0; i < n; i++) {
			int loud = abs(buf[2 * i]) > LEVEL;

			if (loud && quiet >= QUIET && nonset < MAX_EVENTS) {
				uint64_t back = (uint64_t)(n - 1 - i + later) * 1000000000ull / RATE;

				onsets[nonset++] = t - back;
			}
			quiet = loud ? 0 : quiet + 1;
		}
	}
	return NULL;
}

static snd_pcm_t *open_capture(const char *name)
{
	snd_pcm_t *pcm;
	int r = snd_pcm_open(&pcm, name, SND_PCM_STREAM_CAPTURE, 0);

	if (r == 0)
		/* the loopback starts a capture only in the playing side's geometry: the daemon
		   asks for 50 ms (src/output/alsa_audio.c), so the same here */
		r = snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 2,
				       RATE, 0, 50000);
	if (r < 0) {
		fprintf(stderr, "probe: %s: %s\n", name, snd_strerror(r));
		return NULL;
	}
	if ((r = snd_pcm_start(pcm)) < 0) {
		fprintf(stderr, "probe: %s: cannot start: %s\n", name, snd_strerror(r));
		return NULL;
	}
	return pcm;
}

/* ---- picture ------------------------------------------------------------------------------ */

struct fb_map {
	uint32_t id;
	uint8_t *px;
	uint32_t pitch, w, h;
	size_t size;
};

/* the scan-out buffer `id` mapped for reading (root: drmModeGetFB gives its handle) */
static int map_fb(int fd, uint32_t id, struct fb_map *m)
{
	drmModeFBPtr fb = drmModeGetFB(fd, id);
	struct drm_mode_map_dumb map = { 0 };

	if (!fb || !fb->handle || fb->bpp != 32) {
		drmModeFreeFB(fb);
		return -1;
	}
	map.handle = fb->handle;
	m->id = id;
	m->pitch = fb->pitch;
	m->w = fb->width;
	m->h = fb->height;
	m->size = (size_t)fb->pitch * fb->height;
	drmModeFreeFB(fb);
	if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map))
		return -1;
	m->px = mmap(NULL, m->size, PROT_READ, MAP_SHARED, fd, (off_t)map.offset);
	return m->px == MAP_FAILED ? -1 : 0;
}

/* mean of the green channel over a row through the middle */
static int brightness(const struct fb_map *m)
{
	const uint8_t *row = m->px + (size_t)(m->h / 2) * m->pitch;
	unsigned long sum = 0;

	for (uint32_t x = m->w / 4; x < m->w * 3 / 4; x++)
		sum += row[4 * x + 1];
	return (int)(sum / (m->w / 2));
}

/* the CRTC showing a framebuffer (the daemon's), 0 if none */
static uint32_t active_crtc(int fd)
{
	drmModeResPtr res = drmModeGetResources(fd);
	uint32_t id = 0;

	for (int i = 0; res && i < res->count_crtcs && !id; i++) {
		drmModeCrtcPtr c = drmModeGetCrtc(fd, res->crtcs[i]);

		if (c && c->buffer_id)
			id = c->crtc_id;
		drmModeFreeCrtc(c);
	}
	drmModeFreeResources(res);
	return id;
}

static uint64_t polls, poll_first, poll_last;

static void watch_screen(int fd, uint64_t until)
{
	struct fb_map maps[4] = { 0 };
	uint32_t crtc = 0, shown = 0;
	int white = 0;

	while (now_ns() < until) {
		if (!crtc)
			crtc = active_crtc(fd);
		drmModeCrtcPtr c = crtc ? drmModeGetCrtc(fd, crtc) : NULL;
		uint64_t t = now_ns();
		uint32_t id = c ? c->buffer_id : 0;

		if (!polls++)
			poll_first = t;
		poll_last = t;

		drmModeFreeCrtc(c);
		if (id && id != shown) {
			struct fb_map *m = NULL;

			for (int i = 0; i < 4 && !m; i++)
				if (maps[i].id == id)
					m = &maps[i];
			for (int i = 0; i < 4 && !m; i++)
				if (!maps[i].id && map_fb(fd, id, &maps[i]) == 0)
					m = &maps[i];
			shown = id;
			int w = m && brightness(m) > 128;

			if (w && !white && nflash < MAX_EVENTS)
				flashes[nflash++] = t;
			white = w;
		}
		usleep(500);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: ffdvb-bench-devices-probe SECONDS CAPTURE_PCM [DRM_CARD]\n");
		return 2;
	}
	double secs = atof(argv[1]);
	const char *card = argc > 3 ? argv[3] : "/dev/dri/card0";
	int fd = open(card, O_RDWR | O_CLOEXEC);
	snd_pcm_t *pcm = open_capture(argv[2]);
	pthread_t th;

	if (fd < 0 || !pcm) {
		fprintf(stderr, "probe: cannot open %s or %s\n", card, argv[2]);
		return 1;
	}
	pthread_create(&th, NULL, capture, pcm);
	watch_screen(fd, now_ns() + (uint64_t)(secs * 1e9));
	stop = 1;
	pthread_join(th, NULL);
	snd_pcm_close(pcm);

	double sum = 0, worst = 0, first = 0;
	long pairs = 0;

	for (size_t i = 0; i < nflash; i++)
		printf("flash %llu\n", (unsigned long long)flashes[i]);
	for (size_t i = 0; i < nonset; i++)
		printf("onset %llu\n", (unsigned long long)onsets[i]);
	/* the first pair apart: it shows how playback starts, the others how it keeps sync */
	for (size_t i = 0; i < nflash; i++) {
		double best = 1e9;

		for (size_t k = 0; k < nonset; k++) {
			double d = ((double)flashes[i] - (double)onsets[k]) / 1e6;

			if (fabs(d) < fabs(best))
				best = d;
		}
		if (fabs(best) > PAIR_MS)
			continue;
		printf("pair %+.1f\n", best);
		if (pairs++ == 0) {
			first = best;
			continue;
		}
		sum += best;
		if (fabs(best) > fabs(worst))
			worst = best;
	}
	if (pairs < 4) {
		fprintf(stderr, "probe: %zu flashes, %zu bursts, %ld pairs: too few to measure\n",
			nflash, nonset, pairs);
		return 1;
	}
	printf("figure av_offset_devices_mean_ms %.1f ms\n", sum / (double)(pairs - 1));
	printf("figure av_offset_devices_worst_ms %.1f ms\n", worst);
	printf("figure av_offset_devices_first_ms %.1f ms\n", first);
	printf("figure av_pairs %ld count\n", pairs);
	/* how finely the screen was watched: a flash is seen up to one interval late */
	printf("figure probe_screen_poll_ms %.2f ms\n",
	       polls > 1 ? (double)(poll_last - poll_first) / 1e6 / (double)(polls - 1) : 0.0);
	return 0;
}
