/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvbd.conf: the INI reader (src/daemon/ini.c), the sections and keys (config.c,
 * settings.c), the command line over the file (options.c) and the capability set kept after
 * the privilege drop (privileges.c). Each error must name FILE:LINE and ask for exit 2. */
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/capability.h>

#include "check.h"
#include "daemon/config.h"
#include "daemon/ini.h"
#include "daemon/options.h"
#include "test_daemon_util.h"
#include "daemon/privileges.h"
#include "ffdvb/output.h"

static char conf[] = "/tmp/ffdvb-conf-XXXXXX";

static void write_conf(const char *text)
{
	FILE *f = fopen(conf, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		printf("FAIL cannot write %s\n", conf);
		exit(1);
	}
}

/* loads text as a config file: 0 or -1 with the message in err */
static int load(const char *text, struct ffdvbd_options *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	err[0] = '\0';
	write_conf(text);
	return ffdvbd_config_load(conf, o, err, errlen);
}

/* the error names the file and line and says why */
static int error_at(const char *text, int line, const char *words)
{
	struct ffdvbd_options o;
	char err[512], where[4200];

	if (load(text, &o, err, sizeof(err)) != -1)
		return 0;
	snprintf(where, sizeof(where), "%s:%d: ", conf, line);
	if (strncmp(err, where, strlen(where)) || !strstr(err, words)) {
		printf("  got: %s\n", err);
		return 0;
	}
	return 1;
}

static void syntax(void)
{
	struct ffdvbd_options o;
	char err[512];

	CHECK_LABELLED("empty file", load("", &o, err, sizeof(err)) == 0 && o.n_adapters == 0);
	CHECK_LABELLED("comments, blanks, CRLF-free blanks around everything",
		       load("# comment\n; other\n\n  [ daemon ]  \n  log-level   =   verbose  \n",
			    &o, err, sizeof(err)) == 0 && o.verbose == 1);
	CHECK_LABELLED("no newline at the end", load("[adapter2]\nmode = 0600", &o, err,
						     sizeof(err)) == 0 &&
					       o.n_adapters == 1 && o.adapters[0].mode == 0600);
	CHECK_LABELLED("an empty [adapterN] section defines the adapter",
		       load("[adapter1]\n[adapter0]\n", &o, err, sizeof(err)) == 0 &&
			       o.n_adapters == 2 && o.adapters[0].adapter == 0 &&
			       o.adapters[1].adapter == 1);
	CHECK_LABELLED("values may hold '#' and '='",
		       load("[adapter0]\nrecord = /tmp/a#b=c\n", &o, err, sizeof(err)) == 0 &&
			       !strcmp(o.adapters[0].record, "/tmp/a#b=c"));
	CHECK_LABELLED("key before a section", error_at("mode = 0660\n", 1, "before the first"));
	CHECK_LABELLED("line without '='", error_at("[daemon]\n\njunk\n", 3, "expected 'key = value'"));
	CHECK_LABELLED("unclosed section", error_at("[daemon\n", 1, "[section]"));
	CHECK_LABELLED("text after ]", error_at("[daemon] x\n", 1, "[section]"));
	CHECK_LABELLED("empty section name", error_at("[ ]\n", 1, "empty section"));
	CHECK_LABELLED("'=' without key", error_at("[daemon]\n = 1\n", 2, "without a key"));

	char longline[FFDVBD_INI_MAX_LINE + 64];

	memset(longline, 'x', sizeof(longline));
	memcpy(longline, "[daemon]\n#", 10);
	longline[sizeof(longline) - 2] = '\n';
	longline[sizeof(longline) - 1] = '\0';
	CHECK_LABELLED("overlong line", error_at(longline, 2, "longer than"));

	/* a NUL byte cannot go through fputs: write it by hand */
	FILE *f = fopen(conf, "w");

	fwrite("[daemon]\nlog-level = quiet\0x\n", 1, 30, f);
	fclose(f);
	memset(&o, 0, sizeof(o));
	CHECK_LABELLED("NUL byte", ffdvbd_config_load(conf, &o, err, sizeof(err)) == -1 &&
				       strstr(err, ":2: NUL byte"));
}

