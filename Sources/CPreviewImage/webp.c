// WebP through libwebp (status codes, no longjmp); an animation's first frame through libwebpdemux.
#include "lazy.h"

// The headers' inline wrappers (WebPInitDecoderConfig, WebPGetFeatures, WebPDemux) call the
// exported *Internal functions by name, which lazy.h cannot redirect: they are called here
// directly, with the ABI versions the wrappers pass.

#include <stdlib.h>

typedef struct pi_webp {
  pi_decoder base;
  WebPDecoderConfig config;
  int decoded;
} pi_webp;

static void pi_webp_close(pi_decoder *decoder) {
  pi_webp *d = (pi_webp *)decoder;
  if (d->decoded) WebPFreeDecBuffer(&d->config.output);
  free(d);
}

static int32_t pi_webp_read_row(pi_decoder *decoder, uint8_t *row, pi_error *error) {
  (void)error;
  pi_webp *d = (pi_webp *)decoder;
  const WebPRGBABuffer *buffer = &d->config.output.u.RGBA;
  memcpy(row, buffer->rgba + (size_t)buffer->stride * d->base.next_row,
         (size_t)d->base.geometry.width * d->base.geometry.channels);
  return PI_OK;
}

static void pi_webp_fail(pi_error *error, VP8StatusCode status) {
  switch (status) {
  case VP8_STATUS_NOT_ENOUGH_DATA: pi_fail(error, PI_TRUNCATED, "the data ends before the picture does"); break;
  case VP8_STATUS_OUT_OF_MEMORY: pi_fail(error, PI_NO_MEMORY, "out of memory"); break;
  case VP8_STATUS_UNSUPPORTED_FEATURE: pi_fail(error, PI_UNSUPPORTED, "a WebP feature libwebp does not decode"); break;
  default: pi_fail(error, PI_CORRUPT, "libwebp refused the bitstream");
  }
}

pi_decoder *pi_webp_open(const uint8_t *bytes, size_t length, uint32_t scaled_width, uint32_t scaled_height,
                         pi_limits limits, pi_geometry *geometry, pi_error *error) {
  if (!pi_load_webp(error)) return NULL;
  pi_webp *d = calloc(1, sizeof *d);
  if (!d || !WebPInitDecoderConfigInternal(&d->config, WEBP_DECODER_ABI_VERSION)) {
    free(d);
    pi_fail(error, PI_NO_MEMORY, "out of memory");
    return NULL;
  }
  d->base.read_row = pi_webp_read_row;
  d->base.close = pi_webp_close;
  VP8StatusCode status = WebPGetFeaturesInternal(bytes, length, &d->config.input, WEBP_DECODER_ABI_VERSION);
  WebPDemuxer *demux = NULL;
  WebPIterator frame;
  memset(&frame, 0, sizeof frame);
  if (status == VP8_STATUS_OK && d->config.input.has_animation) {
    // An animation: its first frame's bitstream, as a still picture.
    WebPData data = {bytes, length};
    demux = WebPDemuxInternal(&data, 0, NULL, WEBP_DEMUX_ABI_VERSION);
    if (!demux || !WebPDemuxGetFrame(demux, 1, &frame)) {
      if (demux) WebPDemuxDelete(demux);
      pi_fail(error, PI_CORRUPT, "the animated WebP has no readable first frame");
      pi_webp_close(&d->base);
      return NULL;
    }
    bytes = frame.fragment.bytes;
    length = frame.fragment.size;
    status = WebPGetFeaturesInternal(bytes, length, &d->config.input, WEBP_DECODER_ABI_VERSION);
  }
  int width = d->config.input.width, height = d->config.input.height;
  if (status == VP8_STATUS_OK &&
      !pi_within_limits((uint64_t)width, (uint64_t)height, d->config.input.has_alpha ? 4 : 3, limits, error)) {
    if (demux) {
      WebPDemuxReleaseIterator(&frame);
      WebPDemuxDelete(demux);
    }
    pi_webp_close(&d->base);
    return NULL;
  }
  if (status == VP8_STATUS_OK) {
    d->config.output.colorspace = d->config.input.has_alpha ? MODE_RGBA : MODE_RGB;
    if (scaled_width > 0 && scaled_height > 0 && (int)scaled_width < width && (int)scaled_height < height) {
      d->config.options.use_scaling = 1;
      d->config.options.scaled_width = (int)scaled_width;
      d->config.options.scaled_height = (int)scaled_height;
    }
    status = WebPDecode(bytes, length, &d->config);
    d->decoded = status == VP8_STATUS_OK;
  }
  if (demux) {
    WebPDemuxReleaseIterator(&frame);
    WebPDemuxDelete(demux);
  }
  if (status != VP8_STATUS_OK) {
    pi_webp_fail(error, status);
    pi_webp_close(&d->base);
    return NULL;
  }
  d->base.geometry.width = (uint32_t)d->config.output.width;
  d->base.geometry.height = (uint32_t)d->config.output.height;
  d->base.geometry.channels = d->config.input.has_alpha ? 4 : 3;
  *geometry = d->base.geometry;
  return &d->base;
}
