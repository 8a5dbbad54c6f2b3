/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvbd's messages (src/daemon/log.c): levels, and repeated texts counted instead of
 * printed, with "(repeated N times)" when their window passed, at a flush, or when their slot
 * is recycled. A fake clock drives the windows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "ffdvb/log.h"
#include "daemon/log.h"

static long long fake_now;
static long long fake_clock(void)
{
	return fake_now;
}

static FILE *out;
static char *buf;
static size_t len;

/* what was printed since the last call */
static const char *printed(void)
{
	static char copy[8192];

	fflush(out);
	snprintf(copy, sizeof(copy), "%s", buf ? buf : "");
	fclose(out);
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	ffdvbd_log_set_output(out);
	return copy;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

int main(void)
{
	const char *p;

	out = open_memstream(&buf, &len);
	ffdvbd_log_set_output(out);
	ffdvbd_log_set_clock(fake_clock);

	/* levels */
	ffdvbd_log_set_level(0, 0);
	ffdvbd_log(FFDVBD_LOG_ALWAYS, "error %d", 1);
	ffdvbd_log(FFDVBD_LOG_NOTICE, "notice");
	ffdvbd_log(FFDVBD_LOG_INFO, "info");
	p = printed();
	CHECK_LABELLED("default: errors and notices with the prefix",
		       !strcmp(p, "ffdvbd: error 1\nffdvbd: notice\n"));
	ffdvbd_log_set_level(0, 1);
	ffdvbd_log(FFDVBD_LOG_NOTICE, "notice");
	ffdvbd_log(FFDVBD_LOG_ALWAYS, "ready (adapter 0)");
	CHECK_LABELLED("-q: errors and the ready line only",
		       !strcmp(printed(), "ffdvbd: ready (adapter 0)\n"));
	ffdvbd_log_set_level(1, 0);
	ffdvbd_log(FFDVBD_LOG_INFO, "info");
	ffdvbd_log(FFDVBD_LOG_DEBUG, "debug");
	CHECK_LABELLED("-v: info, no debug", !strcmp(printed(), "ffdvbd: info\n"));
	ffdvbd_log_set_level(2, 0);
	ffdvbd_log(FFDVBD_LOG_DEBUG, "debug");
	CHECK_LABELLED("-vv: debug", !strcmp(printed(), "ffdvbd: debug\n"));
	ffdvbd_log_flush();
	printed();

	/* a flood: printed once, then counted */
	fake_now = 1000;
	for (int i = 0; i < 58; i++)
		ffdvbd_log(FFDVBD_LOG_ALWAYS, "client %d sent garbage", 7);
	p = printed();
	CHECK_LABELLED("58 equal messages: one line", !strcmp(p, "ffdvbd: client 7 sent garbage\n"));
	ffdvbd_log(FFDVBD_LOG_ALWAYS, "other");
	p = printed();
	CHECK_LABELLED("another text still comes out", !strcmp(p, "ffdvbd: other\n"));
	fake_now += FFDVBD_LOG_WINDOW_MS - 1;
	ffdvbd_log_flush_due();
	CHECK_LABELLED("within the window the timer prints nothing", !strcmp(printed(), ""));
	fake_now += 1;
	ffdvbd_log_flush_due();
	p = printed();
	CHECK_LABELLED("window passed: the count (57 not printed)",
		       !strcmp(p, "ffdvbd: client 7 sent garbage (repeated 57 times)\n"));
	ffdvbd_log_flush_due();
	CHECK_LABELLED("a count comes out once", !strcmp(printed(), ""));

	/* the next occurrence after the window carries the count, itself included */
	for (int i = 0; i < 4; i++)
		ffdvbd_log(FFDVBD_LOG_ALWAYS, "client %d sent garbage", 7);
	CHECK_LABELLED("still in a new window: counted", !strcmp(printed(), ""));
	fake_now += FFDVBD_LOG_WINDOW_MS;
	ffdvbd_log(FFDVBD_LOG_ALWAYS, "client %d sent garbage", 7);
	CHECK_LABELLED("next one after the window: 4 + itself",
		       !strcmp(printed(), "ffdvbd: client 7 sent garbage (repeated 5 times)\n"));
	fake_now += FFDVBD_LOG_WINDOW_MS;
	ffdvbd_log(FFDVBD_LOG_ALWAYS, "client %d sent garbage", 7);
	CHECK_LABELLED("a lone one after a quiet window: plain",
		       !strcmp(printed(), "ffdvbd: client 7 sent garbage\n"));

	/* interleaved floods are each counted */
	for (int i = 0; i < 10; i++) {
		ffdvbd_log(FFDVBD_LOG_ALWAYS, "A");
		ffdvbd_log(FFDVBD_LOG_ALWAYS, "B");
	}
	p = printed();
	CHECK_LABELLED("A and B interleaved: one line each",
		       count(p, "ffdvbd: A\n") == 1 && count(p, "ffdvbd: B\n") == 1 &&
			       count(p, "\n") == 2);
	/* more distinct texts than slots: the recycled slot's count is not lost */
	for (int i = 0; i < FFDVBD_LOG_SLOTS; i++) {
		fake_now++;
		ffdvbd_log(FFDVBD_LOG_ALWAYS, "text %d", i);
	}
	p = printed();
	CHECK_LABELLED("recycling the slots prints the pending counts",
		       count(p, "ffdvbd: A (repeated 9 times)\n") == 1 &&
			       count(p, "ffdvbd: B (repeated 9 times)\n") == 1);
	ffdvbd_log(FFDVBD_LOG_ALWAYS, "text %d", 3);
	ffdvbd_log_flush();
	CHECK_LABELLED("flush at exit prints every count",
		       !strcmp(printed(), "ffdvbd: text 3 (repeated 1 time)\n"));
	ffdvbd_log(FFDVBD_LOG_ALWAYS, "text %d", 3);
	CHECK_LABELLED("after a flush the text is new again", !strcmp(printed(), "ffdvbd: text 3\n"));

	/* the journal's priorities: one prefix, <N> in front of each line, repeats keep theirs */
	ffdvbd_log_set_priority_prefix(1);
	ffdvbd_log_set_level(0, 1); /* -q: errors, warnings and the ready line still come out */
	ffdvbd_log(FFDVBD_LOG_ERROR, "cannot open %s", "x");
	ffdvbd_log(FFDVBD_LOG_WARNING, "refused");
	ffdvbd_log(FFDVBD_LOG_ALWAYS, "ready (adapter 0)");
	ffdvbd_log(FFDVBD_LOG_NOTICE, "not with -q");
	CHECK_LABELLED("priorities <3> <4> <5>, notices quiet with -q",
		       !strcmp(printed(), "<3>ffdvbd: cannot open x\n<4>ffdvbd: refused\n"
					  "<5>ffdvbd: ready (adapter 0)\n"));
	ffdvbd_log_set_level(2, 0);
	/* every module's messages come through the same door, at their priority */
	ffdvbd_log_install_sink();
	ffdvb_log(FFDVB_LOG_ERR, "output: SDL window: %s", "no");
	ffdvb_log(FFDVB_LOG_NOTICE, "output: sound on ALSA device %s", "default");
	ffdvb_log(FFDVB_LOG_DEBUG, "cuse: detail");
	CHECK_LABELLED("modules: one prefix, their priorities",
		       !strcmp(printed(), "<3>ffdvbd: output: SDL window: no\n"
					  "<5>ffdvbd: output: sound on ALSA device default\n"
					  "<7>ffdvbd: cuse: detail\n"));
	for (int i = 0; i < 5; i++)
		ffdvb_log(FFDVB_LOG_WARNING, "dvb/adapter0/video0: refused");
	ffdvbd_log_flush();
	CHECK_LABELLED("modules: repeats counted, priority kept",
		       !strcmp(printed(), "<4>ffdvbd: dvb/adapter0/video0: refused\n"
					  "<4>ffdvbd: dvb/adapter0/video0: refused (repeated 4 times)\n"));
	ffdvbd_log_set_level(0, 0);
	ffdvb_log(FFDVB_LOG_INFO, "cuse: only with -v");
	CHECK_LABELLED("modules: info only with -v", !strcmp(printed(), ""));
	ffdvb_log_set_sink(NULL);
	/* systemd names the journal's stream in JOURNAL_STREAM: the prefix only when stderr is it */
	struct stat st;
	char js[64];

	fstat(2, &st);
	snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", js, 1);
	ffdvbd_log_set_priority_prefix(-1);
	ffdvbd_log(FFDVBD_LOG_ERROR, "e");
	CHECK_LABELLED("JOURNAL_STREAM is stderr: prefixed", !strcmp(printed(), "<3>ffdvbd: e\n"));
	setenv("JOURNAL_STREAM", "1:1", 1);
	ffdvbd_log_set_priority_prefix(-1);
	ffdvbd_log(FFDVBD_LOG_ERROR, "f");
	CHECK_LABELLED("another stream: plain", !strcmp(printed(), "ffdvbd: f\n"));
	unsetenv("JOURNAL_STREAM");
	ffdvbd_log_set_priority_prefix(0);

	fclose(out);
	free(buf);
	printf("%d/%d checks passed\n", checks - failures, checks);
	return failures ? 1 : 0;
}
