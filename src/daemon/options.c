/* ffdvbd command-line parsing (getopt_long). */
#include "options.h"

#include "ffdvb/card.h"
#include "ffdvb/output.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_GROUP "video"
#define DEFAULT_MODE 0660
#define MAX_ADAPTER 255

void ffdvbd_usage(FILE *out)
{
	fprintf(out,
		"usage: ffdvbd [options]\n"
		"Emulates an av7110 full-featured DVB card as /dev/dvb/adapterN/{video0,audio0,osd0,\n"
		"demux0,frontend0} through CUSE.\n\n"
		"  -a, --adapter N          adapter number (default 0)\n"
		"  -u, --user USER          owner of the nodes, name or uid (default root)\n"
		"  -g, --group GROUP        group of the nodes, name or gid (default video, else root)\n"
		"  -m, --mode MODE          octal mode of the nodes (default 0660)\n"
		"  -f, --foreground         do not detach\n"
		"  -v, --verbose            more messages; twice: log every CUSE request\n"
		"  -q, --quiet              only errors\n"
		"  -o, --output KIND        where pictures and sound go: auto (default: a window where a\n"
		"                           display exists, else KMSDRM, else none), window, fullscreen,\n"
		"                           kmsdrm, none (headless)\n"
		"      --size WxH           window or headless picture size (default 720x576)\n"
		"      --no-deinterlace     show interlaced pictures as they are (default: bwdif)\n"
		"      --no-audio           no sound device (sound is still timed)\n"
		"      --record DIR         headless: log every picture and sound chunk presented and\n"
		"                           write DIR/pictures.log and DIR/sound.s16 at exit and on\n"
		"                           the control command 'record'\n"
		"      --no-decode          decode nothing; playing rings drain at --drain-rate\n"
		"      --drain-rate BYTES   with --no-decode: bytes per second taken (default %u)\n"
		"      --osd-memsize N      OSD memory reported by OSD_GET_CAPABILITY (default %u)\n"
		"  -c, --control PATH       control socket (default /run/ffdvb/adapterN.sock)\n"
		"  -h, --help               this text\n"
		"  -V, --version            version\n",
		FFDVB_DEFAULT_DRAIN_RATE, FFDVB_DEFAULT_OSD_MEMSIZE);
}

/* unsigned decimal (or 0x/0 prefixed) number within max */
static int parse_uint(const char *s, unsigned long max, int base, unsigned long *out)
{
	char *end;

	errno = 0;
	if (!*s || *s == '-')
		return -1;
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

static int bad(const char *opt, const char *value, const char *why)
{
	fprintf(stderr, "ffdvbd: %s '%s': %s\n", opt, value, why);
	fprintf(stderr, "Try 'ffdvbd --help'.\n");
	return -1;
}

int ffdvbd_parse_options(int argc, char **argv, struct ffdvbd_options *o)
{
	enum { OPT_DRAIN = 256, OPT_OSDMEM, OPT_SIZE, OPT_NODEINT, OPT_NOAUDIO, OPT_RECORD,
	       OPT_NODECODE };
	static const struct option longopts[] = {
		{ "adapter", required_argument, NULL, 'a' },
		{ "user", required_argument, NULL, 'u' },
		{ "group", required_argument, NULL, 'g' },
		{ "mode", required_argument, NULL, 'm' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "drain-rate", required_argument, NULL, OPT_DRAIN },
		{ "osd-memsize", required_argument, NULL, OPT_OSDMEM },
		{ "control", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "no-deinterlace", no_argument, NULL, OPT_NODEINT },
		{ "no-audio", no_argument, NULL, OPT_NOAUDIO },
		{ "record", required_argument, NULL, OPT_RECORD },
		{ "no-decode", no_argument, NULL, OPT_NODECODE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *group = NULL;
	unsigned long v;
	int c, have_control = 0;

	memset(o, 0, sizeof(*o));
	o->mode = DEFAULT_MODE;
	o->output = FFDVB_OUTPUT_AUTO;
	o->deinterlace = 1;
	o->audio = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "a:u:g:m:fvqc:o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (parse_uint(optarg, MAX_ADAPTER, 10, &v))
				return bad("--adapter", optarg, "expected 0..255");
			o->adapter = (int)v;
			break;
		case 'u':
			if (parse_user(optarg, &o->uid))
				return bad("--user", optarg, "no such user");
			break;
		case 'g':
			if (parse_group(optarg, &o->gid))
				return bad("--group", optarg, "no such group");
			group = optarg;
			break;
		case 'm':
			if (parse_uint(optarg, 07777, 8, &v))
				return bad("--mode", optarg, "expected an octal mode like 0660");
			o->mode = (mode_t)v;
			break;
		case 'f':
			o->foreground = 1;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case OPT_DRAIN:
			if (parse_uint(optarg, UINT32_MAX, 0, &v) || v == 0)
				return bad("--drain-rate", optarg, "expected bytes per second > 0");
			o->drain_rate = (uint32_t)v;
			break;
		case OPT_OSDMEM:
			if (parse_uint(optarg, UINT32_MAX, 0, &v) || v == 0)
				return bad("--osd-memsize", optarg, "expected a byte count > 0");
			o->osd_memsize = (uint32_t)v;
			break;
		case 'c':
			if (strlen(optarg) == 0 || strlen(optarg) >= sizeof(o->control))
				return bad("--control", optarg, "empty or too long for a socket path");
			snprintf(o->control, sizeof(o->control), "%s", optarg);
			have_control = 1;
			break;
		case 'o': {
			static const char *const kinds[] = { [FFDVB_OUTPUT_NONE] = "none",
				[FFDVB_OUTPUT_WINDOW] = "window", [FFDVB_OUTPUT_FULLSCREEN] = "fullscreen",
				[FFDVB_OUTPUT_KMSDRM] = "kmsdrm", [FFDVB_OUTPUT_AUTO] = "auto" };
			int k;

			for (k = 0; k <= FFDVB_OUTPUT_AUTO && strcmp(optarg, kinds[k]); k++)
				;
			if (k > FFDVB_OUTPUT_AUTO)
				return bad("--output", optarg,
					   "expected auto, window, fullscreen, kmsdrm or none");
			o->output = k;
			break;
		}
		case OPT_SIZE: {
			int w, h;
			char end;

			if (sscanf(optarg, "%dx%d%c", &w, &h, &end) != 2 || w < 16 || h < 16 ||
			    w > 8192 || h > 8192)
				return bad("--size", optarg, "expected WxH, 16..8192 each");
			o->width = w;
			o->height = h;
			break;
		}
		case OPT_NODEINT:
			o->deinterlace = 0;
			break;
		case OPT_NOAUDIO:
			o->audio = 0;
			break;
		case OPT_RECORD:
			if (strlen(optarg) == 0 || strlen(optarg) >= sizeof(o->record) - 16)
				return bad("--record", optarg, "empty or too long a directory");
			snprintf(o->record, sizeof(o->record), "%s", optarg);
			break;
		case OPT_NODECODE:
			o->no_decode = 1;
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
	}
	if (optind < argc)
		return bad("argument", argv[optind], "unexpected");
	if (!group) {
		/* the default group; a system without it keeps root rather than failing */
		struct group *gr = getgrnam(DEFAULT_GROUP);

		o->gid = gr ? gr->gr_gid : 0;
	}
	if (!have_control)
		snprintf(o->control, sizeof(o->control), "/run/ffdvb/adapter%d.sock", o->adapter);
	return 0;
}
