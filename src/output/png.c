/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PNG files of the composited picture, encoded by libavcodec's PNG encoder. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>

#include "output_internal.h"

static int encode(const uint8_t *rgb, int stride, int w, int h, AVPacket *pkt)
{
	const AVCodec *codec = avcodec_find_encoder(AV_CODEC_ID_PNG);
	if (!codec)
		return -ENOSYS;
	int ret;
	AVCodecContext *ctx = avcodec_alloc_context3(codec);
	AVFrame *frame = av_frame_alloc();
	if (!ctx || !frame) {
		ret = AVERROR(ENOMEM);
		goto free_all;
	}
	ctx->width = w;
	ctx->height = h;
	ctx->pix_fmt = AV_PIX_FMT_RGB24;
	ctx->time_base = (AVRational){ 1, 25 };
	ret = avcodec_open2(ctx, codec, NULL);
	if (ret < 0)
		goto free_all;
	/* not reference-counted: the encoder takes its own copy */
	frame->format = AV_PIX_FMT_RGB24;
	frame->width = w;
	frame->height = h;
	frame->data[0] = (uint8_t *)rgb;
	frame->linesize[0] = stride;
	ret = avcodec_send_frame(ctx, frame);
	if (ret >= 0)
		ret = avcodec_receive_packet(ctx, pkt);
free_all:
	av_frame_free(&frame);
	avcodec_free_context(&ctx);
	/* libavcodec's errors are -errno or tags; tags become EIO */
	return ret >= 0 ? 0 : ret > -4096 ? ret : -EIO;
}

static int write_packet(FILE *f, const void *ctx)
{
	const AVPacket *pkt = ctx;

	return fwrite(pkt->data, 1, (size_t)pkt->size, f) == (size_t)pkt->size ? 0 : -EIO;
}

int png_write_rgb24(const char *path, const uint8_t *rgb, int stride, int w, int h)
{
	if (!path || !rgb || w < 1 || h < 1 || stride < 3 * w)
		return -EINVAL;
	AVPacket *pkt = av_packet_alloc();
	if (!pkt)
		return -ENOMEM;
	int ret = encode(rgb, stride, w, h, pkt);
	if (ret)
		goto free_pkt;

	ret = output_write_atomic(path, write_packet, pkt);
free_pkt:
	av_packet_free(&pkt);
	return ret;
}

int png_encode_rgb24(const uint8_t *rgb, int stride, int w, int h, uint8_t **png, size_t *len)
{
	if (!rgb || !png || !len || w < 1 || h < 1 || stride < 3 * w)
		return -EINVAL;
	AVPacket *pkt = av_packet_alloc();
	if (!pkt)
		return -ENOMEM;
	int ret = encode(rgb, stride, w, h, pkt);
	if (!ret && !(*png = malloc((size_t)pkt->size)))
		ret = -ENOMEM;
	if (!ret) {
		memcpy(*png, pkt->data, (size_t)pkt->size);
		*len = (size_t)pkt->size;
	}
	av_packet_free(&pkt);
	return ret;
}
