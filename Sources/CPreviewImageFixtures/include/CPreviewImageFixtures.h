// CPreviewImageFixtures: pictures written with the same libraries PreviewImage decodes with, for
// its tests and for folio-bench (no imagemagick needed). Not linked into `folio`.
#ifndef CPREVIEWIMAGEFIXTURES_H
#define CPREVIEWIMAGEFIXTURES_H

#include <stddef.h>
#include <stdint.h>

/// Bytes made by an encoder; free them with pif_free.
typedef struct pif_buffer {
  uint8_t *bytes;
  size_t length;
  size_t capacity;
} pif_buffer;

void pif_free(pif_buffer *buffer);

/// A PNG from rows already packed for `color_type` (libpng's PNG_COLOR_TYPE_* values) and
/// `bit_depth` (16-bit samples big-endian), `width * height` pixels. `palette` is RGB triples;
/// `trns` the tRNS chunk's bytes (alpha per palette entry, or a 16-bit gray/RGB key).
/// Returns 1 on success.
int pif_write_png(const uint8_t *rows, uint32_t width, uint32_t height, int color_type, int bit_depth,
                  int interlaced, const uint8_t *palette, int palette_count, const uint8_t *trns, int trns_count,
                  pif_buffer *out);

/// A baseline (or progressive) JPEG of `components` 1 (gray), 3 (RGB) or 4 (CMYK, stored as given
/// with Adobe's marker). `app1`, when not NULL, is written as an APP1 marker (EXIF).
int pif_write_jpeg(const uint8_t *pixels, uint32_t width, uint32_t height, int components, int quality,
                   int progressive, const uint8_t *app1, size_t app1_length, pif_buffer *out);

/// A one-frame GIF of palette indices; `transparent` -1 for none.
/// `colors` is RGB triples, `color_count` a power of two from 2 to 256.
int pif_write_gif(const uint8_t *indices, uint32_t width, uint32_t height, const uint8_t *colors, int color_count,
                  int transparent, int interlaced, pif_buffer *out);

/// A WebP of RGB (`has_alpha` 0) or RGBA pixels, lossless or at `quality`.
int pif_write_webp(const uint8_t *pixels, uint32_t width, uint32_t height, int has_alpha, int lossless,
                   float quality, pif_buffer *out);

#endif
