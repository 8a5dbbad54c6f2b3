/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Check result lines and the final count. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "ffdvb/clock.h"
#include <unistd.h>

#include "conform.h"

/* Shared with the watchdog parent (main.c), which reports a hang when the checking process is
 * stuck inside the device and cannot even take a signal. */
struct shared_report {
	int passed, failed, skipped;
	long long deadline_ms; /* CLOCK_MONOTONIC; 0 = none */
	char stage[128];
};
static struct shared_report local_report, *rep = &local_report;

void report_init(void)
{
	void *p = mmap(NULL, sizeof *rep, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);

	if (p != MAP_FAILED)
		rep = p;
}

static long long now_ms(void)
{
	return (long long)(ffdvb_monotonic_ns() / 1000000);
}

void report_stage(const char *stage, int seconds)
{
	snprintf(rep->stage, sizeof rep->stage, "%s", stage);
	rep->deadline_ms = seconds > 0 ? now_ms() + seconds * 1000LL : 0;
}

int report_overdue(void)
{
	return rep->deadline_ms && now_ms() > rep->deadline_ms;
}

const char *cname(const char *fmt, ...)
{
	static char bufs[8][160];
	static unsigned int next;
	char *b = bufs[next++ % ARRAY_SIZE(bufs)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof bufs[0], fmt, ap);
	va_end(ap);
	return b;
}

const char *errname(int err)
{
	static const struct { int err; const char *name; } t[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EINTR, "EINTR" }, { EIO, "EIO" },
		{ ENXIO, "ENXIO" }, { EBADF, "EBADF" }, { EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" },
		{ EACCES, "EACCES" }, { EFAULT, "EFAULT" }, { EBUSY, "EBUSY" },
		{ ENODEV, "ENODEV" }, { EINVAL, "EINVAL" }, { EMFILE, "EMFILE" },
		{ ENOTTY, "ENOTTY" }, { ENOSPC, "ENOSPC" },
		{ EPIPE, "EPIPE" }, { ERANGE, "ERANGE" }, { ENOSYS, "ENOSYS" },
		{ EOVERFLOW, "EOVERFLOW" }, { EOPNOTSUPP, "EOPNOTSUPP" }, { ENOBUFS, "ENOBUFS" },
		{ ETIMEDOUT, "ETIMEDOUT" }, { ENOTCONN, "ENOTCONN" },
		{ ECONNREFUSED, "ECONNREFUSED" },
		{ EMSGSIZE, "EMSGSIZE" }, { E2BIG, "E2BIG" }, { ENOTSUP, "ENOTSUP" },
	};
	static char other[8][16];
	static unsigned int next;

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (t[i].err == err)
			return t[i].name;
	char *b = other[next++ % ARRAY_SIZE(other)];
	snprintf(b, sizeof other[0], "E%d", err);
	return b;
}

const char *rcname(long rc)
{
	if (rc < 0)
		return errname((int)-rc);
	return cname("%ld", rc);
}

static void line(const char *verdict, const char *name, const char *want, const char *got)
{
	printf("%s %s (expected %s, got %s)\n", verdict, name, want, got);
	fflush(stdout);
}

void check(const char *name, int ok, const char *want, const char *got_fmt, ...)
{
	char got[256];
	va_list ap;

	va_start(ap, got_fmt);
	vsnprintf(got, sizeof got, got_fmt, ap);
	va_end(ap);
	if (ok)
		rep->passed++;
	else
		rep->failed++;
	line(ok ? "PASS" : "FAIL", name, want, got);
}

void check_rc(const char *name, long want, long got)
{
	check(name, want == got, rcname(want), "%s", rcname(got));
}

void check_rc_in(const char *name, const long *allowed, size_t n, long got)
{
	char want[160] = "";
	int ok = 0;

	for (size_t i = 0; i < n; i++) {
		if (allowed[i] == got)
			ok = 1;
		snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", i ? " or " : "",
			 rcname(allowed[i]));
	}
	check(name, ok, want, "%s", rcname(got));
}

void check_int(const char *name, long long want, long long got)
{
	check(name, want == got, cname("%lld", want), "%lld", got);
}

void check_hex(const char *name, unsigned long long want, unsigned long long got)
{
	check(name, want == got, cname("0x%llx", want), "0x%llx", got);
}

void skip(const char *name, const char *why_fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, why_fmt);
	vsnprintf(why, sizeof why, why_fmt, ap);
	va_end(ap);
	rep->skipped++;
	printf("SKIP %s (%s)\n", name, why);
	fflush(stdout);
}

void note(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

int report_failed(void)
{
	return rep->failed;
}

int report_summary(void)
{
	if (rep->skipped)
		printf("%d passed, %d failed, %d skipped\n", rep->passed, rep->failed,
		       rep->skipped);
	else
		printf("%d passed, %d failed\n", rep->passed, rep->failed);
	fflush(stdout);
	return rep->failed ? 1 : 0;
}

/* Called by the watchdog parent when the checking process hangs in the device or died. */
void report_abort(const char *got)
{
	printf("FAIL %s (expected completion, got %s)\n", rep->stage, got);
	rep->failed++;
	report_summary();
}