static void semantics(void)
{
	struct ffdvbd_options o;
	char err[512];
	struct group *video = getgrnam("video");

	CHECK_LABELLED("every adapter key", load("[adapter4]\n"
		"owner = 0\ngroup = root\nmode = 0600\noutput = none\nsize = 320x240\n"
		"deinterlace = no\naudio = off\ndecode = false\nrecord = /tmp/rec\n"
		"drain-rate = 0x1000\nosd-memsize = 92000\ncontrol = /tmp/a4.sock\n",
		&o, err, sizeof(err)) == 0);
	struct ffdvbd_adapter_options *a = &o.adapters[0];

	CHECK_LABELLED("adapter 4 with its keys",
		       o.n_adapters == 1 && a->adapter == 4 && a->uid == 0 && a->gid == 0 &&
			       a->have_gid && a->mode == 0600 && a->output == FFDVB_OUTPUT_NONE &&
			       a->width == 320 && a->height == 240 && !a->deinterlace && !a->audio &&
			       a->no_decode && !strcmp(a->record, "/tmp/rec") &&
			       a->drain_rate == 0x1000 && a->osd_memsize == 92000 &&
			       !strcmp(a->control, "/tmp/a4.sock"));
	CHECK_LABELLED("every daemon key",
		       load("[daemon]\ncontrol-dir = /tmp/ctl\nlog-level = debug\nforeground = yes\n",
			    &o, err, sizeof(err)) == 0 && !strcmp(o.control_dir, "/tmp/ctl") &&
			       o.verbose == 2 && !o.quiet && o.foreground);
	CHECK_LABELLED("log-level quiet", load("[daemon]\nlog-level = quiet\n", &o, err,
					       sizeof(err)) == 0 && o.quiet && !o.verbose);

	CHECK_LABELLED("deinterlace: field by default, yes means field, frame, no",
		       load("[adapter0]\n[adapter1]\ndeinterlace = yes\n[adapter2]\n"
			    "deinterlace = frame\n[adapter3]\ndeinterlace = off\n",
			    &o, err, sizeof(err)) == 0 && o.n_adapters == 4 &&
			       o.adapters[0].deinterlace == FFDVB_DEINTERLACE_FIELD &&
			       o.adapters[1].deinterlace == FFDVB_DEINTERLACE_FIELD &&
			       o.adapters[2].deinterlace == FFDVB_DEINTERLACE_FRAME &&
			       o.adapters[3].deinterlace == FFDVB_DEINTERLACE_OFF);
	CHECK_LABELLED("audio-passthrough: ac3,dts,eac3; dts; no",
		       load("[adapter0]\naudio-passthrough = ac3,dts,eac3\n[adapter1]\n"
			    "audio-passthrough = dts\n[adapter2]\naudio-passthrough = no\n",
			    &o, err, sizeof(err)) == 0 && o.n_adapters == 3 &&
			       o.adapters[0].passthrough ==
				       (FFDVB_PASS_AC3 | FFDVB_PASS_DTS | FFDVB_PASS_EAC3) &&
			       o.adapters[1].passthrough == FFDVB_PASS_DTS &&
			       o.adapters[2].passthrough == 0);
	CHECK_LABELLED("audio-passthrough: other formats refused",
		       error_at("[adapter0]\naudio-passthrough = ac3,mp2\n", 2, "ac3,dts"));
	CHECK_LABELLED("refresh: 50 by default, a rate, preferred",
		       load("[adapter0]\n[adapter1]\nrefresh = 60\n[adapter2]\nrefresh = preferred\n",
			    &o, err, sizeof(err)) == 0 && o.n_adapters == 3 &&
			       o.adapters[0].refresh == 50 && o.adapters[1].refresh == 60 &&
			       o.adapters[2].refresh == 0);
	CHECK_LABELLED("refresh: out of range refused",
		       error_at("[adapter0]\nrefresh = 10\n", 2, "24..240"));
	CHECK_LABELLED("deinterlace: anything else refused",
		       error_at("[adapter0]\ndeinterlace = double\n", 2, "field, frame or no"));
	CHECK_LABELLED("unknown key", error_at("[adapter0]\nmode = 0660\nbogus = 1\n", 3,
					       "unknown key 'bogus' in [adapter0]"));
	CHECK_LABELLED("daemon key in an adapter", error_at("[adapter0]\nuser = nobody\n", 2,
							    "unknown key 'user'"));
	CHECK_LABELLED("adapter key in [daemon]", error_at("[daemon]\nmode = 0660\n", 2,
							   "unknown key 'mode' in [daemon]"));
	CHECK_LABELLED("unknown section", error_at("[tuner]\n", 1, "unknown section [tuner]"));
	CHECK_LABELLED("adapter number out of range", error_at("[adapter256]\n", 1,
							      "unknown section"));
	CHECK_LABELLED("leading zero", error_at("[adapter01]\n", 1, "unknown section"));
	CHECK_LABELLED("duplicate adapter section",
		       error_at("[adapter1]\n[daemon]\n[adapter1]\n", 3, "[adapter1] given twice"));
	CHECK_LABELLED("duplicate daemon section",
		       error_at("[daemon]\n[daemon]\n", 2, "[daemon] given twice"));
	CHECK_LABELLED("duplicate key", error_at("[adapter0]\nmode = 0660\nmode = 0600\n", 3,
						 "'mode' given twice"));
	CHECK_LABELLED("wrong type: bool", error_at("[adapter0]\naudio = maybe\n", 2,
						    "audio 'maybe': expected yes or no"));
	CHECK_LABELLED("wrong type: number", error_at("[adapter0]\ndrain-rate = fast\n", 2,
						      "drain-rate 'fast'"));
	CHECK_LABELLED("out of range: mode", error_at("[adapter0]\nmode = 17777\n", 2,
						      "expected an octal mode"));
	CHECK_LABELLED("out of range: size", error_at("[adapter0]\nsize = 8x8\n", 2, "16..8192"));
	CHECK_LABELLED("negative number", error_at("[adapter0]\nosd-memsize = -5\n", 2,
						   "osd-memsize '-5'"));
	CHECK_LABELLED("bad output", error_at("[adapter0]\noutput = vga\n", 2, "expected auto"));
	CHECK_LABELLED("unknown owner", error_at("[adapter0]\nowner = no-such-user-ffdvb\n", 2,
						 "no such user"));
	CHECK_LABELLED("unknown run-as user",
		       error_at("[daemon]\nuser = no-such-user-ffdvb\n", 2, "no such user"));
	CHECK_LABELLED("run-as root refused", error_at("[daemon]\nuser = root\n", 2,
						       "other than root"));
	CHECK_LABELLED("bad log level", error_at("[daemon]\nlog-level = loud\n", 2,
						 "expected quiet, normal"));

	char many[2048] = "";

	for (int i = 0; i <= FFDVBD_MAX_ADAPTERS; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "[adapter%d]\n", i);
	CHECK_LABELLED("too many adapters", error_at(many, FFDVBD_MAX_ADAPTERS + 1, "more than"));
	(void)video;
}


