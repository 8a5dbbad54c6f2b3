/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvbd's settings by name (settings.h). */
#include "settings.h"

#include <errno.h>
#include <stdio.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ffdvb/output.h"

#define DEFAULT_GROUP "video"
#define DEFAULT_MODE 0660

void ffdvbd_adapter_defaults(struct ffdvbd_adapter_options *a, int adapter)
{
	memset(a, 0, sizeof(*a));
	a->adapter = adapter;
	a->mode = DEFAULT_MODE;
	a->output = FFDVB_OUTPUT_AUTO;
	a->deinterlace = FFDVB_DEINTERLACE_FIELD;
	a->audio = 1;
	a->refresh = 50; /* DVB's 25 frames / 50 fields a second */
	snprintf(a->tuner, sizeof(a->tuner), "none");
}

/* unsigned decimal (or 0x/0 prefixed with base 0) number within max */
static int parse_uint(const char *s, unsigned long max, int base, unsigned long *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	unsigned long v = strtoul(s, &end, base);

	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_user(const char *s, uid_t *uid)
{
	unsigned long v;
	struct passwd *pw = getpwnam(s);

	if (pw) {
		*uid = pw->pw_uid;
		return 0;
	}
	if (parse_uint(s, UINT_MAX - 1, 10, &v) == 0) {
		*uid = (uid_t)v;
		return 0;
	}
	return -1;
}

static int parse_group(const char *s, gid_t *gid)
{
	unsigned long v;
	struct group *gr = getgrnam(s);

	if (gr) {
		*gid = gr->gr_gid;
		return 0;
	}
	if (parse_uint(s, UINT_MAX - 1, 10, &v) == 0) {
		*gid = (gid_t)v;
		return 0;
	}
	return -1;
}

int ffdvbd_parse_bool(const char *s)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i]))
			return 1;
		if (!strcasecmp(s, no[i]))
			return 0;
	}
	return -1;
}

#define BAD(...) (snprintf(why, whylen, __VA_ARGS__), -2)

static int set_bool(int *field, const char *value, char *why, size_t whylen)
{
	int b = ffdvbd_parse_bool(value);

	if (b < 0)
		return BAD("expected yes or no");
	*field = b;
	return 0;
}

const char *ffdvbd_deinterlace_name(enum ffdvb_deinterlace d)
{
	return d == FFDVB_DEINTERLACE_FIELD ? "field" : d == FFDVB_DEINTERLACE_FRAME ? "frame" : "no";
}

/* "no", or a comma-separated list of ac3, dts and eac3 */
static int set_passthrough(struct ffdvbd_adapter_options *a, const char *value, char *why,
			   size_t whylen)
{
	unsigned int m = 0;

	if (ffdvbd_parse_bool(value) == 0) {
		a->passthrough = 0;
		return 0;
	}
	for (const char *p = value; *p;) {
		size_t n = strcspn(p, ",");

		if (n == 3 && !strncmp(p, "ac3", 3))
			m |= FFDVB_PASS_AC3;
		else if (n == 3 && !strncmp(p, "dts", 3))
			m |= FFDVB_PASS_DTS;
		else if (n == 4 && !strncmp(p, "eac3", 4))
			m |= FFDVB_PASS_EAC3;
		else
			return BAD("expected no, or formats from ac3,dts,eac3");
		p += n + (p[n] == ',');
	}
	if (!m)
		return BAD("expected no, or formats from ac3,dts,eac3");
	a->passthrough = m;
	return 0;
}

const char *ffdvbd_passthrough_name(unsigned int m)
{
	static const char *const names[8] = { "no", "ac3", "dts", "ac3,dts",
					      "eac3", "ac3,eac3", "dts,eac3", "ac3,dts,eac3" };

	return names[m & 7];
}

/* field (also yes: the default), frame, or no */
static int set_deinterlace(struct ffdvbd_adapter_options *a, const char *value, char *why,
			   size_t whylen)
{
	int b = ffdvbd_parse_bool(value);

	if (!strcmp(value, "field") || b == 1)
		a->deinterlace = FFDVB_DEINTERLACE_FIELD;
	else if (!strcmp(value, "frame"))
		a->deinterlace = FFDVB_DEINTERLACE_FRAME;
	else if (b == 0)
		a->deinterlace = FFDVB_DEINTERLACE_OFF;
	else
		return BAD("expected field, frame or no");
	return 0;
}

static int set_path(char *field, size_t size, const char *value, char *why, size_t whylen)
{
	if (!*value || strlen(value) >= size)
		return BAD("empty or longer than %zu bytes", size - 1);
	snprintf(field, size, "%s", value);
	return 0;
}

static int set_output(struct ffdvbd_adapter_options *a, const char *value, char *why,
		      size_t whylen)
{
	int k = ffdvb_output_kind_parse(value);

	if (k >= 0) {
		a->output = k;
		return 0;
	}
	return BAD("expected auto, window, fullscreen, kmsdrm, drm or none");
}

static int set_size(struct ffdvbd_adapter_options *a, const char *value, char *why,
		    size_t whylen)
{
	int w, h;
	char end;

	if (sscanf(value, "%dx%d%c", &w, &h, &end) != 2 || w < 16 || h < 16 || w > 8192 ||
	    h > 8192)
		return BAD("expected WxH, 16..8192 each");
	a->width = w;
	a->height = h;
	return 0;
}

