/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Round trip and throughput of one DVB operation on several device nodes, measured side by
 * side: the targets take turns in rounds (order reversed every other round) so that a slow
 * moment of the machine hits all of them alike. Prints `figure NAME VALUE UNIT` lines.
 *
 * usage: ffdvb-cuse-rtt [options] LABEL=PATH [LABEL=PATH ...]
 *        ffdvb-cuse-rtt --op clock          (cost of one clock read, no target)
 *   --op noarg|stc|write  ioctl VIDEO_SET_STREAMTYPE (no argument, no-op on av7110) /
 *                         DMX_GET_STC (_IOWR, 16 bytes) / write() (default noarg)
 *   --mode rtt|tput       rtt: time each call, print NAME_LABEL_median and _p99 in us;
 *                         tput: time runs of back-to-back writes (a run ends at a clear or
 *                         at the end of a turn), print the median of their rates as
 *                         NAME_LABEL in MB/s (10^6 bytes/s): a median, so that a moment the
 *                         machine was busy elsewhere does not count
 *   --size BYTES          write size (default 188); a multiple of 188 is written as TS
 *                         packets (the TS path of video0), anything else as video PES
 *   --iters N             timed calls per target (default 2000)
 *   --warmup N            untimed calls per target before the first round (default 200)
 *   --rounds R            turns per target (default 10)
 *   --clear-every BYTES   VIDEO_CLEAR_BUFFER, outside the timing, before a write would take
 *                         the bytes written since the last clear past BYTES (default 32768;
 *                         0 = never), so that a write never waits for the decoder to drain
 *   --name NAME           figure name prefix (default rtt_<op> or tput_write<size>)
 * Writes set the node up first: VIDEO_SELECT_SOURCE(MEMORY), VIDEO_PLAY, VIDEO_CLEAR_BUFFER.
 * Only libc and include/ffdvb/abi.h: no FUSE, no kernel DVB headers. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "ffdvb/abi.h"
#include "ffdvb/clock.h"

#define MAX_TARGETS 8
#define TS_PACKET 188
#define TS_PERIOD_PACKETS 64 /* one PES header every 64 TS packets */
#define PES_PACKET 2048

enum op { OP_NOARG, OP_STC, OP_WRITE, OP_CLOCK };
enum mode { MODE_RTT, MODE_TPUT };

struct target {
	const char *label;
	const char *path;
	int fd;
	size_t since_clear;  /* bytes written since the last VIDEO_CLEAR_BUFFER */
	size_t stream_pos;   /* where the next write starts in the stream pattern */
	int64_t *samples_ns; /* rtt: one per call */
	double *rates;       /* tput: bytes per ns, one per run of writes */
	size_t nsamples;
};

struct bench {
	enum op op;
	enum mode mode;
	size_t size;
	long iters, warmup, rounds;
	size_t clear_every;
	char name[128];
	unsigned char *stream; /* the byte pattern writes are cut from: size + period bytes */
	size_t period;
	struct target targets[MAX_TARGETS];
	int ntargets;
};

static int64_t now_ns(void)
{
	return (int64_t)ffdvb_monotonic_ns();
}

static void die(const struct target *t, const char *what)
{
	fprintf(stderr, "ffdvb-cuse-rtt: %s%s%s: %s\n", t ? t->label : "", t ? ": " : "", what,
		strerror(errno));
	exit(1);
}

/* A repeating stream that looks like what VDR writes: TS packets of one video PES per period,
 * or back-to-back 2048-byte video PES packets. Payload bytes hold no start codes. */
static void build_stream(struct bench *b)
{
	int ts = b->size % TS_PACKET == 0;

	b->period = ts ? (size_t)TS_PACKET * TS_PERIOD_PACKETS : PES_PACKET;
	b->stream = malloc(b->size + b->period);
	if (!b->stream)
		die(NULL, "malloc");
	for (size_t at = 0; at < b->size + b->period; at += ts ? TS_PACKET : PES_PACKET) {
		size_t len = ts ? TS_PACKET : PES_PACKET;
		unsigned char *p = b->stream + at;

		if (at + len > b->size + b->period)
			len = b->size + b->period - at;
		unsigned char pkt[PES_PACKET];
		memset(pkt, 0xaa, sizeof pkt);
		if (ts) {
			size_t n = at / TS_PACKET;
			int start = n % TS_PERIOD_PACKETS == 0;

			pkt[0] = 0x47;
			pkt[1] = (start ? 0x40 : 0) | 0x01; /* PID 0x100 */
			pkt[2] = 0x00;
			pkt[3] = 0x10 | (n & 0x0f);          /* payload only, continuity counter */
			if (start) /* unbounded video PES: 00 00 01 E0, length 0, no header fields */
				memcpy(pkt + 4, "\x00\x00\x01\xe0\x00\x00\x80\x00\x00", 9);
		} else {
			memcpy(pkt, "\x00\x00\x01\xe0\x07\xfa\x80\x00\x00", 9); /* length 2042 */
		}
		memcpy(p, pkt, len);
	}
}