static void command_line_wins(void)
{
	struct ffdvbd_options o;
	struct group *video = getgrnam("video");
	gid_t vgid = video ? video->gr_gid : 0;

	write_conf("[daemon]\nlog-level = verbose\ncontrol-dir = /tmp/ffdvb-ctl\n"
		   "[adapter1]\noutput = none\nmode = 0640\n"
		   "[adapter0]\noutput = window\ngroup = root\n");
	CHECK_LABELLED("two adapters from the file", parse(&o, "--config", conf, NULL) == 0 &&
		       o.n_adapters == 2 && !strcmp(o.config, conf));
	CHECK_LABELLED("adapter 0 first, its keys", o.adapters[0].adapter == 0 &&
		       o.adapters[0].output == FFDVB_OUTPUT_WINDOW && o.adapters[0].gid == 0 &&
		       o.adapters[0].mode == 0660);
	CHECK_LABELLED("adapter 1, its keys, default group", o.adapters[1].adapter == 1 &&
		       o.adapters[1].output == FFDVB_OUTPUT_NONE && o.adapters[1].mode == 0640 &&
		       o.adapters[1].gid == vgid);
	CHECK_LABELLED("sockets in the file's control-dir",
		       !strcmp(o.adapters[0].control, "/tmp/ffdvb-ctl/adapter0.sock") &&
			       !strcmp(o.adapters[1].control, "/tmp/ffdvb-ctl/adapter1.sock"));
	CHECK_LABELLED("log level from the file", o.verbose == 1 && !o.quiet);

	CHECK_LABELLED("command line over the file",
		       parse(&o, "--config", conf, "--output", "none", "-q", "--control-dir",
			     "/tmp/other", NULL) == 0 && o.n_adapters == 2 &&
			       o.adapters[0].output == FFDVB_OUTPUT_NONE &&
			       o.adapters[1].output == FFDVB_OUTPUT_NONE &&
			       o.adapters[1].mode == 0640 && o.quiet && !o.verbose &&
			       !strcmp(o.adapters[1].control, "/tmp/other/adapter1.sock"));
	CHECK_LABELLED("--adapter picks its section",
		       parse(&o, "--config", conf, "--adapter", "1", "--mode", "0600", NULL) == 0 &&
			       o.n_adapters == 1 && o.adapters[0].adapter == 1 &&
			       o.adapters[0].output == FFDVB_OUTPUT_NONE &&
			       o.adapters[0].mode == 0600);
	CHECK_LABELLED("--adapter without a section: defaults",
		       parse(&o, "--config", conf, "--adapter", "5", NULL) == 0 &&
			       o.n_adapters == 1 && o.adapters[0].adapter == 5 &&
			       o.adapters[0].output == FFDVB_OUTPUT_AUTO &&
			       !strcmp(o.adapters[0].control, "/tmp/ffdvb-ctl/adapter5.sock"));
	CHECK_LABELLED("--control with two adapters refused",
		       parse(&o, "--config", conf, "--control", "/tmp/x.sock", NULL) == -1);
	CHECK_LABELLED("--control with --adapter accepted",
		       parse(&o, "--config", conf, "-a", "0", "--control", "/tmp/x.sock", NULL) ==
			       0 && !strcmp(o.adapters[0].control, "/tmp/x.sock"));
	write_conf("[adapter0]\ncontrol = /tmp/same.sock\n[adapter1]\ncontrol = /tmp/same.sock\n");
	CHECK_LABELLED("two adapters on one socket refused", parse(&o, "--config", conf, NULL) == -1);
	write_conf("[adapter0]\nmode = 0660\nfoo = bar\n");
	CHECK_LABELLED("a config error is a usage error (exit 2)",
		       parse(&o, "--config", conf, NULL) == -1);
}

