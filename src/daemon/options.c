/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvbd command line (getopt_long) over the config file over the defaults (options.h). */
#include "log.h"
#include "options.h"

#include "ffdvb/card.h"
#include "ffdvb/output.h"
#include "ffdvb/tuner.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "config.h"
#include "settings.h"

void ffdvbd_usage(FILE *out)
{
	fprintf(out,
		"usage: ffdvbd [options]\n"
		"Emulates av7110 full-featured DVB cards as /dev/dvb/adapterN/{video0,audio0,osd0,\n"
		"demux0,frontend0,dvr0} through CUSE: adapter 0, or one per [adapterN] section of\n"
		"the config file. Per-adapter options apply to every adapter served. SIGHUP\n"
		"re-reads the config file (the log level; other changes need a restart).\n\n"
		"      --config FILE        config file (default %s, if it exists)\n"
		"      --check-config       print the settings the config file and the options give,\n"
		"                           then exit (0, or 2 with the error)\n"
		"  -a, --adapter N          serve adapter N only (default: the config's, else 0)\n"
		"  -u, --user USER          owner of the nodes, name or uid (default root)\n"
		"  -g, --group GROUP        group of the nodes, name or gid (default video, else root)\n"
		"  -m, --mode MODE          octal mode of the nodes (default 0660)\n"
		"      --run-as USER        started as root: drop to USER once the nodes exist\n"
		"  -f, --foreground         do not detach\n"
		"  -v, --verbose            more messages; twice: log every CUSE request\n"
		"  -q, --quiet              only errors\n"
		"  -o, --output KIND        where pictures and sound go: auto (default: a window where a\n"
		"                           display exists, else the console: kmsdrm where GL has a GPU,\n"
		"                           else drm; else none), window, fullscreen, kmsdrm, drm (KMS\n"
		"                           without GL), none (headless)\n"
		"      --size WxH           window or headless picture size (default 720x576)\n"
		"      --refresh HZ         KMS: the display mode's refresh where it has one at that\n"
		"                           size (default 50, for 25/50 pictures a second), or preferred\n"
		"      --deinterlace MODE   interlaced pictures through bwdif at field rate (field, the\n"
		"                           default: 50 pictures a second for 25i) or frame rate (frame)\n"
		"      --no-deinterlace     show interlaced pictures as they are\n"
		"      --no-audio           no sound device (sound is still timed)\n"
		"      --audio-device NAME  the sound device: an ALSA PCM (default: ALSA's default,\n"
		"                           else SDL's), or sdl:NAME for SDL's device NAME\n"
		"      --audio-passthrough FORMATS  from ac3,dts,eac3: sent undecoded (IEC 61937)\n"
		"                           to a digital sound device (S/PDIF, HDMI; default no)\n"
		"      --audio-delay MS     lip-sync trim, -%d..%d: the sound comes MS later than the\n"
		"                           picture (earlier when negative; default 0)\n"
		"      --record DIR         headless: log every picture and sound chunk presented and\n"
		"                           write DIR/pictures.log and DIR/sound.s16 at exit and on\n"
		"                           the control command 'record'\n"
		"      --no-decode          decode nothing; playing rings drain at --drain-rate\n"
		"      --drain-rate BYTES   with --no-decode: bytes per second taken (default %u)\n"
		"      --osd-memsize N      OSD memory reported by OSD_GET_CAPABILITY (default %u)\n"
		"      --tuner SPEC         what frontend0, demux0 and dvr0 forward to: none (default:\n"
		"                           never locks, no data), file:CHANNELS (a channel file whose\n"
		"                           entries name TS files), dvb:A[.F] (the budget adapter\n"
		"                           /dev/dvb/adapterA), remote:HOST:PORT (dvbv5-daemon)\n"
		"  -c, --control PATH       control socket (one adapter only; default\n"
		"                           CONTROL-DIR/adapterN.sock)\n"
		"      --control-dir DIR    folder of the control sockets (default %s)\n"
		"  -h, --help               this text\n"
		"  -V, --version            version\n",
		FFDVBD_DEFAULT_CONFIG, FFDVBD_AUDIO_DELAY_MAX, FFDVBD_AUDIO_DELAY_MAX,
		FFDVB_DEFAULT_DRAIN_RATE, FFDVB_DEFAULT_OSD_MEMSIZE,
		FFDVBD_DEFAULT_CONTROL_DIR);
}

static int bad(const char *opt, const char *value, const char *why)
{
	ffdvbd_log(FFDVBD_LOG_ERROR, "%s '%s': %s", opt, value, why);
	fprintf(stderr, "Try 'ffdvbd --help'.\n");
	return -1;
}

