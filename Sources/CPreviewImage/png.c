// PNG through libpng, with error and read callbacks that keep libpng's longjmp inside this file.
#include "lazy.h"

#include <stdlib.h>

typedef struct pi_png {
  pi_decoder base;
  png_structp png;
  png_infop info;
  const uint8_t *bytes;
  size_t length;
  size_t offset;
  int32_t failure;
  char message[200];
  /// Interlaced PNGs only: the whole picture, decoded at open.
  uint8_t *image;
  png_bytep *rows;
  size_t row_bytes;
} pi_png;

static void pi_png_error(png_structp png, png_const_charp message) {
  pi_png *d = png_get_error_ptr(png);
  if (d->failure == PI_OK) d->failure = PI_CORRUPT;
  if (d->message[0] == 0) snprintf(d->message, sizeof d->message, "%s", message);
  png_longjmp(png, 1);
}

static void pi_png_warning(png_structp png, png_const_charp message) {
  (void)message;
  pi_png *d = png_get_error_ptr(png);
  d->base.warnings++;
}

static void pi_png_read(png_structp png, png_bytep out, size_t count) {
  pi_png *d = png_get_io_ptr(png);
  if (count > d->length - d->offset) {
    d->failure = PI_TRUNCATED;
    png_error(png, "the data ends before the picture does");
  }
  memcpy(out, d->bytes + d->offset, count);
  d->offset += count;
}

static void pi_png_close(pi_decoder *decoder) {
  pi_png *d = (pi_png *)decoder;
  if (d->png) png_destroy_read_struct(&d->png, d->info ? &d->info : NULL, NULL);
  free(d->image);
  free(d->rows);
  free(d);
}

static int32_t pi_png_read_row(pi_decoder *decoder, uint8_t *row, pi_error *error) {
  pi_png *d = (pi_png *)decoder;
  if (d->image) {
    memcpy(row, d->image + d->row_bytes * d->base.next_row, d->row_bytes);
    return PI_OK;
  }
  if (setjmp(png_jmpbuf(d->png))) {
    pi_fail(error, d->failure, d->message);
    return d->failure;
  }
  png_read_row(d->png, row, NULL);
  return PI_OK;
}

/// Chunks a preview never needs: libpng skips them (less work, less parser exposed).
static const png_byte pi_png_ignored_chunks[] = {
  'b', 'K', 'G', 'D', 0, 'c', 'H', 'R', 'M', 0, 'e', 'X', 'I', 'f', 0, 'g', 'A', 'M', 'A', 0,
  'h', 'I', 'S', 'T', 0, 'i', 'C', 'C', 'P', 0, 'i', 'T', 'X', 't', 0, 'o', 'F', 'F', 's', 0,
  'p', 'C', 'A', 'L', 0, 'p', 'H', 'Y', 's', 0, 's', 'B', 'I', 'T', 0, 's', 'C', 'A', 'L', 0,
  's', 'P', 'L', 'T', 0, 's', 'R', 'G', 'B', 0, 's', 'T', 'E', 'R', 0, 't', 'E', 'X', 't', 0,
  't', 'I', 'M', 'E', 0, 'z', 'T', 'X', 't', 0,
};

pi_decoder *pi_png_open(const uint8_t *bytes, size_t length, pi_limits limits, pi_geometry *geometry,
                        pi_error *error) {
  if (!pi_load_png(error)) return NULL;
  pi_png *d = calloc(1, sizeof *d);
  if (!d) {
    pi_fail(error, PI_NO_MEMORY, "out of memory");
    return NULL;
  }
  d->base.read_row = pi_png_read_row;
  d->base.close = pi_png_close;
  d->bytes = bytes;
  d->length = length;
  d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, d, pi_png_error, pi_png_warning);
  if (d->png) d->info = png_create_info_struct(d->png);
  if (!d->png || !d->info) {
    pi_fail(error, PI_NO_MEMORY, "out of memory");
    pi_png_close(&d->base);
    return NULL;
  }
  if (setjmp(png_jmpbuf(d->png))) {
    pi_fail(error, d->failure, d->message);
    pi_png_close(&d->base);
    return NULL;
  }
  png_set_read_fn(d->png, d, pi_png_read);
  // libpng's own default is 1,000,000 x 1,000,000 (pnglibconf.h): ours, checked at IHDR.
  png_set_user_limits(d->png, limits.max_side, limits.max_side);
  png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_NEVER, pi_png_ignored_chunks,
                              (int)(sizeof pi_png_ignored_chunks / 5));
  png_read_info(d->png, d->info);

  png_uint_32 width, height;
  int bit_depth, color_type, interlace;
  png_get_IHDR(d->png, d->info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
  int has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) || png_get_valid(d->png, d->info, PNG_INFO_tRNS);
  uint64_t source_channels = png_get_channels(d->png, d->info);
  uint64_t source_bytes = (source_channels * (uint64_t)bit_depth + 7) / 8;
  if (!pi_within_limits(width, height, source_bytes, limits, error)) {
    pi_png_close(&d->base);
    return NULL;
  }

  if (bit_depth == 16) png_set_strip_16(d->png);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(d->png);
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(d->png);
  if (png_get_valid(d->png, d->info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(d->png);
  if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(d->png);
  int passes = png_set_interlace_handling(d->png);
  png_read_update_info(d->png, d->info);

  d->base.geometry.width = width;
  d->base.geometry.height = height;
  d->base.geometry.channels = has_alpha ? 4 : 3;
  d->row_bytes = png_get_rowbytes(d->png, d->info);
  if (d->row_bytes != (size_t)width * d->base.geometry.channels) {
    pi_fail(error, PI_UNSUPPORTED, "unexpected row layout after conversion");
    pi_png_close(&d->base);
    return NULL;
  }
  if (passes > 1) {
    // Held by the decoder, so a longjmp out of png_read_image leaks nothing: close frees them.
    d->image = malloc(d->row_bytes * height);
    d->rows = malloc(sizeof(png_bytep) * height);
    if (!d->image || !d->rows) {
      pi_fail(error, PI_NO_MEMORY, "out of memory");
      pi_png_close(&d->base);
      return NULL;
    }
    for (png_uint_32 y = 0; y < height; y++) d->rows[y] = d->image + d->row_bytes * y;
    png_read_image(d->png, d->rows);
    free(d->rows);
    d->rows = NULL;
  }
  *geometry = d->base.geometry;
  return &d->base;
}