static void capabilities(void)
{
	CHECK_LABELLED("no capability kept, in words",
		       !strcmp(ffdvbd_kept_capabilities(), "no capabilities"));
	EXPECT_EQ("CapEff mask after the drop: empty", ffdvbd_kept_capability_mask(), 0ull);

	/* nothing to drop without a user; a user without root cannot be switched to */
	struct ffdvbd_options o = { 0 };

	CHECK_LABELLED("no user: nothing to do", ffdvbd_drop_privileges(&o) == 0);
	snprintf(o.run_as, sizeof(o.run_as), "nobody");
	if (geteuid() != 0)
		CHECK_LABELLED("not root: refused before anything is made",
			       ffdvbd_check_can_drop(&o) == -1);
	else
		CHECK_LABELLED("root: may switch", ffdvbd_check_can_drop(&o) == 0);
}

/* --tuner / tuner =: "none" by default; a spec the tuner cannot understand is a config error
 * (exit 2) with one line naming adapter and spec; missing hardware is not */
static void tuner(void)
{
	struct ffdvbd_options o;
	char err[512], path[4200];
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	CHECK_LABELLED("tuner: default none", parse(&o, NULL) == 0 &&
					      !strcmp(o.adapters[0].tuner, "none"));
	CHECK_LABELLED("tuner: --tuner none", parse(&o, "--tuner", "none", NULL) == 0 &&
					      !strcmp(o.adapters[0].tuner, "none"));
	CHECK_LABELLED("tuner: --tuner dvb:9 (no such adapter: the backend waits for it)",
		       parse(&o, "--tuner", "dvb:9", NULL) == 0 &&
			       !strcmp(o.adapters[0].tuner, "dvb:9"));
	CHECK_LABELLED("tuner: --tuner bogus:1 refused", parse(&o, "--tuner", "bogus:1", NULL) == -1);
	CHECK_LABELLED("tuner: --tuner '' refused", parse(&o, "--tuner", "", NULL) == -1);
	CHECK_LABELLED("tuner: --tuner file:<missing> refused",
		       parse(&o, "--tuner", "file:/nonexistent/channels.conf", NULL) == -1);

	/* the file's key, per adapter, and the command line over it */
	CHECK_LABELLED("tuner = in [adapter1]",
		       load("[adapter0]\n[adapter1]\ntuner = dvb:7.1\n", &o, err, sizeof(err)) == 0 &&
			       o.n_adapters == 2 && !strcmp(o.adapters[0].tuner, "none") &&
			       !strcmp(o.adapters[1].tuner, "dvb:7.1"));
	CHECK_LABELLED("tuner = (empty) names file:line", error_at("[adapter0]\ntuner =\n", 2, "tuner"));
	snprintf(path, sizeof(path), "%s", conf);
	write_conf("[adapter2]\ntuner = dvb:7\n");
	CHECK_LABELLED("tuner: --tuner wins over the file",
		       parse(&o, "--config", path, "--tuner", "none", NULL) == 0 &&
			       o.adapters[0].adapter == 2 && !strcmp(o.adapters[0].tuner, "none"));
	write_conf("[adapter2]\ntuner = nonsense\n");
	CHECK_LABELLED("tuner: a bad spec in the file is an error (exit 2)",
		       parse(&o, "--config", path, NULL) == -1);

	/* --check-config shows it */
	write_conf("[adapter2]\ntuner = dvb:7\n");
	CHECK_LABELLED("tuner: --check-config parses", parse(&o, "--config", path, NULL) == 0);
	m = open_memstream(&text, &len);
	ffdvbd_print_settings(m, &o);
	fclose(m);
	CHECK_LABELLED("tuner: --check-config prints '; tuner dvb:7'", strstr(text, "; tuner dvb:7"));
	free(text);
}

int main(void)
{
	int fd = mkstemp(conf);

	if (fd < 0) {
		printf("FAIL mkstemp\n");
		return 1;
	}
	close(fd);
	syntax();
	semantics();
	command_line_wins();
	capabilities();
	tuner();
	unlink(conf);
	printf("%d/%d checks passed\n", checks - failures, checks);
	return failures ? 1 : 0;
}
