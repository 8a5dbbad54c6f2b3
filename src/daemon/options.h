/* ffdvbd command line (contract in notes/common.md): parsing only, no side effects. */
#ifndef FFDVBD_OPTIONS_H
#define FFDVBD_OPTIONS_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct ffdvbd_options {
	int adapter;            /* N of /dev/dvb/adapterN */
	uid_t uid;              /* owner, group and mode of the nodes */
	gid_t gid;
	mode_t mode;
	int foreground;         /* stay attached to the terminal */
	int verbose;            /* -v: more messages; -vv: libfuse logs every request */
	int quiet;              /* -q: only errors (and the ready line, which is the contract) */
	uint32_t drain_rate;    /* 0: card default */
	uint32_t osd_memsize;   /* 0: card default */
	char control[108];      /* control socket path (sun_path size) */
	int no_decode;          /* --no-decode: rings drain at drain_rate, nothing is decoded */
	int output;             /* enum ffdvb_output_kind */
	int width, height;      /* --size WxH: window / headless picture size (0 = default) */
	int deinterlace;        /* 1 unless --no-deinterlace */
	int audio;              /* 1 unless --no-audio */
	char record[256];       /* --record DIR: headless presentation log + sound written there */
};

/* Parses argv into *o (defaults first). Returns 0 to run, 1 when --help or --version was
 * printed (exit 0), -1 after printing a usage error to stderr (exit 2). */
int ffdvbd_parse_options(int argc, char **argv, struct ffdvbd_options *o);

void ffdvbd_usage(FILE *out);

#endif
