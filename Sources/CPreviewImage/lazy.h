// The decoding libraries, loaded on first use (dlopen) rather than by the dynamic loader at launch.
//
// Linked the usual way, libjpeg, libpng, giflib, libwebp and libwebpdemux were mapped and
// relocated before `main` on every launch — `folio ls` and the first screen included — for the
// few launches that preview a picture: about 64 page faults and 0.7 ms of CPU each time
// (docs/BENCHMARKS.md), and a machine without one of them could not start Folio at all. Now each
// library is opened the first time a picture of its format is decoded; a missing one is a
// PI_MISSING_LIBRARY error naming the package, shown in the pane instead of the picture.
//
// The decoders' sources call the libraries by their own names: below, each name becomes the
// function pointer resolved by dlsym (the pointer has the header's own prototype, so every call
// is type-checked as before). The lists are the symbols the objects referenced when linked
// (`nm -u`); a new call into a library adds its name to the list and to the #defines.
#ifndef PI_LAZY_H
#define PI_LAZY_H

#include "decoder.h"

#include <setjmp.h>
#include <stdio.h>

#include <gif_lib.h>
#include <jpeglib.h>
#include <png.h>
#include <webp/decode.h>
#include <webp/demux.h>

#define PI_JPEG_SYMBOLS(X)                                                                               \
  X(jpeg_CreateDecompress) X(jpeg_destroy_decompress) X(jpeg_mem_src) X(jpeg_read_header)                \
  X(jpeg_read_scanlines) X(jpeg_start_decompress) X(jpeg_std_error)
#define PI_PNG_SYMBOLS(X)                                                                                \
  X(png_create_info_struct) X(png_create_read_struct) X(png_destroy_read_struct) X(png_error)            \
  X(png_get_IHDR) X(png_get_channels) X(png_get_error_ptr) X(png_get_io_ptr) X(png_get_rowbytes)         \
  X(png_get_valid) X(png_longjmp) X(png_read_image) X(png_read_info) X(png_read_row)                     \
  X(png_read_update_info) X(png_set_expand_gray_1_2_4_to_8) X(png_set_gray_to_rgb)                       \
  X(png_set_interlace_handling) X(png_set_keep_unknown_chunks) X(png_set_longjmp_fn)                     \
  X(png_set_palette_to_rgb) X(png_set_read_fn) X(png_set_strip_16) X(png_set_tRNS_to_alpha)              \
  X(png_set_user_limits)
#define PI_GIF_SYMBOLS(X)                                                                                \
  X(DGifCloseFile) X(DGifGetExtension) X(DGifGetExtensionNext) X(DGifGetImageDesc) X(DGifGetLine)        \
  X(DGifGetRecordType) X(DGifOpen) X(GifErrorString)
#define PI_WEBP_SYMBOLS(X)                                                                               \
  X(WebPDecode) X(WebPFreeDecBuffer) X(WebPGetFeaturesInternal) X(WebPInitDecoderConfigInternal)
#define PI_WEBPDEMUX_SYMBOLS(X)                                                                          \
  X(WebPDemuxDelete) X(WebPDemuxGetFrame) X(WebPDemuxInternal) X(WebPDemuxReleaseIterator)

#define PI_POINTER(name) __typeof__(&name) name;
typedef struct pi_jpeg_api { PI_JPEG_SYMBOLS(PI_POINTER) } pi_jpeg_api;
typedef struct pi_png_api { PI_PNG_SYMBOLS(PI_POINTER) } pi_png_api;
typedef struct pi_gif_api { PI_GIF_SYMBOLS(PI_POINTER) } pi_gif_api;
typedef struct pi_webp_api { PI_WEBP_SYMBOLS(PI_POINTER) PI_WEBPDEMUX_SYMBOLS(PI_POINTER) } pi_webp_api;
#undef PI_POINTER

extern pi_jpeg_api pi_jpeg_lib;
extern pi_png_api pi_png_lib;
extern pi_gif_api pi_gif_lib;
extern pi_webp_api pi_webp_lib;