/* An option given on the command line, as the config key it overrides. */
struct cli_setting {
	const char *opt, *key, *value;
};

struct cli {
	struct cli_setting adapter_keys[64], daemon_keys[16];
	int n_adapter_keys, n_daemon_keys;
	int adapter;            /* --adapter N, or -1 */
	int verbose, quiet, foreground, log_given, check_only;
	const char *config;     /* --config FILE, or NULL */
};

/* Checks the value now (for the message naming the option) and keeps it for later. */
static int keep(struct cli *c, int daemon, const char *opt, const char *key, const char *value)
{
	char why[160];
	int r;

	if (daemon) {
		struct ffdvbd_options scratch = { 0 };

		r = ffdvbd_set_daemon_key(&scratch, key, value, why, sizeof(why));
	} else {
		struct ffdvbd_adapter_options scratch;

		ffdvbd_adapter_defaults(&scratch, 0);
		r = ffdvbd_set_adapter_key(&scratch, key, value, why, sizeof(why));
	}
	if (r < 0)
		return bad(opt, value, why);
	if (daemon && c->n_daemon_keys < 16)
		c->daemon_keys[c->n_daemon_keys++] = (struct cli_setting){ opt, key, value };
	else if (!daemon && c->n_adapter_keys < 64)
		c->adapter_keys[c->n_adapter_keys++] = (struct cli_setting){ opt, key, value };
	return 0;
}

/* 0 to go on, 1 for --help/--version, -1 on a usage error */
static int parse_cli(int argc, char **argv, struct cli *c)
{
	enum { OPT_DRAIN = 256, OPT_OSDMEM, OPT_SIZE, OPT_REFRESH, OPT_NODEINT, OPT_DEINT, OPT_PASS, OPT_NOAUDIO, OPT_RECORD,
	       OPT_NODECODE, OPT_CONFIG, OPT_RUNAS, OPT_CONTROLDIR, OPT_CHECK, OPT_TUNER,
	       OPT_AUDIODEV, OPT_AUDIODELAY };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "check-config", no_argument, NULL, OPT_CHECK },
		{ "adapter", required_argument, NULL, 'a' },
		{ "user", required_argument, NULL, 'u' },
		{ "group", required_argument, NULL, 'g' },
		{ "mode", required_argument, NULL, 'm' },
		{ "run-as", required_argument, NULL, OPT_RUNAS },
		{ "foreground", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "drain-rate", required_argument, NULL, OPT_DRAIN },
		{ "osd-memsize", required_argument, NULL, OPT_OSDMEM },
		{ "control", required_argument, NULL, 'c' },
		{ "control-dir", required_argument, NULL, OPT_CONTROLDIR },
		{ "output", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "refresh", required_argument, NULL, OPT_REFRESH },
		{ "no-deinterlace", no_argument, NULL, OPT_NODEINT },
		{ "deinterlace", required_argument, NULL, OPT_DEINT },
		{ "no-audio", no_argument, NULL, OPT_NOAUDIO },
		{ "audio-device", required_argument, NULL, OPT_AUDIODEV },
		{ "audio-passthrough", required_argument, NULL, OPT_PASS },
		{ "audio-delay", required_argument, NULL, OPT_AUDIODELAY },
		{ "record", required_argument, NULL, OPT_RECORD },
		{ "no-decode", no_argument, NULL, OPT_NODECODE },
		{ "tuner", required_argument, NULL, OPT_TUNER },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int ch, r = 0;

	c->adapter = -1;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "a:u:g:m:fvqc:o:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a': {
			char *end;

			errno = 0;
			long n = strtol(optarg, &end, 10);

			if (!*optarg || *optarg == '-' || *optarg == '+' || *end || errno ||
			    n > FFDVBD_MAX_ADAPTER)
				return bad("--adapter", optarg, "expected 0..255");
			c->adapter = (int)n;
			break;
		}
		case OPT_CONFIG:
			if (!*optarg)
				return bad("--config", optarg, "expected a file");
			c->config = optarg;
			break;
		case 'u': r = keep(c, 0, "--user", "owner", optarg); break;
		case 'g': r = keep(c, 0, "--group", "group", optarg); break;
		case 'm': r = keep(c, 0, "--mode", "mode", optarg); break;
		case 'o': r = keep(c, 0, "--output", "output", optarg); break;
		case 'c': r = keep(c, 0, "--control", "control", optarg); break;
		case OPT_SIZE: r = keep(c, 0, "--size", "size", optarg); break;
		case OPT_REFRESH: r = keep(c, 0, "--refresh", "refresh", optarg); break;
		case OPT_RECORD: r = keep(c, 0, "--record", "record", optarg); break;
		case OPT_DRAIN: r = keep(c, 0, "--drain-rate", "drain-rate", optarg); break;
		case OPT_OSDMEM: r = keep(c, 0, "--osd-memsize", "osd-memsize", optarg); break;
		case OPT_NODEINT: r = keep(c, 0, "--no-deinterlace", "deinterlace", "no"); break;
		case OPT_DEINT: r = keep(c, 0, "--deinterlace", "deinterlace", optarg); break;
		case OPT_NOAUDIO: r = keep(c, 0, "--no-audio", "audio", "no"); break;
		case OPT_AUDIODEV: r = keep(c, 0, "--audio-device", "audio-device", optarg); break;
		case OPT_PASS: r = keep(c, 0, "--audio-passthrough", "audio-passthrough", optarg); break;
		case OPT_AUDIODELAY: r = keep(c, 0, "--audio-delay", "audio-delay", optarg); break;
		case OPT_NODECODE: r = keep(c, 0, "--no-decode", "decode", "no"); break;
		case OPT_TUNER: r = keep(c, 0, "--tuner", "tuner", optarg); break;
		case OPT_RUNAS: r = keep(c, 1, "--run-as", "user", optarg); break;
		case OPT_CONTROLDIR: r = keep(c, 1, "--control-dir", "control-dir", optarg); break;
		case OPT_CHECK:
			c->check_only = 1;
			break;
		case 'f':
			c->foreground = 1;
			break;
		case 'v':
			c->verbose++;
			c->log_given = 1;
			break;
		case 'q':
			c->quiet = 1;
			c->log_given = 1;
			break;
		case 'h':
			ffdvbd_usage(stdout);
			return 1;
		case 'V':
			printf("ffdvbd %s\n", FFDVB_VERSION);
			return 1;
		default:
			fprintf(stderr, "Try 'ffdvbd --help'.\n");
			return -1;
		}
		if (r < 0)
			return r;
	}
	if (optind < argc)
		return bad("argument", argv[optind], "unexpected");
	return 0;
}

