/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The compositor for screenshots and the headless sink: the picture scaled into the TV screen
 * with the aspect rules of VIDEO_SET_FORMAT / VIDEO_SET_DISPLAY_FORMAT, and the OSD plane
 * alpha-blended over it. The output raster is the whole TV screen (4:3 or 16:9, whatever its
 * pixel size), and the 720x576 OSD always covers all of it. The SDL backend uses the same
 * geometry for its renderer's rectangles, so a screenshot shows what the window shows. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libavutil/rational.h>
#include <libswscale/swscale.h>

#include "output_internal.h"

/* largest picture and output we accept (8K); also keeps every size product inside int */
#define MAX_SIDE 8192
/* picture and screen shapes closer than this are treated as equal: a 702/704-wide ITU
 * picture fills a 4:3 screen instead of getting 1% bars */
#define SAME_SHAPE_TOLERANCE 0.03

int compose_check_frame(const AVFrame *frame)
{
	if (!frame || frame->width < 1 || frame->height < 1 || frame->width > MAX_SIDE ||
	    frame->height > MAX_SIDE)
		return -EINVAL;
	const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(frame->format);
	if (!desc || (desc->flags & (AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BITSTREAM)) ||
	    !sws_isSupportedInput(frame->format))
		return -EINVAL;
	int planes = av_pix_fmt_count_planes(frame->format);
	for (int i = 0; i < planes; i++) {
		int need = av_image_get_linesize(frame->format, frame->width, i);
		if (!frame->data[i] || need < 0 || abs(frame->linesize[i]) < need)
			return -EINVAL;
	}
	if ((desc->flags & AV_PIX_FMT_FLAG_PAL) && !frame->data[1])
		return -EINVAL;
	return 0;
}

/* a/b reduced to small terms, so that products of two such terms stay far inside int64 */
static AVRational small_ratio(int64_t a, int64_t b)
{
	AVRational r;
	av_reduce(&r.num, &r.den, a, b, 1 << 16);
	return r;
}

/* round(v * num / den) for positive terms */
static int scale_round(int v, int64_t num, int64_t den)
{
	int64_t r = ((int64_t)v * num * 2 + den) / (den * 2);
	return r < 1 ? 1 : r > v ? v : (int)r;
}

int compose_geometry(const AVFrame *frame, const struct ffdvb_picture_info *info, int out_w,
		     int out_h, struct compose_geometry *g)
{
	if (info->tv != FFDVB_TV_4_3 && info->tv != FFDVB_TV_16_9)
		return -EINVAL;
	if (info->display_format != FFDVB_DISPLAY_PAN_SCAN &&
	    info->display_format != FFDVB_DISPLAY_LETTER_BOX &&
	    info->display_format != FFDVB_DISPLAY_CENTER_CUT_OUT)
		return -EINVAL;
	if (info->dar_num < 0 || info->dar_den < 0 || (info->dar_num > 0) != (info->dar_den > 0))
		return -EINVAL;
	if (out_w < 1 || out_h < 1)
		return -EINVAL;

	int w = frame->width, h = frame->height;
	AVRational pic; /* the picture's display aspect */
	if (info->dar_num > 0)
		pic = small_ratio(info->dar_num, info->dar_den);
	else if (frame->sample_aspect_ratio.num > 0 && frame->sample_aspect_ratio.den > 0)
		pic = small_ratio((int64_t)w * frame->sample_aspect_ratio.num,
				  (int64_t)h * frame->sample_aspect_ratio.den);
	else
		pic = small_ratio(w, h); /* unknown: square pixels */
	AVRational tv = info->tv == FFDVB_TV_16_9 ? (AVRational){ 16, 9 } : (AVRational){ 4, 3 };
	if (pic.num < 1 || pic.den < 1)
		pic = tv;

	*g = (struct compose_geometry){ 0, 0, w, h, 0, 0, out_w, out_h };
	/* wide > 1: the picture is wider than the screen by that factor */
	int64_t wide_num = (int64_t)pic.num * tv.den, wide_den = (int64_t)pic.den * tv.num;
	double wide = (double)wide_num / (double)wide_den;
	if (wide > 1 - SAME_SHAPE_TOLERANCE && wide < 1 + SAME_SHAPE_TOLERANCE)
		return 0;
	if (wide > 1 && info->display_format == FFDVB_DISPLAY_LETTER_BOX) {
		g->dst_h = scale_round(out_h, wide_den, wide_num);
		g->dst_y = (out_h - g->dst_h) / 2;
	} else if (wide > 1) {
		/* pan&scan without vectors in the stream is the centre cut-out */
		const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(frame->format);
		g->src_w = scale_round(w, wide_den, wide_num);
		g->src_x = (w - g->src_w) / 2;
		/* start on a chroma sample so that the planes stay in step */
		g->src_x &= ~((1 << desc->log2_chroma_w) - 1);
	} else {
		/* narrower picture (4:3 on 16:9): pillarbox */
		g->dst_w = scale_round(out_w, wide_num, wide_den);
		g->dst_x = (out_w - g->dst_w) / 2;
	}
	return 0;
}

