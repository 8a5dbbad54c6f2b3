/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvbd's messages, its own and every module's (ffdvb/log.h, installed as the modules' sink by
 * ffdvbd_log_install_sink): "ffdvbd: TEXT" lines on stderr, each with its syslog priority as
 * "<N>" in front when stderr is the journal (systemd's JOURNAL_STREAM), filtered by
 * level (-q, -v, -vv / log-level=), with repeated messages rate-limited: the first one is
 * printed, the same text again within FFDVBD_LOG_WINDOW_MS is only counted, and the count
 * comes out as "ffdvbd: TEXT (repeated N times)" when the window has passed (on its next
 * occurrence, or on ffdvbd_log_flush_due from a timer) or at exit (ffdvbd_log_flush). A few
 * distinct texts are tracked at once, so interleaved floods are each counted. Thread-safe:
 * libavcodec's messages come from the decoder threads through ffdvbd_log_av_callback. */
#ifndef FFDVBD_LOG_H
#define FFDVBD_LOG_H

#include <stdarg.h>
#include <stdio.h>

#define FFDVBD_LOG_WINDOW_MS 10000
#define FFDVBD_LOG_SLOTS 8

enum ffdvbd_log_level {
	FFDVBD_LOG_ERROR,   /* something asked for does not work: even with -q (priority err) */
	FFDVBD_LOG_WARNING, /* refusals, limits reached, fallbacks: even with -q (warning) */
	FFDVBD_LOG_ALWAYS,  /* the ready line, reloads: even with -q (notice) */
	FFDVBD_LOG_NOTICE,  /* start/stop, what was chosen: not with -q (notice) */
	FFDVBD_LOG_INFO,    /* -v (info) */
	FFDVBD_LOG_DEBUG,   /* -vv (debug) */
};

/* The level from the settings (quiet wins over verbose, as -q always did for notices). */
void ffdvbd_log_set_level(int verbose, int quiet);
int ffdvbd_log_enabled(enum ffdvbd_log_level level);

/* The journal's priority prefix: on (1), off (0), or -1: on when stderr is the stream
 * JOURNAL_STREAM names (started by systemd with StandardError=journal). */
void ffdvbd_log_set_priority_prefix(int on);
/* Makes this logger the sink of every module's messages (ffdvb/log.h). */
void ffdvbd_log_install_sink(void);

/* Where the lines go (default stderr) and the clock in ms (default CLOCK_MONOTONIC): tests. */
void ffdvbd_log_set_output(FILE *out);
void ffdvbd_log_set_clock(long long (*now_ms)(void));

void ffdvbd_log(enum ffdvbd_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ffdvbd_vlog(enum ffdvbd_log_level level, const char *fmt, va_list ap);

/* Prints the counts of messages whose window has passed (a periodic timer calls it). */
void ffdvbd_log_flush_due(void);
/* Prints every pending count and forgets all texts (at exit). */
void ffdvbd_log_flush(void);

/* For av_log_set_callback(): libavcodec's lines through the same filter, AV_LOG_ERROR and
 * worse at -v, warnings at -vv, nothing else. */
void ffdvbd_log_av_callback(void *avcl, int level, const char *fmt, va_list ap);

#endif
