/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Levels and repeat counting of ffdvbd's messages (log.h). */
#include "log.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <libavutil/log.h>

#include "ffdvb/clock.h"
#include "ffdvb/log.h"

#define MAX_TEXT 512

struct slot {
	char text[MAX_TEXT];
	long long window_start; /* ms; the window in which repeats are only counted */
	long long last_used;    /* ms; the least recently used slot is recycled */
	unsigned long repeats;  /* occurrences counted, not printed, in this window */
	int level;              /* of its first occurrence: its repeats keep the priority */
	int used;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot slots[FFDVBD_LOG_SLOTS];
static int max_level = FFDVBD_LOG_NOTICE;
static FILE *output;
static char av_line[MAX_TEXT]; /* libavcodec's pieces of a line until its newline */
static int av_prefix = 1;
static int priority_prefix;

/* syslog priorities of the levels */
static const int priority_of[] = {
	[FFDVBD_LOG_ERROR] = FFDVB_LOG_ERR,       [FFDVBD_LOG_WARNING] = FFDVB_LOG_WARNING,
	[FFDVBD_LOG_ALWAYS] = FFDVB_LOG_NOTICE,   [FFDVBD_LOG_NOTICE] = FFDVB_LOG_NOTICE,
	[FFDVBD_LOG_INFO] = FFDVB_LOG_INFO,       [FFDVBD_LOG_DEBUG] = FFDVB_LOG_DEBUG,
};

/* JOURNAL_STREAM is "DEV:INODE" of the journal's socket: stderr is that very stream */
static int stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && fstat(2, &st) == 0 &&
	       (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void ffdvbd_log_set_priority_prefix(int on)
{
	priority_prefix = on < 0 ? stderr_is_journal() : on;
}

static long long monotonic_ms(void)
{
	return (long long)(ffdvb_monotonic_ns() / 1000000);
}

static long long (*now_ms)(void) = monotonic_ms;

void ffdvbd_log_set_level(int verbose, int quiet)
{
	max_level = quiet ? FFDVBD_LOG_ALWAYS : verbose >= 2 ? FFDVBD_LOG_DEBUG
					       : verbose    ? FFDVBD_LOG_INFO
							    : FFDVBD_LOG_NOTICE;
}

int ffdvbd_log_enabled(enum ffdvbd_log_level level)
{
	return (int)level <= max_level;
}

void ffdvbd_log_set_output(FILE *out)
{
	output = out;
}

void ffdvbd_log_set_clock(long long (*fn)(void))
{
	now_ms = fn ? fn : monotonic_ms;
}

/* under lock */
static void emit(int level, const char *text, unsigned long repeats)
{
	FILE *out = output ? output : stderr;

	if (priority_prefix)
		fprintf(out, "<%d>", priority_of[level]);
	if (repeats)
		fprintf(out, "ffdvbd: %s (repeated %lu time%s)\n", text, repeats,
			repeats == 1 ? "" : "s");
	else
		fprintf(out, "ffdvbd: %s\n", text);
	fflush(out);
}

/* under lock: print the text now, or count it */
static void submit(int level, const char *text)
{
	long long now = now_ms();
	struct slot *s = NULL, *oldest = &slots[0];

	for (int i = 0; i < FFDVBD_LOG_SLOTS; i++) {
		if (slots[i].used && !strcmp(slots[i].text, text)) {
			s = &slots[i];
			break;
		}
		if (!slots[i].used || (oldest->used && slots[i].last_used < oldest->last_used))
			oldest = &slots[i];
	}
	if (s && now - s->window_start < FFDVBD_LOG_WINDOW_MS) {
		s->repeats++;
		s->last_used = now;
		return;
	}
	if (s) {
		/* the window passed: this occurrence carries the count (itself included) */
		emit(s->level, text, s->repeats ? s->repeats + 1 : 0);
	} else {
		s = oldest;
		if (s->used && s->repeats)
			emit(s->level, s->text, s->repeats);
		snprintf(s->text, sizeof(s->text), "%s", text);
		s->used = 1;
		s->level = level;
		emit(level, text, 0);
	}
	s->repeats = 0;
	s->window_start = now;
	s->last_used = now;
}

void ffdvbd_vlog(enum ffdvbd_log_level level, const char *fmt, va_list ap)
{
	char text[MAX_TEXT];

	if (!ffdvbd_log_enabled(level))
		return;
	vsnprintf(text, sizeof(text), fmt, ap);
	pthread_mutex_lock(&lock);
	submit((int)level, text);
	pthread_mutex_unlock(&lock);
}

void ffdvbd_log(enum ffdvbd_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ffdvbd_vlog(level, fmt, ap);
	va_end(ap);
}

static void flush(int all)
{
	long long now = now_ms();

	pthread_mutex_lock(&lock);
	for (int i = 0; i < FFDVBD_LOG_SLOTS; i++) {
		struct slot *s = &slots[i];

		if (!s->used || (!all && now - s->window_start < FFDVBD_LOG_WINDOW_MS))
			continue;
		if (s->repeats)
			emit(s->level, s->text, s->repeats);
		s->repeats = 0;
		s->window_start = now;
		if (all)
			s->used = 0;
	}
	pthread_mutex_unlock(&lock);
}

void ffdvbd_log_flush_due(void)
{
	flush(0);
}

void ffdvbd_log_flush(void)
{
	flush(1);
}

void ffdvbd_log_av_callback(void *avcl, int level, const char *fmt, va_list ap)
{
	int wanted = level <= AV_LOG_ERROR ? ffdvbd_log_enabled(FFDVBD_LOG_INFO)
		     : level <= AV_LOG_WARNING ? ffdvbd_log_enabled(FFDVBD_LOG_DEBUG)
					       : 0;
	char piece[MAX_TEXT];
	size_t len;

	if (!wanted)
		return;
	pthread_mutex_lock(&lock);
	av_log_format_line2(avcl, level, fmt, ap, piece, sizeof(piece), &av_prefix);
	len = strlen(av_line);
	snprintf(av_line + len, sizeof(av_line) - len, "%s", piece);
	len = strlen(av_line);
	if (len > 0 && (av_line[len - 1] == '\n' || len == sizeof(av_line) - 1)) {
		if (av_line[len - 1] == '\n')
			av_line[len - 1] = '\0';
		submit(level <= AV_LOG_ERROR ? FFDVBD_LOG_INFO : FFDVBD_LOG_DEBUG, av_line);
		av_line[0] = '\0';
	}
	pthread_mutex_unlock(&lock);
}

/* a module's message (ffdvb/log.h) at the level of its priority */
static void module_sink(int priority, const char *text)
{
	enum ffdvbd_log_level level = priority <= FFDVB_LOG_ERR       ? FFDVBD_LOG_ERROR
				      : priority == FFDVB_LOG_WARNING ? FFDVBD_LOG_WARNING
				      : priority == FFDVB_LOG_NOTICE  ? FFDVBD_LOG_NOTICE
				      : priority == FFDVB_LOG_INFO    ? FFDVBD_LOG_INFO
								      : FFDVBD_LOG_DEBUG;

	ffdvbd_log(level, "%s", text);
}

void ffdvbd_log_install_sink(void)
{
	ffdvb_log_set_sink(module_sink);
}