static void fill_black(uint8_t *dst, int stride, int w, int h, int bpp)
{
	for (int y = 0; y < h; y++) {
		uint8_t *row = dst + (ptrdiff_t)y * stride;
		memset(row, 0, (size_t)w * bpp);
		if (bpp == 4)
			for (int x = 0; x < w; x++)
				row[4 * x + 3] = 255;
	}
}

/* sws colour details from the frame: BT.709 for HD or when tagged, full range for JPEG */
void compose_set_colorspace(struct SwsContext *sws, const AVFrame *f)
{
	int cs = SWS_CS_ITU601;
	if (f->colorspace == AVCOL_SPC_BT709 ||
	    (f->colorspace == AVCOL_SPC_UNSPECIFIED && f->height > 576))
		cs = SWS_CS_ITU709;
	int *inv, src_range, *table, dst_range, brightness, contrast, saturation;
	if (sws_getColorspaceDetails(sws, &inv, &src_range, &table, &dst_range, &brightness,
				     &contrast, &saturation) < 0)
		return; /* RGB source: nothing to choose */
	if (f->color_range == AVCOL_RANGE_JPEG)
		src_range = 1;
	else if (f->color_range == AVCOL_RANGE_MPEG)
		src_range = 0;
	sws_setColorspaceDetails(sws, sws_getCoefficients(cs), src_range, table, dst_range,
				 brightness, contrast, saturation);
}

/* scales the cropped picture to g->dst_w x g->dst_h and places it in dst */
static int draw_picture(const AVFrame *frame, const struct compose_geometry *g,
			enum AVPixelFormat dst_fmt, int bpp, uint8_t *dst, int dst_stride)
{
	int ret;
	AVFrame *crop = av_frame_alloc();
	if (!crop)
		return -ENOMEM;
	ret = av_frame_ref(crop, frame);
	if (ret < 0)
		goto free_crop;
	crop->crop_left = g->src_x;
	crop->crop_right = frame->width - g->src_x - g->src_w;
	crop->crop_top = g->src_y;
	crop->crop_bottom = frame->height - g->src_y - g->src_h;
	ret = av_frame_apply_cropping(crop, AV_FRAME_CROP_UNALIGNED);
	if (ret < 0)
		goto free_crop;

	struct SwsContext *sws = sws_getContext(crop->width, crop->height, crop->format, g->dst_w,
						g->dst_h, dst_fmt,
						SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT,
						NULL, NULL, NULL);
	if (!sws) {
		ret = -EINVAL;
		goto free_crop;
	}
	compose_set_colorspace(sws, crop);
	/* scaled apart, then copied: swscale's SIMD paths may write a little past a row's end,
	 * which must not touch the bars beside a pillarboxed picture */
	uint8_t *tmp[4];
	int tmp_stride[4];
	ret = av_image_alloc(tmp, tmp_stride, g->dst_w, g->dst_h, dst_fmt, 64);
	if (ret < 0)
		goto free_sws;
	ret = sws_scale(sws, (const uint8_t *const *)crop->data, crop->linesize, 0, crop->height,
			tmp, tmp_stride);
	if (ret == g->dst_h) {
		for (int y = 0; y < g->dst_h; y++)
			memcpy(dst + (ptrdiff_t)(g->dst_y + y) * dst_stride + (size_t)g->dst_x * bpp,
			       tmp[0] + (ptrdiff_t)y * tmp_stride[0], (size_t)g->dst_w * bpp);
		ret = 0;
	} else {
		ret = -EINVAL;
	}
	av_freep(&tmp[0]);
free_sws:
	sws_freeContext(sws);
free_crop:
	av_frame_free(&crop);
	return ret < 0 ? (ret == AVERROR(ENOMEM) ? -ENOMEM : ret) : 0;
}

