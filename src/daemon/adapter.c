/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One emulated adapter: tuner + decoder + card + nodes + control socket (adapter.h). */
#include "log.h"
#include "adapter.h"
#include "trace.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control.h"
#include "ffdvb/card.h"
#include "ffdvb/cuse.h"
#include "ffdvb/decoder.h"
#include "ffdvb/tuner.h"
#include "media.h"
#include "sysfs_view.h"

#define NODE_READY_TIMEOUT_MS 5000

struct ffdvbd_adapter {
	struct ffdvbd_adapter_options opt;
	struct ffdvb_tuner *tuner;  /* behind frontend0/demux0/dvr0; outlives the card */
	struct ffdvb_decoder *dec;  /* plays what video0/audio0 take; outlives the card; NULL with
				       --no-decode */
	struct ffdvb_card *card;
	struct ffdvb_cuse_dev *dev[FFDVB_NODE_COUNT];
	struct ffdvbd_trace *trace; /* between the transport and the card: ffdvbctl trace */
	struct ffdvbd_control *control;
};

static int taken(int adapter, const char *path)
{
	ffdvbd_log(FFDVBD_LOG_ERROR, "adapter %d is taken: %s exists (another ffdvbd or a real "
		   "card); choose another number", adapter, path);
	return -EBUSY;
}

int ffdvbd_adapter_check_free(const char *devdir, int adapter)
{
	char dir[96], path[384];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/dvb/adapter%d", devdir, adapter);
	for (int t = 0; t < FFDVB_NODE_COUNT; t++) {
		snprintf(path, sizeof(path), "%s/%s", dir, ffdvb_node_name(t));
		if (access(path, F_OK) == 0)
			return taken(adapter, path);
	}
	/* a real card's other nodes (dvr0, ca0, net0) take the number too */
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			closedir(d);
			return taken(adapter, path);
		}
	}
	closedir(d);
	return 0;
}

static int create_nodes(struct event_base *base, struct ffdvbd_adapter *ad, int verbose)
{
	for (int t = 0; t < FFDVB_NODE_COUNT; t++) {
		char devname[64];
		struct ffdvb_cuse_config cfg = {
			.devname = devname,
			.uid = ad->opt.uid,
			.gid = ad->opt.gid,
			.mode = ad->opt.mode,
			.debug = verbose >= 2,
		};

		snprintf(devname, sizeof(devname), "dvb/adapter%d/%s", ad->opt.adapter,
			 ffdvb_node_name(t));
		ad->dev[t] = ffdvb_cuse_dev_new(base, &cfg, ffdvbd_trace_ops(),
						ffdvbd_trace_node(ad->trace, t));
		if (!ad->dev[t])
			return -1;
		ffdvb_card_set_wake(ad->card, t, ffdvb_cuse_dev_wake, ad->dev[t]);
	}
	/* CUSE answers INIT on the loop and fails silently on a busy number: check each node */
	for (int t = 0; t < FFDVB_NODE_COUNT; t++) {
		if (ffdvb_cuse_dev_wait_ready(ad->dev[t], NODE_READY_TIMEOUT_MS) < 0)
			return -1;
		ffdvbd_log(FFDVBD_LOG_INFO, "/dev/dvb/adapter%d/%s ready", ad->opt.adapter,
				ffdvb_node_name(t));
	}
	return 0;
}