/// Opens the library (once; thread-safe) and resolves its functions. Returns 1, or 0 with `error`
/// set to PI_MISSING_LIBRARY and the package to install. A failure is tried again next time (the
/// package may have been installed meanwhile).
int pi_load_jpeg(pi_error *error);
int pi_load_png(pi_error *error);
int pi_load_gif(pi_error *error);
int pi_load_webp(pi_error *error);

#ifndef PI_LAZY_LOADER
#define jpeg_CreateDecompress pi_jpeg_lib.jpeg_CreateDecompress
#define jpeg_destroy_decompress pi_jpeg_lib.jpeg_destroy_decompress
#define jpeg_mem_src pi_jpeg_lib.jpeg_mem_src
#define jpeg_read_header pi_jpeg_lib.jpeg_read_header
#define jpeg_read_scanlines pi_jpeg_lib.jpeg_read_scanlines
#define jpeg_start_decompress pi_jpeg_lib.jpeg_start_decompress
#define jpeg_std_error pi_jpeg_lib.jpeg_std_error

#define png_create_info_struct pi_png_lib.png_create_info_struct
#define png_create_read_struct pi_png_lib.png_create_read_struct
#define png_destroy_read_struct pi_png_lib.png_destroy_read_struct
#define png_error pi_png_lib.png_error
#define png_get_IHDR pi_png_lib.png_get_IHDR
#define png_get_channels pi_png_lib.png_get_channels
#define png_get_error_ptr pi_png_lib.png_get_error_ptr
#define png_get_io_ptr pi_png_lib.png_get_io_ptr
#define png_get_rowbytes pi_png_lib.png_get_rowbytes
#define png_get_valid pi_png_lib.png_get_valid
#define png_longjmp pi_png_lib.png_longjmp
#define png_read_image pi_png_lib.png_read_image
#define png_read_info pi_png_lib.png_read_info
#define png_read_row pi_png_lib.png_read_row
#define png_read_update_info pi_png_lib.png_read_update_info
#define png_set_expand_gray_1_2_4_to_8 pi_png_lib.png_set_expand_gray_1_2_4_to_8
#define png_set_gray_to_rgb pi_png_lib.png_set_gray_to_rgb
#define png_set_interlace_handling pi_png_lib.png_set_interlace_handling
#define png_set_keep_unknown_chunks pi_png_lib.png_set_keep_unknown_chunks
#define png_set_longjmp_fn pi_png_lib.png_set_longjmp_fn
#define png_set_palette_to_rgb pi_png_lib.png_set_palette_to_rgb
#define png_set_read_fn pi_png_lib.png_set_read_fn
#define png_set_strip_16 pi_png_lib.png_set_strip_16
#define png_set_tRNS_to_alpha pi_png_lib.png_set_tRNS_to_alpha
#define png_set_user_limits pi_png_lib.png_set_user_limits

#define DGifCloseFile pi_gif_lib.DGifCloseFile
#define DGifGetExtension pi_gif_lib.DGifGetExtension
#define DGifGetExtensionNext pi_gif_lib.DGifGetExtensionNext
#define DGifGetImageDesc pi_gif_lib.DGifGetImageDesc
#define DGifGetLine pi_gif_lib.DGifGetLine
#define DGifGetRecordType pi_gif_lib.DGifGetRecordType
#define DGifOpen pi_gif_lib.DGifOpen
#define GifErrorString pi_gif_lib.GifErrorString

#define WebPDecode pi_webp_lib.WebPDecode
#define WebPFreeDecBuffer pi_webp_lib.WebPFreeDecBuffer
#define WebPGetFeaturesInternal pi_webp_lib.WebPGetFeaturesInternal
#define WebPInitDecoderConfigInternal pi_webp_lib.WebPInitDecoderConfigInternal
#define WebPDemuxDelete pi_webp_lib.WebPDemuxDelete
#define WebPDemuxGetFrame pi_webp_lib.WebPDemuxGetFrame
#define WebPDemuxInternal pi_webp_lib.WebPDemuxInternal
#define WebPDemuxReleaseIterator pi_webp_lib.WebPDemuxReleaseIterator
#endif

#endif
