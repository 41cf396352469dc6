// The first frame of a GIF through giflib (error codes, no longjmp), composed on its logical screen.
#include "lazy.h"

#include <stdlib.h>

typedef struct pi_gif {
  pi_decoder base;
  const uint8_t *bytes;
  size_t length;
  size_t offset;
  /// The frame's palette indices, frame_width * frame_height.
  uint8_t *indices;
  uint32_t frame_left, frame_top, frame_width, frame_height;
  int transparent;  // -1: none
  GifColorType colors[256];
  int color_count;
} pi_gif;

static int pi_gif_input(GifFileType *gif, GifByteType *out, int count) {
  pi_gif *d = gif->UserData;
  size_t left = d->length - d->offset;
  size_t n = count < 0 ? 0 : (size_t)count < left ? (size_t)count : left;
  memcpy(out, d->bytes + d->offset, n);
  d->offset += n;
  return (int)n;
}

static void pi_gif_close(pi_decoder *decoder) {
  pi_gif *d = (pi_gif *)decoder;
  free(d->indices);
  free(d);
}

static int32_t pi_gif_code(int gif_error) {
  switch (gif_error) {
  case D_GIF_ERR_READ_FAILED:
  case D_GIF_ERR_EOF_TOO_SOON: return PI_TRUNCATED;
  case D_GIF_ERR_NOT_ENOUGH_MEM: return PI_NO_MEMORY;
  case D_GIF_ERR_NOT_GIF_FILE: return PI_UNSUPPORTED;
  default: return PI_CORRUPT;
  }
}

static void pi_gif_fail(pi_error *error, int gif_error) {
  const char *message = GifErrorString(gif_error);
  pi_fail(error, pi_gif_code(gif_error), message ? message : "GIF error");
}

static int32_t pi_gif_read_row(pi_decoder *decoder, uint8_t *row, pi_error *error) {
  (void)error;
  pi_gif *d = (pi_gif *)decoder;
  uint32_t y = d->base.next_row;
  uint32_t width = d->base.geometry.width;
  memset(row, 0, (size_t)width * 4);
  if (y < d->frame_top || y >= d->frame_top + d->frame_height) return PI_OK;
  const uint8_t *line = d->indices + (size_t)(y - d->frame_top) * d->frame_width;
  for (uint32_t fx = 0; fx < d->frame_width; fx++) {
    uint32_t x = d->frame_left + fx;
    int index = line[fx];
    if (x >= width || index == d->transparent) continue;
    uint8_t *p = row + (size_t)x * 4;
    if (index < d->color_count) {
      p[0] = d->colors[index].Red;
      p[1] = d->colors[index].Green;
      p[2] = d->colors[index].Blue;
    }
    p[3] = 255;
  }
  return PI_OK;
}