int ffdvbd_set_adapter_key(struct ffdvbd_adapter_options *a, const char *key, const char *value,
			   char *why, size_t whylen)
{
	unsigned long v;

	if (!strcmp(key, "owner")) {
		if (parse_user(value, &a->uid))
			return BAD("no such user");
	} else if (!strcmp(key, "group")) {
		if (parse_group(value, &a->gid))
			return BAD("no such group");
		a->have_gid = 1;
	} else if (!strcmp(key, "mode")) {
		if (parse_uint(value, 07777, 8, &v))
			return BAD("expected an octal mode like 0660");
		a->mode = (mode_t)v;
	} else if (!strcmp(key, "output")) {
		return set_output(a, value, why, whylen);
	} else if (!strcmp(key, "size")) {
		return set_size(a, value, why, whylen);
	} else if (!strcmp(key, "refresh")) {
		/* 0: the display's preferred mode, whatever its rate */
		if (!strcmp(value, "auto") || !strcmp(value, "preferred"))
			a->refresh = 0;
		else if (parse_uint(value, 240, 10, &v) || (v && v < 24))
			return BAD("expected a refresh in Hz (24..240) or preferred");
		else
			a->refresh = (int)v;
	} else if (!strcmp(key, "deinterlace")) {
		return set_deinterlace(a, value, why, whylen);
	} else if (!strcmp(key, "audio")) {
		return set_bool(&a->audio, value, why, whylen);
	} else if (!strcmp(key, "audio-device")) {
		/* handed to libasound or SDL as it is: a name, not a path */
		if (!*value || strlen(value) >= sizeof(a->audio_device))
			return BAD("empty or longer than %zu bytes", sizeof(a->audio_device) - 1);
		snprintf(a->audio_device, sizeof(a->audio_device), "%s", value);
	} else if (!strcmp(key, "audio-passthrough")) {
		return set_passthrough(a, value, why, whylen);
	} else if (!strcmp(key, "audio-delay")) {
		char *end;
		long ms;

		errno = 0;
		ms = strtol(value, &end, 10);
		if (!*value || *end || errno || ms < -FFDVBD_AUDIO_DELAY_MAX ||
		    ms > FFDVBD_AUDIO_DELAY_MAX)
			return BAD("expected milliseconds, -%d..%d", FFDVBD_AUDIO_DELAY_MAX,
				   FFDVBD_AUDIO_DELAY_MAX);
		a->audio_delay_ms = (int)ms;
	} else if (!strcmp(key, "decode")) {
		int decode = !a->no_decode, r = set_bool(&decode, value, why, whylen);

		a->no_decode = !decode;
		return r;
	} else if (!strcmp(key, "record")) {
		/* room for "/pictures.log" after it */
		return set_path(a->record, sizeof(a->record) - 16, value, why, whylen);
	} else if (!strcmp(key, "drain-rate")) {
		if (parse_uint(value, UINT32_MAX, 0, &v) || v == 0)
			return BAD("expected bytes per second > 0");
		a->drain_rate = (uint32_t)v;
	} else if (!strcmp(key, "osd-memsize")) {
		if (parse_uint(value, UINT32_MAX, 0, &v) || v == 0)
			return BAD("expected a byte count > 0");
		a->osd_memsize = (uint32_t)v;
	} else if (!strcmp(key, "control")) {
		return set_path(a->control, sizeof(a->control), value, why, whylen);
	} else if (!strcmp(key, "tuner")) {
		/* the backend judges the spec itself (options.c tries it once all is parsed) */
		if (!*value || strlen(value) >= sizeof(a->tuner))
			return BAD("expected none, file:CHANNELS, dvb:ADAPTER[.FRONTEND] or "
				   "remote:HOST:PORT");
		snprintf(a->tuner, sizeof(a->tuner), "%s", value);
	} else {
		return -1;
	}
	return 0;
}

int ffdvbd_set_daemon_key(struct ffdvbd_options *o, const char *key, const char *value,
			  char *why, size_t whylen)
{
	if (!strcmp(key, "user")) {
		struct passwd *pw = getpwnam(value);

		if (!pw)
			return BAD("no such user");
		if (pw->pw_uid == 0)
			return BAD("expected a user other than root");
		snprintf(o->run_as, sizeof(o->run_as), "%s", value);
		o->run_uid = pw->pw_uid;
		o->run_gid = pw->pw_gid;
	} else if (!strcmp(key, "control-dir")) {
		/* room for "/adapterNNN.sock" in a socket path */
		if (value[0] != '/')
			return BAD("expected an absolute path");
		return set_path(o->control_dir, sizeof(o->control_dir), value, why, whylen);
	} else if (!strcmp(key, "log-level")) {
		static const char *const levels[] = { "quiet", "normal", "verbose", "debug" };
		int l;

		for (l = 0; l < 4 && strcmp(value, levels[l]); l++)
			;
		if (l == 4)
			return BAD("expected quiet, normal, verbose or debug");
		o->quiet = l == 0;
		o->verbose = l >= 2 ? l - 1 : 0;
	} else if (!strcmp(key, "foreground")) {
		return set_bool(&o->foreground, value, why, whylen);
	} else {
		return -1;
	}
	return 0;
}

int ffdvbd_adapter_finish(struct ffdvbd_adapter_options *a, const char *control_dir, char *why,
			  size_t whylen)
{
	if (!a->have_gid) {
		/* the default group; a system without it keeps root rather than failing */
		struct group *gr = getgrnam(DEFAULT_GROUP);

		a->gid = gr ? gr->gr_gid : 0;
	}
	if (!a->control[0] &&
	    snprintf(a->control, sizeof(a->control), "%s/adapter%d.sock", control_dir,
		     a->adapter) >= (int)sizeof(a->control))
		return BAD("control socket path %s/adapter%d.sock too long", control_dir, a->adapter);
	return 0;
}