/* The adapters served: --adapter N alone (its [adapterN] section if there is one), else the
 * config's sections, else adapter 0. */
static void select_adapters(struct ffdvbd_options *o, int only)
{
	if (only >= 0) {
		for (int i = 0; i < o->n_adapters; i++) {
			if (o->adapters[i].adapter == only) {
				o->adapters[0] = o->adapters[i];
				o->n_adapters = 1;
				return;
			}
		}
		ffdvbd_adapter_defaults(&o->adapters[0], only);
		o->n_adapters = 1;
	} else if (o->n_adapters == 0) {
		ffdvbd_adapter_defaults(&o->adapters[0], 0);
		o->n_adapters = 1;
	}
}

/* A spec the backend cannot understand is a config error (exit 2, before anything exists);
 * "none" always is one. Tried on a scratch loop, freed at once. */
static int check_tuner(const struct ffdvbd_adapter_options *a)
{
	struct event_base *base;
	struct ffdvb_tuner *t;
	char err[256] = "";

	if (!strcmp(a->tuner, "none"))
		return 0;
	base = event_base_new();
	if (!base) {
		ffdvbd_log(FFDVBD_LOG_ERROR, "adapter %d: cannot create an event loop", a->adapter);
		return -1;
	}
	t = ffdvb_tuner_new(base, a->tuner, err, sizeof(err));
	ffdvb_tuner_free(t);
	event_base_free(base);
	if (t)
		return 0;
	/* the tuner's reason names the spec itself ("file:/x.conf: no such file") */
	if (!strncmp(err, a->tuner, strlen(a->tuner)))
		ffdvbd_log(FFDVBD_LOG_ERROR, "adapter %d: tuner %s", a->adapter, err);
	else
		ffdvbd_log(FFDVBD_LOG_ERROR, "adapter %d: tuner %s: %s", a->adapter, a->tuner,
			err[0] ? err : "refused");
	return -1;
}

int ffdvbd_parse_options_with(int argc, char **argv, const char *default_config,
			      struct ffdvbd_options *o)
{
	struct cli c = { 0 };
	char err[512], why[160];
	int r = parse_cli(argc, argv, &c);