/// Reads records up to the first image: its graphic control extension (transparency) and its
/// lines (in GIF's four interlace passes when it is interlaced).
static int pi_gif_first_frame(pi_gif *d, GifFileType *gif, pi_limits limits, pi_error *error) {
  for (;;) {
    GifRecordType record;
    if (DGifGetRecordType(gif, &record) == GIF_ERROR) {
      pi_gif_fail(error, gif->Error);
      return 0;
    }
    if (record == TERMINATE_RECORD_TYPE) {
      pi_fail(error, PI_CORRUPT, "the GIF has no image");
      return 0;
    }
    if (record == EXTENSION_RECORD_TYPE) {
      int code;
      GifByteType *extension;
      if (DGifGetExtension(gif, &code, &extension) == GIF_ERROR) {
        pi_gif_fail(error, gif->Error);
        return 0;
      }
      if (code == GRAPHICS_EXT_FUNC_CODE && extension && extension[0] >= 4) {
        d->transparent = (extension[1] & 1) ? extension[4] : -1;
      }
      while (extension) {
        if (DGifGetExtensionNext(gif, &extension) == GIF_ERROR) {
          pi_gif_fail(error, gif->Error);
          return 0;
        }
      }
      continue;
    }
    if (record != IMAGE_DESC_RECORD_TYPE) continue;
    if (DGifGetImageDesc(gif) == GIF_ERROR) {
      pi_gif_fail(error, gif->Error);
      return 0;
    }
    GifImageDesc *desc = &gif->Image;
    if (desc->Left < 0 || desc->Top < 0 || desc->Width <= 0 || desc->Height <= 0) {
      pi_fail(error, PI_CORRUPT, "the GIF frame has no pixels");
      return 0;
    }
    d->frame_left = (uint32_t)desc->Left;
    d->frame_top = (uint32_t)desc->Top;
    d->frame_width = (uint32_t)desc->Width;
    d->frame_height = (uint32_t)desc->Height;
    if (!pi_within_limits(d->frame_width, d->frame_height, 1, limits, error)) return 0;
    ColorMapObject *map = desc->ColorMap ? desc->ColorMap : gif->SColorMap;
    if (!map) {
      pi_fail(error, PI_CORRUPT, "the GIF has no color table");
      return 0;
    }
    d->color_count = map->ColorCount < 256 ? map->ColorCount : 256;
    memcpy(d->colors, map->Colors, sizeof(GifColorType) * (size_t)d->color_count);
    d->indices = malloc((size_t)d->frame_width * d->frame_height);
    if (!d->indices) {
      pi_fail(error, PI_NO_MEMORY, "out of memory");
      return 0;
    }
    static const uint32_t starts[] = {0, 4, 2, 1}, steps[] = {8, 8, 4, 2};
    int passes = desc->Interlace ? 4 : 1;
    for (int pass = 0; pass < passes; pass++) {
      uint32_t start = desc->Interlace ? starts[pass] : 0, step = desc->Interlace ? steps[pass] : 1;
      for (uint32_t y = start; y < d->frame_height; y += step) {
        if (DGifGetLine(gif, d->indices + (size_t)y * d->frame_width, (int)d->frame_width) == GIF_ERROR) {
          pi_gif_fail(error, gif->Error);
          return 0;
        }
      }
    }
    return 1;
  }
}

pi_decoder *pi_gif_open(const uint8_t *bytes, size_t length, pi_limits limits, pi_geometry *geometry,
                        pi_error *error) {
  if (!pi_load_gif(error)) return NULL;
  pi_gif *d = calloc(1, sizeof *d);
  if (!d) {
    pi_fail(error, PI_NO_MEMORY, "out of memory");
    return NULL;
  }
  d->base.read_row = pi_gif_read_row;
  d->base.close = pi_gif_close;
  d->bytes = bytes;
  d->length = length;
  d->transparent = -1;
  int gif_error = 0;
  GifFileType *gif = DGifOpen(d, pi_gif_input, &gif_error);
  if (!gif) {
    pi_gif_fail(error, gif_error);
    pi_gif_close(&d->base);
    return NULL;
  }
  // The logical screen may be smaller than the frame (or 0 x 0) in GIFs found in the wild.
  int ok = pi_within_limits(gif->SWidth > 0 ? (uint64_t)gif->SWidth : 1, gif->SHeight > 0 ? (uint64_t)gif->SHeight : 1,
                            1, limits, error) &&
           pi_gif_first_frame(d, gif, limits, error);
  uint64_t width = gif->SWidth > 0 ? (uint64_t)gif->SWidth : 0;
  uint64_t height = gif->SHeight > 0 ? (uint64_t)gif->SHeight : 0;
  DGifCloseFile(gif, &gif_error);
  if (ok) {
    if (width < (uint64_t)d->frame_left + d->frame_width) width = (uint64_t)d->frame_left + d->frame_width;
    if (height < (uint64_t)d->frame_top + d->frame_height) height = (uint64_t)d->frame_top + d->frame_height;
    ok = pi_within_limits(width, height, 1, limits, error);
  }
  if (!ok) {
    pi_gif_close(&d->base);
    return NULL;
  }
  d->base.geometry.width = (uint32_t)width;
  d->base.geometry.height = (uint32_t)height;
  d->base.geometry.channels = 4;
  *geometry = d->base.geometry;
  return &d->base;
}
