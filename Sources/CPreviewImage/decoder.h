// The decoder base every format's decoder starts with (internal to CPreviewImage).
#ifndef PI_DECODER_H
#define PI_DECODER_H

#include "CPreviewImage.h"

#include <stdio.h>
#include <string.h>

struct pi_decoder {
  int32_t (*read_row)(pi_decoder *decoder, uint8_t *row, pi_error *error);
  void (*close)(pi_decoder *decoder);
  pi_geometry geometry;
  uint32_t next_row;
  uint32_t warnings;
};

static inline void pi_fail(pi_error *error, int32_t code, const char *message) {
  if (!error) return;
  error->code = code;
  snprintf(error->message, sizeof error->message, "%s", message ? message : "");
}

/// Refuses a picture over the limits; width * height * bytes_per_pixel is what a full decode in
/// the source's own depth would take.
static inline int pi_within_limits(uint64_t width, uint64_t height, uint64_t bytes_per_pixel, pi_limits limits,
                                   pi_error *error) {
  if (width == 0 || height == 0) {
    pi_fail(error, PI_CORRUPT, "the picture has no pixels");
    return 0;
  }
  if (width > limits.max_side || height > limits.max_side ||
      width * height * bytes_per_pixel > limits.max_bytes) {
    char message[120];
    snprintf(message, sizeof message, "%llu x %llu pixels is over the limit", (unsigned long long)width,
             (unsigned long long)height);
    pi_fail(error, PI_TOO_LARGE, message);
    return 0;
  }
  return 1;
}

#endif
