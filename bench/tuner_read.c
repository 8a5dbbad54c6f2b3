/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb-bench-tuner: the cost of reading dvr0 through ffdvb's tuner forwarding (bench/run.sh
 * tuner, in the VM, over vidtv).
 *
 *   ffdvb-bench-tuner ADAPTER_DIR NAME [SECONDS]
 *
 * Tunes ADAPTER_DIR/frontend0 to vidtv's DVB-C multiplex (474 MHz), routes every PID to dvr0
 * (DMX_OUT_TS_TAP, PID 0x2000) with an 8 MB dvr buffer, then:
 *   - lets the buffer fill for 2 s and drains it with 12032-byte reads that all find data:
 *     per-read latency (median, p99) and the drain throughput, i.e. the cost of the path and
 *     not the wait for the multiplex;
 *   - reads SECONDS (default 3) more as a recorder does (blocking): the sustained rate, which
 *     the multiplex bounds (the same on both paths unless the path drops data).
 * Prints `figure tuner_dvr_read_NAME_median VALUE us` and the like on stdout. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "ffdvb/clock.h"
#include <unistd.h>

#include <linux/dvb/dmx.h>
#include <linux/dvb/frontend.h>

#define CHUNK (188 * 64)
#define MAX_READS 100000

static double now(void)
{
	return (double)ffdvb_monotonic_ns() / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int open_node(const char *dir, const char *node, int flags)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, node);
	fd = open(path, flags);
	if (fd < 0) {
		fprintf(stderr, "bench tuner: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return fd;
}

static int tune(int fe)
{
	struct dtv_property p[] = {
		{ .cmd = DTV_CLEAR },
		{ .cmd = DTV_DELIVERY_SYSTEM, .u.data = SYS_DVBC_ANNEX_A },
		{ .cmd = DTV_FREQUENCY, .u.data = 474000000 },
		{ .cmd = DTV_MODULATION, .u.data = QAM_AUTO },
		{ .cmd = DTV_SYMBOL_RATE, .u.data = 6940000 },
		{ .cmd = DTV_INNER_FEC, .u.data = FEC_AUTO },
		{ .cmd = DTV_TUNE },
	};
	struct dtv_properties ps = { .num = sizeof(p) / sizeof(p[0]), .props = p };
	fe_status_t st = 0;
	double t0 = now();

	if (ioctl(fe, FE_SET_PROPERTY, &ps) != 0)
		return -1;
	while (now() - t0 < 10) {
		if (ioctl(fe, FE_READ_STATUS, &st) == 0 && (st & FE_HAS_LOCK))
			return 0;
		usleep(20000);
	}
	return -1;
}

int main(int argc, char **argv)
{
	static char buf[CHUNK];
	static double lat[MAX_READS];
	const char *dir, *name;
	double secs, t0, drain_t, total_t;
	long long drained = 0, live = 0;
	int fe, dmx, dvr, n = 0;
	struct dmx_pes_filter_params pf = { .pid = 0x2000, .input = DMX_IN_FRONTEND,
					     .output = DMX_OUT_TS_TAP, .pes_type = DMX_PES_OTHER,
					     .flags = DMX_IMMEDIATE_START };

	if (argc < 3) {
		fprintf(stderr, "usage: ffdvb-bench-tuner ADAPTER_DIR NAME [SECONDS]\n");
		return 2;
	}
	dir = argv[1];
	name = argv[2];
	secs = argc > 3 ? atof(argv[3]) : 3;
	fe = open_node(dir, "frontend0", O_RDWR);
	if (tune(fe) != 0) {
		fprintf(stderr, "bench tuner: %s: no lock\n", dir);
		return 1;
	}
	dvr = open_node(dir, "dvr0", O_RDONLY | O_NONBLOCK);
	if (ioctl(dvr, DMX_SET_BUFFER_SIZE, 8 << 20) != 0) {
		fprintf(stderr, "bench tuner: DMX_SET_BUFFER_SIZE: %s\n", strerror(errno));
		return 1;
	}
	dmx = open_node(dir, "demux0", O_RDWR);
	if (ioctl(dmx, DMX_SET_PES_FILTER, &pf) != 0) {
		fprintf(stderr, "bench tuner: DMX_SET_PES_FILTER: %s\n", strerror(errno));
		return 1;
	}
	sleep(2);
	/* drain the backlog: every read finds data */
	t0 = now();
	for (;;) {
		double t1 = now();
		ssize_t r = read(dvr, buf, sizeof(buf));
		double dt = now() - t1;

		if (r < 0 && errno == EAGAIN)
			break;
		if (r <= 0) {
			fprintf(stderr, "bench tuner: read: %s\n", r ? strerror(errno) : "EOF");
			return 1;
		}
		drained += r;
		if (r == CHUNK && n < MAX_READS)
			lat[n++] = dt;
	}
	drain_t = now() - t0;
	/* then as a recorder reads: blocking */
	fcntl(dvr, F_SETFL, 0);
	t0 = now();
	while ((total_t = now() - t0) < secs) {
		ssize_t r = read(dvr, buf, sizeof(buf));

		if (r < 0 && errno == EOVERFLOW)
			continue;
		if (r <= 0) {
			fprintf(stderr, "bench tuner: read: %s\n", r ? strerror(errno) : "EOF");
			return 1;
		}
		live += r;
	}
	if (n < 20) {
		fprintf(stderr, "bench tuner: only %d full reads from the backlog\n", n);
		return 1;
	}
	qsort(lat, (size_t)n, sizeof(lat[0]), cmp);
	printf("figure tuner_dvr_read_%s_median %.1f us\n", name, lat[n / 2] * 1e6);
	printf("figure tuner_dvr_read_%s_p99 %.1f us\n", name, lat[(n * 99) / 100] * 1e6);
	printf("figure tuner_dvr_drain_%s %.2f MB/s\n", name, (double)drained / drain_t / 1e6);
	printf("figure tuner_dvr_live_%s %.1f kB/s\n", name, (double)live / total_t / 1e3);
	fprintf(stderr, "bench tuner: %s: %d full reads, %lld bytes drained in %.3f s\n", name, n,
		drained, drain_t);
	close(dmx);
	close(dvr);
	close(fe);
	return 0;
}