static void blend_row(uint8_t *dst, const uint32_t *osd, int w, int bpp)
{
	for (int x = 0; x < w; x++, dst += bpp) {
		uint32_t p = osd[x];
		unsigned a = p >> 24;
		if (!a)
			continue;
		dst[0] = compose_blend(dst[0], (p >> 16) & 0xff, a);
		dst[1] = compose_blend(dst[1], (p >> 8) & 0xff, a);
		dst[2] = compose_blend(dst[2], p & 0xff, a);
	}
}

/* the OSD plane scaled to the output (bilinear) when the output is not 720x576 */
static int draw_osd(const uint32_t *osd, int out_w, int out_h, int bpp, uint8_t *dst,
		    int dst_stride)
{
	if (out_w == FFDVB_OSD_WIDTH && out_h == FFDVB_OSD_HEIGHT) {
		for (int y = 0; y < out_h; y++)
			blend_row(dst + (ptrdiff_t)y * dst_stride, osd + (size_t)y * FFDVB_OSD_WIDTH,
				  out_w, bpp);
		return 0;
	}
	/* AV_PIX_FMT_RGB32 is the host-order 0xAARRGGBB word */
	struct SwsContext *sws = sws_getContext(FFDVB_OSD_WIDTH, FFDVB_OSD_HEIGHT, AV_PIX_FMT_RGB32,
						out_w, out_h, AV_PIX_FMT_RGB32, SWS_BILINEAR,
						NULL, NULL, NULL);
	if (!sws)
		return -ENOMEM;
	uint8_t *tmp[4];
	int tmp_stride[4];
	int ret = av_image_alloc(tmp, tmp_stride, out_w, out_h, AV_PIX_FMT_RGB32, 64);
	if (ret >= 0) {
		const uint8_t *src[4] = { (const uint8_t *)osd };
		const int src_stride[4] = { FFDVB_OSD_WIDTH * 4 };
		sws_scale(sws, src, src_stride, 0, FFDVB_OSD_HEIGHT, tmp, tmp_stride);
		for (int y = 0; y < out_h; y++)
			blend_row(dst + (ptrdiff_t)y * dst_stride,
				  (const uint32_t *)(tmp[0] + (ptrdiff_t)y * tmp_stride[0]), out_w,
				  bpp);
		av_freep(&tmp[0]);
		ret = 0;
	}
	sws_freeContext(sws);
	return ret < 0 ? -ENOMEM : 0;
}

int compose_image(const AVFrame *frame, const struct ffdvb_picture_info *info,
		  const uint32_t *osd, int out_w, int out_h, enum AVPixelFormat dst_fmt,
		  uint8_t *dst, int dst_stride)
{
	if (out_w < 1 || out_h < 1 || out_w > MAX_SIDE || out_h > MAX_SIDE || !dst || !info)
		return -EINVAL;
	if (dst_fmt != AV_PIX_FMT_RGB24 && dst_fmt != AV_PIX_FMT_RGBA)
		return -EINVAL;
	int bpp = dst_fmt == AV_PIX_FMT_RGB24 ? 3 : 4;
	if (dst_stride < out_w * bpp)
		return -EINVAL;

	fill_black(dst, dst_stride, out_w, out_h, bpp);
	if (frame && !info->blank) {
		struct compose_geometry g;
		int ret = compose_check_frame(frame);
		if (!ret)
			ret = compose_geometry(frame, info, out_w, out_h, &g);
		if (!ret)
			ret = draw_picture(frame, &g, dst_fmt, bpp, dst, dst_stride);
		if (ret)
			return ret;
	}
	return osd ? draw_osd(osd, out_w, out_h, bpp, dst, dst_stride) : 0;
}
