/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The OSD plane: the card's OSD model (src/osd) rendered into a 720x576 ARGB plane once per
 * burst of commands and set on the output the caller handed in (ffdvb_card_config.output,
 * ffdvb_output_set_osd: any thread), which presents it over the picture. Also the plane and
 * the windows as the control socket asks for them. */
#include <errno.h>
#include <stdlib.h>

#include <event2/event.h>

#include "ffdvb/output.h"

#include "card_internal.h"

/* Renders the plane once per burst of commands (VDR sends a dozen at a time): the first
 * change arms a short timer, later ones ride along. */
#define OSD_COALESCE_US 2000

static void on_osd_timer(evutil_socket_t fd, short what, void *arg)
{
	struct ffdvb_card *card = arg;
	uint64_t gen = ffdvb_osd_generation(card->osd);

	(void)fd, (void)what;
	if (gen == card->osd_generation)
		return;
	card->osd_generation = gen;
	ffdvb_osd_render(card->osd, card->osd_plane);
	ffdvb_output_set_osd(card->cfg.output, card->osd_plane);
}

int card_osd_plane_start(struct ffdvb_card *card)
{
	if (!card->cfg.output)
		return 0; /* nothing shows the OSD: it is not rendered */
	card->osd_plane = calloc((size_t)FFDVB_OSD_SCREEN_W * FFDVB_OSD_SCREEN_H, sizeof(uint32_t));
	card->osd_ev = evtimer_new(card->base, on_osd_timer, card);
	return card->osd_plane && card->osd_ev ? 0 : -ENOMEM;
}

void card_osd_plane_stop(struct ffdvb_card *card)
{
	if (card->osd_ev)
		event_free(card->osd_ev);
	card->osd_ev = NULL;
	free(card->osd_plane);
	card->osd_plane = NULL;
}

void card_osd_changed(struct ffdvb_card *card)
{
	static const struct timeval soon = { 0, OSD_COALESCE_US };

	if (!card->osd_ev || ffdvb_osd_generation(card->osd) == card->osd_generation)
		return;
	if (!evtimer_pending(card->osd_ev, NULL))
		evtimer_add(card->osd_ev, &soon);
}

void ffdvb_card_osd_plane(struct ffdvb_card *card, uint32_t *argb)
{
	ffdvb_osd_render(card->osd, argb);
}

int ffdvb_card_osd_window(struct ffdvb_card *card, int win, struct ffdvb_osd_window_info *info,
			  uint32_t **argb)
{
	int r = ffdvb_osd_window(card->osd, win, info);

	if (r < 0 || !info->open)
		return r < 0 ? r : -EINVAL;
	return ffdvb_osd_window_argb(card->osd, win, argb);
}
