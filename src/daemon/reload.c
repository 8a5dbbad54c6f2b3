/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SIGHUP: the config file read again (reload.h). */
#include "reload.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <libavutil/log.h>

#include "log.h"
#include "notify.h"

struct ffdvbd_reload {
	struct event *ev;
	int argc;
	char **argv;
	const char *default_config;
	struct ffdvbd_options *running;
};

static const char *level_name(const struct ffdvbd_options *o)
{
	return o->quiet ? "quiet" : o->verbose >= 2 ? "debug" : o->verbose ? "verbose" : "normal";
}

/* as main() sets them at start: our levels and libavcodec's */
static void apply_log_level(const struct ffdvbd_options *o)
{
	ffdvbd_log_set_level(o->verbose, o->quiet);
	av_log_set_level(o->verbose >= 2 ? AV_LOG_WARNING : o->verbose ? AV_LOG_ERROR : AV_LOG_FATAL);
}

static const char *file_of(const struct ffdvbd_options *o)
{
	return o->config[0] ? o->config : "the command line";
}

static int restart(const struct ffdvbd_options *next, int adapter, const char *what)
{
	if (adapter >= 0)
		ffdvbd_log(FFDVBD_LOG_WARNING, "%s: adapter %d: %s changed: needs a restart",
			   file_of(next), adapter, what);
	else
		ffdvbd_log(FFDVBD_LOG_WARNING, "%s: %s changed: needs a restart", file_of(next),
			   what);
	return 1;
}

static const struct ffdvbd_adapter_options *find(const struct ffdvbd_options *o, int adapter)
{
	for (int i = 0; i < o->n_adapters; i++)
		if (o->adapters[i].adapter == adapter)
			return &o->adapters[i];
	return NULL;
}

/* the keys of ffdvbd.conf(5) an adapter was made with */
static int adapter_diff(const struct ffdvbd_options *next, const struct ffdvbd_adapter_options *a,
			const struct ffdvbd_adapter_options *b)
{
	int n = 0, N = a->adapter;

	if (a->uid != b->uid)
		n += restart(next, N, "owner");
	if (a->gid != b->gid)
		n += restart(next, N, "group");
	if (a->mode != b->mode)
		n += restart(next, N, "mode");
	if (a->output != b->output)
		n += restart(next, N, "output");
	if (a->width != b->width || a->height != b->height)
		n += restart(next, N, "size");
	if (a->refresh != b->refresh)
		n += restart(next, N, "refresh");
	if (a->deinterlace != b->deinterlace)
		n += restart(next, N, "deinterlace");
	if (a->audio != b->audio)
		n += restart(next, N, "audio");
	if (strcmp(a->audio_device, b->audio_device))
		n += restart(next, N, "audio-device");
	if (a->passthrough != b->passthrough)
		n += restart(next, N, "audio-passthrough");
	if (a->audio_delay_ms != b->audio_delay_ms)
		n += restart(next, N, "audio-delay");
	if (a->no_decode != b->no_decode)
		n += restart(next, N, "decode");
	if (strcmp(a->record, b->record))
		n += restart(next, N, "record");
	if (a->drain_rate != b->drain_rate)
		n += restart(next, N, "drain-rate");
	if (a->osd_memsize != b->osd_memsize)
		n += restart(next, N, "osd-memsize");
	if (strcmp(a->control, b->control))
		n += restart(next, N, "control");
	if (strcmp(a->tuner, b->tuner))
		n += restart(next, N, "tuner");
	return n;
}

int ffdvbd_reload_apply(struct ffdvbd_options *running, const struct ffdvbd_options *next)
{
	int n = 0, changed = 0;

	if (running->verbose != next->verbose || running->quiet != next->quiet) {
		/* said before a change to quiet silences it, after one to verbose */
		char was[16];

		snprintf(was, sizeof(was), "%s", level_name(running));
		running->verbose = next->verbose;
		running->quiet = next->quiet;
		apply_log_level(running);
		ffdvbd_log(FFDVBD_LOG_ALWAYS, "reloaded %s: log-level %s (was %s)", file_of(next),
			   level_name(running), was);
		changed = 1;
	}
	if (strcmp(running->run_as, next->run_as))
		n += restart(next, -1, "[daemon] user");
	if (strcmp(running->control_dir, next->control_dir))
		n += restart(next, -1, "[daemon] control-dir");
	for (int i = 0; i < running->n_adapters; i++) {
		const struct ffdvbd_adapter_options *a = &running->adapters[i];
		const struct ffdvbd_adapter_options *b = find(next, a->adapter);

		if (!b) {
			ffdvbd_log(FFDVBD_LOG_WARNING, "%s: [adapter%d] is gone: needs a restart",
				   file_of(next), a->adapter);
			n++;
		} else
			n += adapter_diff(next, a, b);
	}
	for (int i = 0; i < next->n_adapters; i++) {
		if (!find(running, next->adapters[i].adapter)) {
			ffdvbd_log(FFDVBD_LOG_WARNING, "%s: [adapter%d] is new: needs a restart",
				   file_of(next), next->adapters[i].adapter);
			n++;
		}
	}
	if (!n && !changed)
		ffdvbd_log(FFDVBD_LOG_NOTICE, "reloaded %s: nothing changed", file_of(next));
	return n;
}

int ffdvbd_reload_now(struct ffdvbd_reload *r)
{
	struct ffdvbd_options *next = malloc(sizeof(*next));
	int rc = 0;

	if (!next) {
		ffdvbd_log(FFDVBD_LOG_ERROR, "SIGHUP: out of memory, settings unchanged");
		return -1;
	}
	ffdvbd_notify("RELOADING=1");
	/* errors are printed on stderr as at start: the journal under systemd */
	if (ffdvbd_parse_options_with(r->argc, r->argv, r->default_config, next) != 0) {
		ffdvbd_log(FFDVBD_LOG_WARNING, "SIGHUP: the config has an error (above): running "
			   "settings unchanged");
		rc = -1;
	} else {
		ffdvbd_reload_apply(r->running, next);
	}
	ffdvbd_notify("READY=1");
	free(next);
	return rc;
}

static void on_hup(evutil_socket_t sig, short what, void *arg)
{
	(void)sig, (void)what;
	ffdvbd_reload_now(arg);
}

struct ffdvbd_reload *ffdvbd_reload_new(struct event_base *base, int argc, char **argv,
					const char *default_config,
					struct ffdvbd_options *running)
{
	struct ffdvbd_reload *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	*r = (struct ffdvbd_reload){ .argc = argc, .argv = argv,
				     .default_config = default_config, .running = running };
	r->ev = evsignal_new(base, SIGHUP, on_hup, r);
	if (!r->ev || evsignal_add(r->ev, NULL) != 0) {
		ffdvbd_reload_free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

void ffdvbd_reload_free(struct ffdvbd_reload *r)
{
	if (!r)
		return;
	if (r->ev)
		event_free(r->ev);
	free(r);
}
