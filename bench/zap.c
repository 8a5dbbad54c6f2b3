/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb-bench-zap: zap time with the file tuner (bench/run.sh tuner, in the VM): from
 * FE_SET_PROPERTY(DTV_TUNE) on the emulated frontend0 to the first picture the decoder shows.
 *
 *   ffdvb-bench-zap ADAPTER_DIR CONTROL_SOCKET ROUNDS FREQ_HZ AWAY_FREQ_HZ VPID APID
 *
 * ffdvbd runs with --tuner file:CHANNELS, where FREQ_HZ and AWAY_FREQ_HZ are DVB-T entries
 * (8 MHz). Each round zaps away first (the decoder feeds stopped, tuned to AWAY_FREQ_HZ and
 * locked, the daemon's video_shown steady), then, as szap/dvbv5-zap do: DTV_TUNE to FREQ_HZ,
 * FE_READ_STATUS until FE_HAS_LOCK, a video and an audio DMX_OUT_DECODER feed on two demux0
 * files, and polls the daemon's `status --json` (its control socket) every 5 ms until
 * video_shown grows. Prints `figure tuner_zap_median VALUE ms`, `tuner_zap_max`, and the lock
 * part alone (`tuner_zap_lock_median`) on stdout; a line per round on stderr. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

#include "ffdvb/clock.h"
#include <unistd.h>

#include <linux/dvb/dmx.h>
#include <linux/dvb/frontend.h>

#define MAX_ROUNDS 1000
#define PICTURE_TIMEOUT 20.0 /* s: a TCG guest decodes 720x576 MPEG-2 slowly */

static double now(void)
{
	return (double)ffdvb_monotonic_ns() / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - (time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void die(const char *what)
{
	fprintf(stderr, "bench zap: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int open_node(const char *dir, const char *node)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, node);
	fd = open(path, O_RDWR);
	if (fd < 0)
		die(path);
	return fd;
}

/* the daemon's video_shown, from `status --json` on its control socket; -1 on failure */
static long long video_shown(const char *sock)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static char buf[1 << 16];
	size_t len = 0;
	ssize_t n;
	const char *p;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	if (fd < 0 || connect(fd, (const struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    write(fd, "status --json\n", 14) != 14) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	shutdown(fd, SHUT_WR);
	while (len < sizeof(buf) - 1 && ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0 ||
					 (n < 0 && errno == EINTR)))
		len += n > 0 ? (size_t)n : 0;
	close(fd);
	buf[len] = '\0';
	p = strstr(buf, "\"video_shown\":");
	return p ? strtoll(p + 14, NULL, 10) : -1;
}

static int tune(int fe, uint32_t freq)
{
	struct dtv_property p[] = {
		{ .cmd = DTV_CLEAR },
		{ .cmd = DTV_DELIVERY_SYSTEM, .u.data = SYS_DVBT },
		{ .cmd = DTV_FREQUENCY, .u.data = freq },
		{ .cmd = DTV_BANDWIDTH_HZ, .u.data = 8000000 },
		{ .cmd = DTV_TUNE },
	};
	struct dtv_properties ps = { .num = sizeof(p) / sizeof(p[0]), .props = p };

	return ioctl(fe, FE_SET_PROPERTY, &ps);
}

/* polls FE_READ_STATUS every millisecond; the time of the lock, or a negative value */
static double wait_lock(int fe, double t0)
{
	fe_status_t st = 0;

	while (now() - t0 < 10) {
		if (ioctl(fe, FE_READ_STATUS, &st) == 0 && (st & FE_HAS_LOCK))
			return now();
		sleep_s(0.001);
	}
	return -1;
}

static void decoder_feed(int dmx, uint16_t pid, dmx_pes_type_t type)
{
	struct dmx_pes_filter_params p = { .pid = pid, .input = DMX_IN_FRONTEND,
					   .output = DMX_OUT_DECODER, .pes_type = type,
					   .flags = DMX_IMMEDIATE_START };

	if (ioctl(dmx, DMX_SET_PES_FILTER, &p) != 0)
		die("DMX_SET_PES_FILTER(DMX_OUT_DECODER)");
}

/* waits until video_shown holds still for 300 ms (nothing left in the decoder), returns it */
static long long steady_shown(const char *sock)
{
	long long a = video_shown(sock), b;

	for (int i = 0; i < 100; i++) {
		sleep_s(0.3);
		b = video_shown(sock);
		if (b == a)
			return a;
		a = b;
	}
	return a;
}

int main(int argc, char **argv)
{
	static double zap[MAX_ROUNDS], lock[MAX_ROUNDS];
	const char *dir, *sock;
	int rounds, fe, vdmx, admx;
	uint32_t freq, away;
	uint16_t vpid, apid;

	if (argc != 8) {
		fprintf(stderr, "usage: ffdvb-bench-zap ADAPTER_DIR CONTROL_SOCKET ROUNDS FREQ_HZ "
				"AWAY_FREQ_HZ VPID APID\n");
		return 2;
	}
	dir = argv[1];
	sock = argv[2];
	rounds = atoi(argv[3]);
	freq = (uint32_t)strtoul(argv[4], NULL, 0);
	away = (uint32_t)strtoul(argv[5], NULL, 0);
	vpid = (uint16_t)strtoul(argv[6], NULL, 0);
	apid = (uint16_t)strtoul(argv[7], NULL, 0);
	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "bench zap: ROUNDS must be 1..%d\n", MAX_ROUNDS);
		return 2;
	}
	if (video_shown(sock) < 0) {
		fprintf(stderr, "bench zap: no status from ffdvbd at %s\n", sock);
		return 1;
	}
	fe = open_node(dir, "frontend0");
	vdmx = open_node(dir, "demux0");
	admx = open_node(dir, "demux0");

	for (int r = 0; r < rounds; r++) {
		long long before, shown;
		double t0, tl, t1;

		/* zap away: the feeds stopped, another entry tuned and locked, the decoder idle */
		ioctl(vdmx, DMX_STOP);
		ioctl(admx, DMX_STOP);
		if (tune(fe, away) != 0)
			die("FE_SET_PROPERTY(DTV_TUNE), away");
		if (wait_lock(fe, now()) < 0) {
			fprintf(stderr, "bench zap: no lock on %u Hz\n", away);
			return 1;
		}
		before = steady_shown(sock);

		/* and back, timed from DTV_TUNE */
		t0 = now();
		if (tune(fe, freq) != 0)
			die("FE_SET_PROPERTY(DTV_TUNE)");
		tl = wait_lock(fe, t0);
		if (tl < 0) {
			fprintf(stderr, "bench zap: no lock on %u Hz\n", freq);
			return 1;
		}
		decoder_feed(vdmx, vpid, DMX_PES_VIDEO);
		decoder_feed(admx, apid, DMX_PES_AUDIO);
		do {
			sleep_s(0.005);
			shown = video_shown(sock);
			t1 = now();
		} while (shown <= before && t1 - t0 < PICTURE_TIMEOUT);
		if (shown <= before) {
			fprintf(stderr, "bench zap: no picture within %.0f s of the tune\n",
				PICTURE_TIMEOUT);
			return 1;
		}
		zap[r] = (t1 - t0) * 1e3;
		lock[r] = (tl - t0) * 1e3;
		fprintf(stderr, "bench zap: round %d: lock %.1f ms, first picture %.1f ms\n", r + 1,
			lock[r], zap[r]);
	}
	qsort(zap, (size_t)rounds, sizeof(zap[0]), cmp);
	qsort(lock, (size_t)rounds, sizeof(lock[0]), cmp);
	printf("figure tuner_zap_median %.1f ms\n", zap[rounds / 2]);
	printf("figure tuner_zap_max %.1f ms\n", zap[rounds - 1]);
	printf("figure tuner_zap_lock_median %.1f ms\n", lock[rounds / 2]);
	close(vdmx);
	close(admx);
	close(fe);
	return 0;
}
