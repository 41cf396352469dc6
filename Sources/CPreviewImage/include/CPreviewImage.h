// CPreviewImage: a small C shim over libjpeg-turbo, libpng, giflib and libwebp for PreviewImage.
//
// Why C: each of these libraries reports a fatal error by longjmp (libpng), by calling an error
// handler that must not return (libjpeg: its default one calls exit()), or by error codes
// (giflib, libwebp). setjmp cannot be used from Swift, so every call into libjpeg and libpng
// happens here, inside a function that has set its own jump point: a corrupt file becomes a
// `pi_error`, never a dead process.
//
// The shape is a row reader: open (reads the header, sets up the conversions), then one call per
// output row, then close. Swift drives the loop and downscales each row as it arrives, so a
// non-interlaced PNG or a JPEG is never held whole in memory.
#ifndef CPREVIEWIMAGE_H
#define CPREVIEWIMAGE_H

#include <stddef.h>
#include <stdint.h>

/// What went wrong; PictureError.Code in Swift mirrors these values.
enum {
  PI_OK = 0,
  /// Not this format, or a variant the library does not decode.
  PI_UNSUPPORTED = 1,
  /// The library refused the data.
  PI_CORRUPT = 2,
  /// The data ends before the picture does.
  PI_TRUNCATED = 3,
  /// Over the limits given (side or decoded bytes).
  PI_TOO_LARGE = 4,
  PI_NO_MEMORY = 5,
  /// The format's library is not installed (it is opened on first use; the message names the
  /// package).
  PI_MISSING_LIBRARY = 6,
};

typedef struct pi_error {
  int32_t code;
  /// The library's own words, NUL-terminated (may be empty).
  char message[200];
} pi_error;

typedef struct pi_limits {
  uint32_t max_side;
  uint64_t max_bytes;
} pi_limits;

/// The rows a decoder hands out: `width * channels` bytes each, 8 bits a sample, RGB (3) or
/// RGBA (4, straight alpha).
typedef struct pi_geometry {
  uint32_t width;
  uint32_t height;
  uint32_t channels;
} pi_geometry;

typedef struct pi_decoder pi_decoder;

/// A JPEG, decoded at `scale_denom` (1, 2, 4 or 8): libjpeg-turbo's DCT scaling gives rows of
/// ceil(width / scale_denom) pixels. Gray, RGB, YCbCr, CMYK and YCCK come out as RGB.
pi_decoder *pi_jpeg_open(const uint8_t *bytes, size_t length, uint32_t scale_denom, pi_limits limits,
                         pi_geometry *geometry, pi_error *error);
/// A PNG of any color type and depth: palette, gray and 16-bit are expanded or reduced to 8-bit RGB;
/// alpha and tRNS give RGBA. Interlaced PNGs are decoded whole at open (Adam7 needs every pass).
pi_decoder *pi_png_open(const uint8_t *bytes, size_t length, pi_limits limits, pi_geometry *geometry,
                        pi_error *error);
/// The first frame of a GIF on its logical screen, as RGBA (transparent outside the frame).
pi_decoder *pi_gif_open(const uint8_t *bytes, size_t length, pi_limits limits, pi_geometry *geometry,
                        pi_error *error);
/// A WebP (lossy, lossless, with alpha; the first frame of an animation). `scaled_width` and
/// `scaled_height`, when not 0, ask libwebp's own area-averaging rescaler for that size.
pi_decoder *pi_webp_open(const uint8_t *bytes, size_t length, uint32_t scaled_width, uint32_t scaled_height,
                         pi_limits limits, pi_geometry *geometry, pi_error *error);

/// Writes the next row (`width * channels` bytes) into `row`. Returns PI_OK or an error code
/// (then `error` says why; the decoder may only be closed).
int32_t pi_read_row(pi_decoder *decoder, uint8_t *row, pi_error *error);

/// How many warnings the library gave so far (libjpeg: corrupt or missing data it filled in).
uint32_t pi_warnings(const pi_decoder *decoder);

void pi_close(pi_decoder *decoder);

#endif
