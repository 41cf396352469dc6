// JPEG through libjpeg-turbo, with an error handler that longjmps instead of calling exit().
#include "lazy.h"

#include <limits.h>
#include <setjmp.h>
#include <stdlib.h>

/// djpeg's -maxscans and TurboJPEG's TJPARAM_SCANLIMIT: a progressive JPEG of thousands of tiny
/// scans costs seconds of CPU on a few KB of input.
#define PI_JPEG_MAX_SCANS 500

typedef struct pi_jpeg {
  pi_decoder base;
  struct jpeg_decompress_struct cinfo;
  struct jpeg_error_mgr manager;
  struct jpeg_progress_mgr progress;
  jmp_buf jump;
  int32_t failure;  // the pi code of the error being thrown
  int inverted_cmyk;
  uint8_t *cmyk_row;
} pi_jpeg;

static void pi_jpeg_error_exit(j_common_ptr cinfo) {
  pi_jpeg *d = (pi_jpeg *)cinfo->client_data;
  if (d->failure == PI_OK) d->failure = PI_CORRUPT;
  longjmp(d->jump, 1);
}

/// Warnings (corrupt data libjpeg filled in, a premature end) are counted, never printed.
static void pi_jpeg_emit_message(j_common_ptr cinfo, int level) {
  if (level < 0) {
    pi_jpeg *d = (pi_jpeg *)cinfo->client_data;
    d->base.warnings++;
    cinfo->err->num_warnings++;
  }
}

static void pi_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void pi_jpeg_progress(j_common_ptr cinfo) {
  pi_jpeg *d = (pi_jpeg *)cinfo->client_data;
  if (cinfo->is_decompressor && ((j_decompress_ptr)cinfo)->input_scan_number > PI_JPEG_MAX_SCANS) {
    d->failure = PI_TOO_LARGE;
    longjmp(d->jump, 1);
  }
}

static void pi_jpeg_report(pi_jpeg *d, pi_error *error) {
  char message[JMSG_LENGTH_MAX] = "";
  if (d->failure == PI_TOO_LARGE && d->cinfo.input_scan_number > PI_JPEG_MAX_SCANS) {
    snprintf(message, sizeof message, "more than %d progressive scans", PI_JPEG_MAX_SCANS);
  } else {
    d->manager.format_message((j_common_ptr)&d->cinfo, message);
  }
  pi_fail(error, d->failure, message);
}

static void pi_jpeg_close(pi_decoder *decoder) {
  pi_jpeg *d = (pi_jpeg *)decoder;
  jpeg_destroy_decompress(&d->cinfo);
  free(d->cmyk_row);
  free(d);
}

/// Adobe's CMYK JPEGs (the ones Photoshop writes, with an APP14 marker) store inverted values.
static void pi_cmyk_to_rgb(const uint8_t *cmyk, uint8_t *rgb, uint32_t width, int inverted) {
  for (uint32_t x = 0; x < width; x++) {
    unsigned c = cmyk[0], m = cmyk[1], y = cmyk[2], k = cmyk[3];
    if (!inverted) {
      c = 255 - c;
      m = 255 - m;
      y = 255 - y;
      k = 255 - k;
    }
    rgb[0] = (uint8_t)((c * k + 127) / 255);
    rgb[1] = (uint8_t)((m * k + 127) / 255);
    rgb[2] = (uint8_t)((y * k + 127) / 255);
    cmyk += 4;
    rgb += 3;
  }
}

static int32_t pi_jpeg_read_row(pi_decoder *decoder, uint8_t *row, pi_error *error) {
  pi_jpeg *d = (pi_jpeg *)decoder;
  if (setjmp(d->jump)) {
    pi_jpeg_report(d, error);
    return d->failure;
  }
  JSAMPROW target = d->cmyk_row ? d->cmyk_row : row;
  if (jpeg_read_scanlines(&d->cinfo, &target, 1) != 1) {
    pi_fail(error, PI_TRUNCATED, "no more scanlines");
    return PI_TRUNCATED;
  }
  if (d->cmyk_row) pi_cmyk_to_rgb(d->cmyk_row, row, d->base.geometry.width, d->inverted_cmyk);
  return PI_OK;
}

pi_decoder *pi_jpeg_open(const uint8_t *bytes, size_t length, uint32_t scale_denom, pi_limits limits,
                         pi_geometry *geometry, pi_error *error) {
  if (!pi_load_jpeg(error)) return NULL;
  pi_jpeg *d = calloc(1, sizeof *d);
  if (!d) {
    pi_fail(error, PI_NO_MEMORY, "out of memory");
    return NULL;
  }
  d->base.read_row = pi_jpeg_read_row;
  d->base.close = pi_jpeg_close;
  d->cinfo.err = jpeg_std_error(&d->manager);
  d->manager.error_exit = pi_jpeg_error_exit;
  d->manager.emit_message = pi_jpeg_emit_message;
  d->manager.output_message = pi_jpeg_output_message;
  d->cinfo.client_data = d;
  if (setjmp(d->jump)) {
    pi_jpeg_report(d, error);
    pi_jpeg_close(&d->base);
    return NULL;
  }
  jpeg_create_decompress(&d->cinfo);
  d->progress.progress_monitor = pi_jpeg_progress;
  d->cinfo.progress = &d->progress;
  // A progressive JPEG keeps every coefficient in memory: no more than the decoded-size limit.
  d->cinfo.mem->max_memory_to_use = (long)(limits.max_bytes > (uint64_t)LONG_MAX ? LONG_MAX : limits.max_bytes);
  jpeg_mem_src(&d->cinfo, bytes, (unsigned long)length);
  jpeg_read_header(&d->cinfo, TRUE);
  if (!pi_within_limits(d->cinfo.image_width, d->cinfo.image_height, (uint64_t)d->cinfo.num_components, limits,
                        error)) {
    pi_jpeg_close(&d->base);
    return NULL;
  }
  switch (d->cinfo.jpeg_color_space) {
  case JCS_CMYK:
  case JCS_YCCK:
    d->cinfo.out_color_space = JCS_CMYK;
    d->inverted_cmyk = d->cinfo.saw_Adobe_marker;
    break;
  default:
    // libjpeg-turbo converts gray to RGB itself.
    d->cinfo.out_color_space = JCS_RGB;
  }
  if (scale_denom != 2 && scale_denom != 4 && scale_denom != 8) scale_denom = 1;
  d->cinfo.scale_num = 1;
  d->cinfo.scale_denom = scale_denom;
  d->cinfo.dct_method = JDCT_IFAST;
  jpeg_start_decompress(&d->cinfo);
  if (d->cinfo.out_color_space == JCS_CMYK) {
    d->cmyk_row = malloc((size_t)d->cinfo.output_width * 4);
    if (!d->cmyk_row) {
      pi_fail(error, PI_NO_MEMORY, "out of memory");
      pi_jpeg_close(&d->base);
      return NULL;
    }
  }
  d->base.geometry.width = d->cinfo.output_width;
  d->base.geometry.height = d->cinfo.output_height;
  d->base.geometry.channels = 3;
  *geometry = d->base.geometry;
  return &d->base;
}