static void clear_buffer(struct target *t)
{
	if (ioctl(t->fd, FFDVB_VIDEO_CLEAR_BUFFER) < 0)
		die(t, "VIDEO_CLEAR_BUFFER");
	t->since_clear = 0;
}

static void setup_writer(struct target *t)
{
	if (ioctl(t->fd, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY) < 0)
		die(t, "VIDEO_SELECT_SOURCE(MEMORY)");
	if (ioctl(t->fd, FFDVB_VIDEO_PLAY) < 0)
		die(t, "VIDEO_PLAY");
	clear_buffer(t);
}

static int write_needs_clear(const struct bench *b, const struct target *t)
{
	return b->clear_every && t->since_clear + b->size > b->clear_every;
}

/* One write of the next part of the stream; exits on an error or a short count. */
static void write_one(struct bench *b, struct target *t)
{
	ssize_t r = write(t->fd, b->stream + t->stream_pos, b->size);

	if (r < 0)
		die(t, "write (EAGAIN: lower --clear-every)");
	if ((size_t)r != b->size) {
		fprintf(stderr, "ffdvb-cuse-rtt: %s: short write %zd of %zu\n", t->label, r, b->size);
		exit(1);
	}
	t->since_clear += b->size;
	t->stream_pos = (t->stream_pos + b->size) % b->period;
}

/* One call, timed; a write may first clear the buffer, untimed. Returns the call's duration. */
static int64_t one_call(struct bench *b, struct target *t)
{
	int64_t t0, t1;
	int r;

	switch (b->op) {
	case OP_NOARG:
		t0 = now_ns();
		r = ioctl(t->fd, FFDVB_VIDEO_SET_STREAMTYPE, 0);
		t1 = now_ns();
		if (r < 0)
			die(t, "VIDEO_SET_STREAMTYPE");
		return t1 - t0;
	case OP_STC: {
		struct ffdvb_dmx_stc stc = { .num = 0 };

		t0 = now_ns();
		r = ioctl(t->fd, FFDVB_DMX_GET_STC, &stc);
		t1 = now_ns();
		if (r < 0)
			die(t, "DMX_GET_STC");
		return t1 - t0;
	}
	default:
		if (write_needs_clear(b, t))
			clear_buffer(t);
		t0 = now_ns();
		write_one(b, t);
		return now_ns() - t0;
	}
}

static void end_run(struct target *t, int64_t start, uint64_t bytes)
{
	int64_t ns = now_ns() - start;

	if (bytes)
		t->rates[t->nsamples++] = (double)bytes / (double)(ns > 0 ? ns : 1);
}

/* tput: time back-to-back writes; each VIDEO_CLEAR_BUFFER ends a run, outside the timing */
static void tput_batch(struct bench *b, struct target *t, long count)
{
	uint64_t bytes = 0;
	int64_t start = now_ns();

	for (long i = 0; i < count; i++) {
		if (write_needs_clear(b, t)) {
			end_run(t, start, bytes);
			clear_buffer(t);
			bytes = 0;
			start = now_ns();
		}
		write_one(b, t);
		bytes += b->size;
	}
	end_run(t, start, bytes);
}

static void batch(struct bench *b, struct target *t, long count, int timed)
{
	if (timed && b->mode == MODE_TPUT) {
		tput_batch(b, t, count);
		return;
	}
	for (long i = 0; i < count; i++) {
		int64_t d = one_call(b, t);

		if (timed)
			t->samples_ns[t->nsamples++] = d;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(struct bench *b)
{
	for (int i = 0; i < b->ntargets; i++) {
		struct target *t = &b->targets[i];

		if (b->mode == MODE_TPUT) {
			qsort(t->rates, t->nsamples, sizeof *t->rates, cmp_double);
			printf("figure %s_%s %.2f MB/s\n", b->name, t->label,
			       t->rates[t->nsamples / 2] * 1e3);
			continue;
		}
		qsort(t->samples_ns, t->nsamples, sizeof *t->samples_ns, cmp_i64);
		size_t p99 = (t->nsamples * 99 + 99) / 100; /* ceil(0.99 n), 1-based */
		printf("figure %s_%s_median %.2f us\n", b->name, t->label,
		       (double)t->samples_ns[t->nsamples / 2] / 1e3);
		printf("figure %s_%s_p99 %.2f us\n", b->name, t->label,
		       (double)t->samples_ns[p99 - 1] / 1e3);
	}
}

static void clock_cost(void)
{
	enum { N = 100000 };
	int64_t t0 = now_ns();

	for (int i = 0; i < N; i++)
		now_ns();
	printf("figure clock_read_cost %.3f us\n", (double)(now_ns() - t0) / N / 1e3);
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--op noarg|stc|write] [--mode rtt|tput] [--size BYTES] [--iters N]\n"
		"       [--warmup N] [--rounds R] [--clear-every BYTES] [--name NAME]\n"
		"       LABEL=PATH [LABEL=PATH ...]\n"
		"       %s --op clock\n", prog, prog);
	exit(2);
}

