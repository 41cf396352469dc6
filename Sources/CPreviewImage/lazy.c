// Opening the decoding libraries on first use: lazy.h says why.
#define PI_LAZY_LOADER
#include "lazy.h"

#include <dlfcn.h>
#include <pthread.h>

pi_jpeg_api pi_jpeg_lib;
pi_png_api pi_png_lib;
pi_gif_api pi_gif_lib;
pi_webp_api pi_webp_lib;

static pthread_mutex_t pi_lazy_lock = PTHREAD_MUTEX_INITIALIZER;

/// dlopen `soname` (kept open for the process's life) and dlsym each name into `api`, all or
/// nothing. The caller holds the lock.
static int pi_open_library(const char *soname, const char *package, const char *const *names, void **slots,
                           size_t count, pi_error *error) {
  void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    char message[sizeof error->message];
    snprintf(message, sizeof message, "%s is not installed (install %s)", soname, package);
    pi_fail(error, PI_MISSING_LIBRARY, message);
    return 0;
  }
  for (size_t i = 0; i < count; i++) {
    void *symbol = dlsym(handle, names[i]);
    if (!symbol) {
      char message[sizeof error->message];
      snprintf(message, sizeof message, "%s has no %s (a different version: install %s)", soname, names[i], package);
      pi_fail(error, PI_MISSING_LIBRARY, message);
      for (size_t j = 0; j < i; j++) slots[j] = NULL;
      dlclose(handle);
      return 0;
    }
    slots[i] = symbol;
  }
  return 1;
}

#define PI_NAME(name) #name,
#define PI_COUNT(name) +1

// The structs are read as arrays of pointers: one pointer per name, nothing else.
_Static_assert(sizeof(pi_jpeg_api) == sizeof(void *) * (0 PI_JPEG_SYMBOLS(PI_COUNT)), "pi_jpeg_api");
_Static_assert(sizeof(pi_png_api) == sizeof(void *) * (0 PI_PNG_SYMBOLS(PI_COUNT)), "pi_png_api");
_Static_assert(sizeof(pi_gif_api) == sizeof(void *) * (0 PI_GIF_SYMBOLS(PI_COUNT)), "pi_gif_api");
_Static_assert(sizeof(pi_webp_api) == sizeof(void *) * (0 PI_WEBP_SYMBOLS(PI_COUNT) PI_WEBPDEMUX_SYMBOLS(PI_COUNT)),
               "pi_webp_api");

// Each api struct is an array of function pointers, in the order of its list.
#define PI_DEFINE_LOADER(format, api, list, soname, package)                                             \
  int pi_load_##format(pi_error *error) {                                                                \
    static int loaded = 0;                                                                               \
    static const char *const names[] = {list(PI_NAME)};                                                  \
    pthread_mutex_lock(&pi_lazy_lock);                                                                   \
    int ok = loaded || (loaded = pi_open_library(soname, package, names, (void **)&api,                  \
                                                 0 list(PI_COUNT), error));                              \
    pthread_mutex_unlock(&pi_lazy_lock);                                                                 \
    return ok;                                                                                           \
  }

// The sonames the headers were compiled against (Debian 12/13's packages).
PI_DEFINE_LOADER(jpeg, pi_jpeg_lib, PI_JPEG_SYMBOLS, "libjpeg.so.62", "libjpeg62-turbo")
PI_DEFINE_LOADER(png, pi_png_lib, PI_PNG_SYMBOLS, "libpng16.so.16", "libpng16-16")
PI_DEFINE_LOADER(gif, pi_gif_lib, PI_GIF_SYMBOLS, "libgif.so.7", "libgif7")

int pi_load_webp(pi_error *error) {
  static int loaded = 0;
  static const char *const decode[] = {PI_WEBP_SYMBOLS(PI_NAME)};
  static const char *const demux[] = {PI_WEBPDEMUX_SYMBOLS(PI_NAME)};
  const size_t decodeCount = 0 PI_WEBP_SYMBOLS(PI_COUNT);
  pthread_mutex_lock(&pi_lazy_lock);
  if (!loaded) {
    void **slots = (void **)&pi_webp_lib;
    loaded = pi_open_library("libwebp.so.7", "libwebp7", decode, slots, decodeCount, error) &&
             pi_open_library("libwebpdemux.so.2", "libwebpdemux2", demux, slots + decodeCount,
                             0 PI_WEBPDEMUX_SYMBOLS(PI_COUNT), error);
  }
  int ok = loaded;
  pthread_mutex_unlock(&pi_lazy_lock);
  return ok;
}
