#include "CPreviewImageFixtures.h"

#include <setjmp.h>
#include <stdio.h>  // before jpeglib.h, which uses FILE
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>
#include <jpeglib.h>
#include <png.h>
#include <webp/encode.h>

void pif_free(pif_buffer *buffer) {
  free(buffer->bytes);
  memset(buffer, 0, sizeof *buffer);
}

static int pif_append(pif_buffer *b, const void *bytes, size_t length) {
  if (b->length + length > b->capacity) {
    size_t capacity = b->capacity ? b->capacity : 4096;
    while (capacity < b->length + length) capacity *= 2;
    uint8_t *grown = realloc(b->bytes, capacity);
    if (!grown) return 0;
    b->bytes = grown;
    b->capacity = capacity;
  }
  memcpy(b->bytes + b->length, bytes, length);
  b->length += length;
  return 1;
}

// MARK: PNG

static void pif_png_write(png_structp png, png_bytep bytes, size_t length) {
  if (!pif_append(png_get_io_ptr(png), bytes, length)) png_error(png, "out of memory");
}

static void pif_png_flush(png_structp png) { (void)png; }

int pif_write_png(const uint8_t *rows, uint32_t width, uint32_t height, int color_type, int bit_depth,
                  int interlaced, const uint8_t *palette, int palette_count, const uint8_t *trns, int trns_count,
                  pif_buffer *out) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  if (!png) return 0;
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return 0;
  }
  png_set_write_fn(png, out, pif_png_write, pif_png_flush);
  png_set_IHDR(png, info, width, height, bit_depth, color_type,
               interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  if (palette && palette_count > 0) {
    png_color entries[256];
    for (int i = 0; i < palette_count && i < 256; i++) {
      entries[i].red = palette[i * 3];
      entries[i].green = palette[i * 3 + 1];
      entries[i].blue = palette[i * 3 + 2];
    }
    png_set_PLTE(png, info, entries, palette_count);
  }
  if (trns && trns_count > 0) {
    if (color_type == PNG_COLOR_TYPE_PALETTE) {
      png_set_tRNS(png, info, trns, trns_count, NULL);
    } else {
      png_color_16 key = {0, 0, 0, 0, 0};
      key.gray = key.red = (png_uint_16)(trns[0] << 8 | trns[1]);
      if (trns_count >= 6) {
        key.green = (png_uint_16)(trns[2] << 8 | trns[3]);
        key.blue = (png_uint_16)(trns[4] << 8 | trns[5]);
      }
      png_set_tRNS(png, info, NULL, 0, &key);
    }
  }
  png_write_info(png, info);
  size_t row_bytes = png_get_rowbytes(png, info);
  png_bytep *pointers = malloc(sizeof(png_bytep) * height);
  if (!pointers) png_error(png, "out of memory");
  for (uint32_t y = 0; y < height; y++) pointers[y] = (png_bytep)rows + row_bytes * y;
  png_write_image(png, pointers);
  free(pointers);
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  return 1;
}

// MARK: JPEG

typedef struct pif_jpeg_error {
  struct jpeg_error_mgr manager;
  jmp_buf jump;
} pif_jpeg_error;

static void pif_jpeg_error_exit(j_common_ptr cinfo) { longjmp(((pif_jpeg_error *)cinfo->err)->jump, 1); }

int pif_write_jpeg(const uint8_t *pixels, uint32_t width, uint32_t height, int components, int quality,
                   int progressive, const uint8_t *app1, size_t app1_length, pif_buffer *out) {
  struct jpeg_compress_struct cinfo;
  pif_jpeg_error error;
  unsigned char *bytes = NULL;
  unsigned long length = 0;
  cinfo.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = pif_jpeg_error_exit;
  if (setjmp(error.jump)) {
    jpeg_destroy_compress(&cinfo);
    free(bytes);
    return 0;
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, &bytes, &length);
  cinfo.image_width = width;
  cinfo.image_height = height;
  cinfo.input_components = components;
  cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : components == 4 ? JCS_CMYK : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  if (progressive) jpeg_simple_progression(&cinfo);
  jpeg_start_compress(&cinfo, TRUE);
  if (app1) jpeg_write_marker(&cinfo, JPEG_APP0 + 1, app1, (unsigned int)app1_length);
  size_t stride = (size_t)width * (size_t)components;
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = (JSAMPROW)(pixels + stride * cinfo.next_scanline);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  int ok = pif_append(out, bytes, length);
  free(bytes);
  return ok;
}

// MARK: GIF

static int pif_gif_write(GifFileType *gif, const GifByteType *bytes, int length) {
  return pif_append(gif->UserData, bytes, (size_t)length) ? length : 0;
}

int pif_write_gif(const uint8_t *indices, uint32_t width, uint32_t height, const uint8_t *colors, int color_count,
                  int transparent, int interlaced, pif_buffer *out) {
  int error = 0;
  GifFileType *gif = EGifOpen(out, pif_gif_write, &error);
  if (!gif) return 0;
  ColorMapObject *map = GifMakeMapObject(color_count, NULL);
  if (!map) {
    EGifCloseFile(gif, &error);
    return 0;
  }
  for (int i = 0; i < color_count; i++) {
    map->Colors[i].Red = colors[i * 3];
    map->Colors[i].Green = colors[i * 3 + 1];
    map->Colors[i].Blue = colors[i * 3 + 2];
  }
  EGifSetGifVersion(gif, true);
  int ok = EGifPutScreenDesc(gif, (int)width, (int)height, map->BitsPerPixel, 0, map) == GIF_OK;
  if (ok && transparent >= 0) {
    GifByteType control[4] = {1, 0, 0, (GifByteType)transparent};
    ok = EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, control) == GIF_OK;
  }
  ok = ok && EGifPutImageDesc(gif, 0, 0, (int)width, (int)height, interlaced, NULL) == GIF_OK;
  static const uint32_t starts[] = {0, 4, 2, 1}, steps[] = {8, 8, 4, 2};
  for (int pass = 0; ok && pass < (interlaced ? 4 : 1); pass++) {
    uint32_t start = interlaced ? starts[pass] : 0, step = interlaced ? steps[pass] : 1;
    for (uint32_t y = start; ok && y < height; y += step) {
      ok = EGifPutLine(gif, (GifPixelType *)indices + (size_t)y * width, (int)width) == GIF_OK;
    }
  }
  GifFreeMapObject(map);
  if (EGifCloseFile(gif, &error) != GIF_OK) ok = 0;
  return ok;
}

// MARK: WebP

int pif_write_webp(const uint8_t *pixels, uint32_t width, uint32_t height, int has_alpha, int lossless,
                   float quality, pif_buffer *out) {
  uint8_t *bytes = NULL;
  int stride = (int)width * (has_alpha ? 4 : 3);
  size_t length;
  if (lossless) {
    length = has_alpha ? WebPEncodeLosslessRGBA(pixels, (int)width, (int)height, stride, &bytes)
                       : WebPEncodeLosslessRGB(pixels, (int)width, (int)height, stride, &bytes);
  } else {
    length = has_alpha ? WebPEncodeRGBA(pixels, (int)width, (int)height, stride, quality, &bytes)
                       : WebPEncodeRGB(pixels, (int)width, (int)height, stride, quality, &bytes);
  }
  if (length == 0) return 0;
  int ok = pif_append(out, bytes, length);
  WebPFree(bytes);
  return ok;
}
