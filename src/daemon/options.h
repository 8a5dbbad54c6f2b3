/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvbd's settings: the command line (ffdvbd(8)) over the config file (ffdvbd.conf(5)) over
 * the defaults. Parsing only: no side effects but reading the config file. */
#ifndef FFDVBD_OPTIONS_H
#define FFDVBD_OPTIONS_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "ffdvb/decoder.h"

#define FFDVBD_MAX_ADAPTERS 16 /* emulated adapters one daemon serves */
#define FFDVBD_MAX_ADAPTER 255 /* highest N of /dev/dvb/adapterN */
#define FFDVBD_AUDIO_DELAY_MAX 1000 /* ms of lip-sync trim either way */
#ifndef FFDVBD_DEFAULT_CONFIG
#define FFDVBD_DEFAULT_CONFIG "/etc/ffdvb/ffdvbd.conf"
#endif
#define FFDVBD_DEFAULT_CONTROL_DIR "/run/ffdvb"

/* One emulated adapter: an [adapterN] section, or the command line's --adapter */
struct ffdvbd_adapter_options {
	int adapter;            /* N of /dev/dvb/adapterN */
	uid_t uid;              /* owner, group and mode of the nodes */
	gid_t gid;
	mode_t mode;
	int have_gid;           /* group set (else video, or root without it) */
	uint32_t drain_rate;    /* 0: card default */
	uint32_t osd_memsize;   /* 0: card default */
	char control[108];      /* control socket path (sun_path size); "" until resolved */
	int no_decode;          /* rings drain at drain_rate, nothing is decoded */
	int output;             /* enum ffdvb_output_kind */
	int width, height;      /* window / headless picture size (0 = default) */
	int refresh;            /* KMS mode refresh wished, Hz (50 unless refresh=/--refresh) */
	enum ffdvb_deinterlace deinterlace; /* field rate unless --deinterlace/--no-deinterlace */
	int audio;              /* 1 unless --no-audio */
	char audio_device[128]; /* --audio-device: ALSA PCM or sdl:NAME, "" = default */
	unsigned int passthrough; /* --audio-passthrough: FFDVB_PASS_* sent undecoded */
	int audio_delay_ms;     /* --audio-delay: lip-sync trim, sound later when > 0 */
	char record[256];       /* headless presentation log + sound written there */
	char tuner[256];        /* what stands behind frontend0/demux0/dvr0 (ffdvb/tuner.h):
				   "none", "file:CHANNELS", "dvb:A[.F]", "remote:HOST:PORT" */
};

struct ffdvbd_options {
	int foreground;         /* stay attached to the terminal */
	int verbose;            /* -v: more messages; -vv: libfuse logs every request */
	int quiet;              /* -q: only errors (and the ready line, which is the contract) */
	int check_only;         /* --check-config: print the settings, serve nothing */
	char config[4096];      /* the config file read, "" = none */
	char run_as[64];        /* user to drop to after the nodes exist, "" = stay */
	uid_t run_uid;          /* its uid and primary gid (resolved when run_as is set) */
	gid_t run_gid;
	char control_dir[80];   /* where adapterN.sock goes unless an adapter names its own */
	int n_adapters;
	struct ffdvbd_adapter_options adapters[FFDVBD_MAX_ADAPTERS]; /* ascending adapter N */
};

/* Parses argv and the config file into *o. Returns 0 to run, 1 when --help or --version was
 * printed (exit 0), -1 after printing a usage or config error to stderr (exit 2). A tuner spec
 * other than "none" is tried once (ffdvb_tuner_new on a scratch event base, then freed), so
 * that a spec the backend cannot understand is a config error too; hardware that is missing
 * is not (the backend waits for it). */
int ffdvbd_parse_options(int argc, char **argv, struct ffdvbd_options *o);

/* The same with another default config file (tests; NULL = none). */
int ffdvbd_parse_options_with(int argc, char **argv, const char *default_config,
			      struct ffdvbd_options *o);

void ffdvbd_usage(FILE *out);

/* --check-config: the settings in effect, one line per adapter. */
void ffdvbd_print_settings(FILE *out, const struct ffdvbd_options *o);

#endif
