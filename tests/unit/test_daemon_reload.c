/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SIGHUP (src/daemon/reload.c): a real SIGHUP on the event loop re-reads the config file.
 * The log level changes at once and is logged; other changes are logged as needing a restart
 * and leave the running settings alone; a config with an error changes nothing; -v/-q on the
 * command line still win over the file's log-level. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "check.h"
#include "daemon/log.h"
#include "daemon/options.h"
#include "daemon/reload.h"

static char conf[256];
static char *logtext;
static size_t loglen;
static FILE *logf_;

static void write_conf(const char *text)
{
	FILE *f = fopen(conf, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		printf("FAIL: cannot write %s\n", conf);
		exit(1);
	}
}

/* the log lines written since the last call */
static const char *log_since(void)
{
	static size_t seen;
	const char *s;

	fflush(logf_);
	s = logtext + seen;
	seen = loglen;
	return s;
}

/* SIGHUP to ourselves, then one turn of the loop runs the handler */
static void hup(struct event_base *base)
{
	raise(SIGHUP);
	event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
}

int main(void)
{
	struct event_base *base = event_base_new();
	struct ffdvbd_options running;
	struct ffdvbd_reload *r;
	const char *l;

	snprintf(conf, sizeof(conf), "%s/ffdvb-reload-%d.conf", getenv("TMPDIR") ? getenv("TMPDIR")
		 : "/tmp", (int)getpid());
	logf_ = open_memstream(&logtext, &loglen);
	ffdvbd_log_set_output(logf_);
	write_conf("[daemon]\nlog-level = normal\n\n[adapter0]\noutput = none\nosd-memsize = 92000\n");

	char *argv[] = { "ffdvbd", "--config", conf, NULL };

	CHECK_LABELLED("start: the config parses", ffdvbd_parse_options_with(3, argv, NULL,
									  &running) == 0);
	ffdvbd_log_set_level(running.verbose, running.quiet);
	r = ffdvbd_reload_new(base, 3, argv, NULL, &running);
	CHECK_LABELLED("SIGHUP watched", r != NULL);
	if (!r)
		return finish("test_daemon_reload");
	CHECK_LABELLED("start: info messages are off", !ffdvbd_log_enabled(FFDVBD_LOG_INFO));

	/* nothing changed */
	hup(base);
	l = log_since();
	CHECK_LABELLED("unchanged file: 'nothing changed' logged", strstr(l, "nothing changed"));

	/* the log level: applied and logged */
	write_conf("[daemon]\nlog-level = verbose\n\n[adapter0]\noutput = none\nosd-memsize = 92000\n");
	hup(base);
	l = log_since();
	printf("%s", l);
	CHECK_LABELLED("log-level verbose applied", ffdvbd_log_enabled(FFDVBD_LOG_INFO) &&
						    !ffdvbd_log_enabled(FFDVBD_LOG_DEBUG));
	CHECK_LABELLED("running settings say verbose", running.verbose == 1 && !running.quiet);
	CHECK_LABELLED("logged: 'reloaded FILE: log-level verbose (was normal)'",
		       strstr(l, "reloaded ") && strstr(l, conf) &&
		       strstr(l, ": log-level verbose (was normal)"));
	CHECK_LABELLED("no restart asked for", !strstr(l, "needs a restart"));

	/* what needs a restart: logged, not applied */
	write_conf("[daemon]\nlog-level = verbose\n\n[adapter0]\noutput = none\nosd-memsize = 1000"
		   "000\ntuner = none\n\n[adapter1]\noutput = none\n");
	hup(base);
	l = log_since();
	printf("%s", l);
	CHECK_LABELLED("osd-memsize: needs a restart",
		       strstr(l, "adapter 0: osd-memsize changed: needs a restart"));
	CHECK_LABELLED("new adapter 1: needs a restart",
		       strstr(l, ": [adapter1] is new: needs a restart"));
	CHECK_LABELLED("tuner none = the default: no message", !strstr(l, "tuner changed"));
	CHECK_LABELLED("running settings unchanged", running.n_adapters == 1 &&
						     running.adapters[0].osd_memsize == 92000);

	/* an error in the file: nothing changes */
	write_conf("[daemon]\nlog-level = quiet\nbogus = 1\n");
	hup(base);
	l = log_since();
	CHECK_LABELLED("bad config: logged as unchanged",
		       strstr(l, "the config has an error (above): running settings unchanged"));
	CHECK_LABELLED("bad config: still verbose", ffdvbd_log_enabled(FFDVBD_LOG_INFO) &&
						    running.verbose == 1);

	/* the command line's -q wins over the file's log-level */
	ffdvbd_reload_free(r);
	write_conf("[daemon]\nlog-level = normal\n\n[adapter0]\noutput = none\nosd-memsize = 92000\n");
	char *argv_q[] = { "ffdvbd", "-q", "--config", conf, NULL };

	CHECK_LABELLED("-q: parses", ffdvbd_parse_options_with(4, argv_q, NULL, &running) == 0);
	ffdvbd_log_set_level(running.verbose, running.quiet);
	r = ffdvbd_reload_new(base, 4, argv_q, NULL, &running);
	write_conf("[daemon]\nlog-level = debug\n\n[adapter0]\noutput = none\nosd-memsize = 92000\n");
	hup(base);
	l = log_since();
	CHECK_LABELLED("-q wins over log-level = debug", running.quiet && !running.verbose &&
							 !ffdvbd_log_enabled(FFDVBD_LOG_NOTICE));
	CHECK_LABELLED("-q: no level change logged", !strstr(l, "log-level"));

	ffdvbd_reload_free(r);
	event_base_free(base);
	unlink(conf);
	ffdvbd_log_set_output(NULL);
	fclose(logf_);
	free(logtext);
	return finish("test_daemon_reload");
}