struct ffdvbd_adapter *ffdvbd_adapter_new(struct event_base *base,
					  const struct ffdvbd_adapter_options *a, int verbose)
{
	struct ffdvbd_adapter *ad = calloc(1, sizeof(*ad));

	if (!ad) {
		ffdvbd_log(FFDVBD_LOG_ERROR, "adapter %d: out of memory", a->adapter);
		return NULL;
	}
	ad->opt = *a;
	struct ffdvb_decoder_config dec_cfg = {
		.output = {
			.kind = a->output,
			.width = a->width,
			.height = a->height,
			.refresh = a->refresh,
			.record = a->record[0] != '\0',
			.audio = a->audio,
		},
		.deinterlace = a->deinterlace,
		.passthrough = a->passthrough,
		.audio_delay_ms = a->audio_delay_ms,
	};
	char err[256] = "";

	snprintf(dec_cfg.output.audio_device, sizeof(dec_cfg.output.audio_device), "%s",
		 a->audio_device);
	/* a spec the backend cannot understand was refused by the option parser already; missing
	   hardware is the backend's to wait for */
	ad->tuner = ffdvb_tuner_new(base, a->tuner, err, sizeof(err));
	if (!ad->tuner) {
		ffdvbd_log(FFDVBD_LOG_ERROR, "adapter %d: tuner %s: %s", a->adapter, a->tuner,
			   err[0] ? err : strerror(errno));
		goto fail;
	}
	ffdvbd_log(FFDVBD_LOG_INFO, "adapter %d: tuner %s", a->adapter, ffdvb_tuner_spec(ad->tuner));
	if (!a->no_decode && !(ad->dec = ffdvb_decoder_new(&dec_cfg))) {
		ffdvbd_log(FFDVBD_LOG_ERROR, "adapter %d: cannot start the decoder: %s",
			   a->adapter, strerror(errno));
		goto fail;
	}

	struct ffdvb_card_config card_cfg = {
		.adapter = a->adapter,
		.drain_rate = a->drain_rate,
		.osd_memsize = a->osd_memsize,
		.decoder = ad->dec,
		.output = ad->dec ? ffdvb_decoder_output(ad->dec) : NULL,
		.tuner = ad->tuner,
	};

	ad->card = ffdvb_card_new(base, &card_cfg);
	if (!ad->card) {
		ffdvbd_log(FFDVBD_LOG_ERROR, "adapter %d: cannot create the card: %s", a->adapter,
			strerror(errno));
		goto fail;
	}
	ad->trace = ffdvbd_trace_new(ad->card, a->adapter);
	if (!ad->trace) {
		ffdvbd_log(FFDVBD_LOG_ERROR, "adapter %d: out of memory", a->adapter);
		goto fail;
	}
	if (create_nodes(base, ad, verbose) != 0)
		goto fail;
	ad->control = ffdvbd_control_new(base, ad->opt.control, ad->opt.gid, ad->card);
	if (!ad->control)
		goto fail;
	ffdvbd_control_set_trace(ad->control, ad->trace);
	ffdvbd_control_set_decoder(ad->control, ad->dec);
	/* next to the control socket, whose folder exists now; for VDR, failure is only logged */
	ffdvbd_sysfs_view_add(ad->opt.control, ad->opt.adapter);
	if (ad->opt.record[0])
		ffdvbd_control_set_record_dir(ad->control, ad->opt.record);
	return ad;
fail:
	ffdvbd_adapter_free(ad);
	return NULL;
}

void ffdvbd_adapter_write_record(struct ffdvbd_adapter *ad)
{
	if (ad->opt.record[0] && ffdvbd_write_record(ad->dec, ad->opt.record) < 0)
		ffdvbd_log(FFDVBD_LOG_ERROR, "adapter %d: cannot write the record to %s",
			ad->opt.adapter, ad->opt.record);
}

void ffdvbd_adapter_free(struct ffdvbd_adapter *ad)
{
	if (!ad)
		return;
	ffdvbd_control_free(ad->control);
	if (ad->opt.control[0])
		ffdvbd_sysfs_view_remove(ad->opt.control, ad->opt.adapter);
	for (int t = FFDVB_NODE_COUNT - 1; t >= 0; t--) {
		ffdvb_cuse_dev_free(ad->dev[t]);
		if (ad->card)
			ffdvb_card_set_wake(ad->card, t, NULL, NULL);
	}
	ffdvb_card_free(ad->card);
	ffdvbd_trace_free(ad->trace);
	ffdvb_decoder_free(ad->dec); /* after the card, which fed it; joins its threads */
	ffdvb_tuner_free(ad->tuner); /* after the card, whose files it served */
	free(ad);
}