static long number(const char *prog, const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 0)
		usage(prog);
	return v;
}

static void parse(struct bench *b, int argc, char **argv)
{
	b->op = OP_NOARG;
	b->mode = MODE_RTT;
	b->size = TS_PACKET;
	b->iters = 2000;
	b->warmup = 200;
	b->rounds = 10;
	b->clear_every = 32768;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (a[0] == '-' && a[1] == '-' && !v)
			usage(argv[0]);
		if (!strcmp(a, "--op")) {
			b->op = !strcmp(v, "noarg") ? OP_NOARG : !strcmp(v, "stc") ? OP_STC
			      : !strcmp(v, "write") ? OP_WRITE : !strcmp(v, "clock") ? OP_CLOCK : -1;
			if ((int)b->op < 0)
				usage(argv[0]);
		} else if (!strcmp(a, "--mode")) {
			if (strcmp(v, "rtt") && strcmp(v, "tput"))
				usage(argv[0]);
			b->mode = !strcmp(v, "rtt") ? MODE_RTT : MODE_TPUT;
		} else if (!strcmp(a, "--size")) {
			b->size = number(argv[0], v);
		} else if (!strcmp(a, "--iters")) {
			b->iters = number(argv[0], v);
		} else if (!strcmp(a, "--warmup")) {
			b->warmup = number(argv[0], v);
		} else if (!strcmp(a, "--rounds")) {
			b->rounds = number(argv[0], v);
		} else if (!strcmp(a, "--clear-every")) {
			b->clear_every = number(argv[0], v);
		} else if (!strcmp(a, "--name")) {
			snprintf(b->name, sizeof b->name, "%s", v);
		} else {
			char *eq = strchr(a, '=');

			if (a[0] == '-' || !eq || eq == a || b->ntargets == MAX_TARGETS)
				usage(argv[0]);
			*eq = '\0';
			b->targets[b->ntargets].label = a;
			b->targets[b->ntargets].path = eq + 1;
			b->ntargets++;
			continue;
		}
		i++;
	}
	if (b->op == OP_CLOCK)
		return;
	if (!b->ntargets || b->iters < 1 || b->rounds < 1 || b->size < 1 ||
	    (b->mode == MODE_TPUT && b->op != OP_WRITE) ||
	    (b->clear_every && b->op == OP_WRITE && b->size > b->clear_every))
		usage(argv[0]);
	if (b->rounds > b->iters)
		b->rounds = b->iters;
	if (!b->name[0]) {
		if (b->mode == MODE_TPUT)
			snprintf(b->name, sizeof b->name, "tput_write%zu", b->size);
		else
			snprintf(b->name, sizeof b->name, "rtt_%s",
				 b->op == OP_NOARG ? "noarg" : b->op == OP_STC ? "stc" : "write");
	}
}

int main(int argc, char **argv)
{
	static struct bench b;

	parse(&b, argc, argv);
	if (b.op == OP_CLOCK) {
		clock_cost();
		return 0;
	}
	if (b.op == OP_WRITE)
		build_stream(&b);
	for (int i = 0; i < b.ntargets; i++) {
		struct target *t = &b.targets[i];

		t->fd = open(t->path, O_RDWR | O_NONBLOCK);
		if (t->fd < 0)
			die(t, t->path);
		t->samples_ns = calloc((size_t)b.iters, sizeof *t->samples_ns);
		t->rates = calloc((size_t)b.iters, sizeof *t->rates); /* runs <= writes */
		if (!t->samples_ns || !t->rates)
			die(t, "calloc");
		if (b.op == OP_WRITE)
			setup_writer(t);
		batch(&b, t, b.warmup, 0);
	}
	for (long r = 0; r < b.rounds; r++) {
		/* spread iters over the rounds; the first rounds take the remainder */
		long count = b.iters / b.rounds + (r < b.iters % b.rounds);

		for (int k = 0; k < b.ntargets; k++) {
			int i = r % 2 ? b.ntargets - 1 - k : k;

			batch(&b, &b.targets[i], count, 1);
		}
	}
	report(&b);
	for (int i = 0; i < b.ntargets; i++) {
		close(b.targets[i].fd);
		free(b.targets[i].samples_ns);
		free(b.targets[i].rates);
	}
	free(b.stream);
	return 0;
}