	memset(o, 0, sizeof(*o));
	snprintf(o->control_dir, sizeof(o->control_dir), "%s", FFDVBD_DEFAULT_CONTROL_DIR);
	if (r != 0)
		return r;

	/* the config file: an explicit one must exist, the default one may be missing */
	const char *path = c.config ? c.config : default_config;

	if (path) {
		r = ffdvbd_config_load(path, o, err, sizeof(err));
		if (r == -ENOENT && !c.config) {
			o->n_adapters = 0;
		} else if (r < 0) {
			ffdvbd_log(FFDVBD_LOG_ERROR, "%s", err);
			return -1;
		} else {
			snprintf(o->config, sizeof(o->config), "%s", path);
		}
	}

	/* the command line wins */
	for (int i = 0; i < c.n_daemon_keys; i++)
		ffdvbd_set_daemon_key(o, c.daemon_keys[i].key, c.daemon_keys[i].value, why,
				      sizeof(why));
	if (c.log_given) {
		o->verbose = c.verbose;
		o->quiet = c.quiet;
	}
	o->foreground |= c.foreground;
	o->check_only = c.check_only;
	select_adapters(o, c.adapter);
	for (int a = 0; a < o->n_adapters; a++)
		for (int i = 0; i < c.n_adapter_keys; i++)
			ffdvbd_set_adapter_key(&o->adapters[a], c.adapter_keys[i].key,
					       c.adapter_keys[i].value, why, sizeof(why));

	/* one socket path cannot serve two adapters */
	for (int i = 0; i < c.n_adapter_keys; i++)
		if (o->n_adapters > 1 && !strcmp(c.adapter_keys[i].key, "control"))
			return bad("--control", c.adapter_keys[i].value,
				   "one path for several adapters (use --adapter N or --control-dir)");
	for (int a = 0; a < o->n_adapters; a++) {
		if (ffdvbd_adapter_finish(&o->adapters[a], o->control_dir, why, sizeof(why)) < 0) {
			ffdvbd_log(FFDVBD_LOG_ERROR, "adapter %d: %s", o->adapters[a].adapter, why);
			return -1;
		}
		for (int b = 0; b < a; b++) {
			if (!strcmp(o->adapters[a].control, o->adapters[b].control)) {
				ffdvbd_log(FFDVBD_LOG_ERROR, "adapters %d and %d: the same control socket "
					"%s", o->adapters[b].adapter, o->adapters[a].adapter,
					o->adapters[a].control);
				return -1;
			}
		}
		if (check_tuner(&o->adapters[a]) < 0)
			return -1;
	}
	return 0;
}

int ffdvbd_parse_options(int argc, char **argv, struct ffdvbd_options *o)
{
	return ffdvbd_parse_options_with(argc, argv, FFDVBD_DEFAULT_CONFIG, o);
}

void ffdvbd_print_settings(FILE *out, const struct ffdvbd_options *o)
{
	fprintf(out, "config %s; user %s; log-level %s; control-dir %s\n",
		o->config[0] ? o->config : "(none)", o->run_as[0] ? o->run_as : "(stay)",
		o->quiet ? "quiet" : o->verbose >= 2 ? "debug" : o->verbose ? "verbose" : "normal",
		o->control_dir);
	for (int i = 0; i < o->n_adapters; i++) {
		const struct ffdvbd_adapter_options *a = &o->adapters[i];

		fprintf(out, "adapter%d: nodes %u:%u %04o; output %s", a->adapter, (unsigned)a->uid,
			(unsigned)a->gid, (unsigned)a->mode,
			a->no_decode ? "(no decode)" : ffdvb_output_kind_name(a->output));
		if (a->width)
			fprintf(out, " %dx%d", a->width, a->height);
		if (a->refresh)
			fprintf(out, " %d Hz", a->refresh);
		fprintf(out, "; deinterlace %s; audio %s; osd-memsize %u; control %s",
			ffdvbd_deinterlace_name(a->deinterlace), a->audio ? "yes" : "no",
			a->osd_memsize ? a->osd_memsize : FFDVB_DEFAULT_OSD_MEMSIZE, a->control);
		if (a->audio_device[0])
			fprintf(out, "; audio-device %s", a->audio_device);
		if (a->passthrough)
			fprintf(out, "; audio-passthrough %s", ffdvbd_passthrough_name(a->passthrough));
		if (a->audio_delay_ms)
			fprintf(out, "; audio-delay %d ms", a->audio_delay_ms);
		fprintf(out, "; tuner %s", a->tuner);
		if (a->record[0])
			fprintf(out, "; record %s", a->record);
		fputc('\n', out);
	}
}
