// libmagic, opened the first time a preview asks for a file's type rather than by the dynamic
// loader at every launch: linked the usual way, libmagic (and libbz2 through it) was mapped and
// relocated before `main` for `folio ls` and every first screen, and a machine without libmagic1
// could not start Folio at all. Now a missing library is an error the preview pane shows.
#include "CPreviewTools.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static struct {
  __typeof__(&magic_open) open;
  __typeof__(&magic_load) load;
  __typeof__(&magic_error) error;
  __typeof__(&magic_setflags) setflags;
  __typeof__(&magic_buffer) buffer;
  __typeof__(&magic_close) close;
} folio_magic;

static pthread_mutex_t folio_magic_lock = PTHREAD_MUTEX_INITIALIZER;
static int folio_magic_loaded = 0;

int folio_magic_load(char *why, size_t why_size) {
  pthread_mutex_lock(&folio_magic_lock);
  if (!folio_magic_loaded) {
    void *handle = dlopen("libmagic.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      snprintf(why, why_size, "libmagic.so.1 is not installed (install libmagic1)");
    } else {
      folio_magic.open = (__typeof__(folio_magic.open))dlsym(handle, "magic_open");
      folio_magic.load = (__typeof__(folio_magic.load))dlsym(handle, "magic_load");
      folio_magic.error = (__typeof__(folio_magic.error))dlsym(handle, "magic_error");
      folio_magic.setflags = (__typeof__(folio_magic.setflags))dlsym(handle, "magic_setflags");
      folio_magic.buffer = (__typeof__(folio_magic.buffer))dlsym(handle, "magic_buffer");
      folio_magic.close = (__typeof__(folio_magic.close))dlsym(handle, "magic_close");
      if (folio_magic.open && folio_magic.load && folio_magic.error && folio_magic.setflags && folio_magic.buffer &&
          folio_magic.close) {
        folio_magic_loaded = 1;
      } else {
        snprintf(why, why_size, "libmagic.so.1 lacks a function Folio calls (install libmagic1)");
        dlclose(handle);
      }
    }
  }
  int ok = folio_magic_loaded;
  pthread_mutex_unlock(&folio_magic_lock);
  return ok;
}

magic_t folio_magic_open(int flags) { return folio_magic.open(flags); }
int folio_magic_load_database(magic_t cookie, const char *path) { return folio_magic.load(cookie, path); }
const char *folio_magic_error(magic_t cookie) { return folio_magic.error(cookie); }
int folio_magic_setflags(magic_t cookie, int flags) { return folio_magic.setflags(cookie, flags); }
const char *folio_magic_buffer(magic_t cookie, const void *buffer, size_t length) {
  return folio_magic.buffer(cookie, buffer, length);
}
void folio_magic_close(magic_t cookie) { folio_magic.close(cookie); }
