// libxml2 opened with dlopen the first time an XML answer (S3, WebDAV) is read.
//
// Why not Foundation's XMLParser: FoundationXML links libxml2, which links the system's ICU, its
// data and liblzma, and through ICU the shared libstdc++: five libraries mapped, relocated and
// bound at every launch of `folio` (2,100 symbol lookups and ~1.5 MiB resident), for answers
// most launches never read (docs/DECISIONS.md, "XML through libxml2, opened on first use").
// libxml2 itself stays the parser: the same code XMLParser ran, with its protections against
// entity expansion; nothing is fetched from the network (XML_PARSE_NONET) and no external entity
// is loaded.
#include "CLazyXML.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

/// The functions taken from the library, in the order of their names below.
static struct {
  void (*initParser)(void);
  xmlParserCtxtPtr (*createPush)(xmlSAXHandlerPtr, void *, const char *, int, const char *);
  int (*useOptions)(xmlParserCtxtPtr, int);
  int (*parseChunk)(xmlParserCtxtPtr, const char *, int, int);
  void (*stopParser)(xmlParserCtxtPtr);
  void (*freeContext)(xmlParserCtxtPtr);
  void (*freeDocument)(xmlDocPtr);
  void (*setGenericErrorFunc)(void *, xmlGenericErrorFunc);
  void (*setDefaultGenericErrorFunc)(void *, xmlGenericErrorFunc);
} lx_lib;

static const char *const lx_names[] = {
    "xmlInitParser", "xmlCreatePushParserCtxt", "xmlCtxtUseOptions", "xmlParseChunk",
    "xmlStopParser", "xmlFreeParserCtxt",       "xmlFreeDoc",        "xmlSetGenericErrorFunc",
    "xmlThrDefSetGenericErrorFunc",
};

_Static_assert(sizeof lx_lib == sizeof(void *) * (sizeof lx_names / sizeof lx_names[0]), "lx_lib");

static pthread_mutex_t lx_lock = PTHREAD_MUTEX_INITIALIZER;

/// libxml2's messages outside a parser's own (an encoding it cannot convert, say) go to stderr by
/// default, which is the browser's screen: they go nowhere, and the parser's error says why.
static void lx_silent(void *context, const char *format, ...) { (void)context, (void)format; }

/// Opens libxml2 once for the process's life; 1 when every function is there.
static int lx_load(char *message, size_t size) {
  static int loaded = 0;
  pthread_mutex_lock(&lx_lock);
  if (!loaded) {
    // The soname the headers were compiled against (Debian 12 and 13: libxml2 2.9, 2.12).
    void *handle = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      snprintf(message, size, "libxml2.so.2 is not installed (install libxml2)");
    } else {
      void **slots = (void **)&lx_lib;
      size_t count = sizeof lx_names / sizeof lx_names[0];
      size_t i = 0;
      for (; i < count; i++) {
        slots[i] = dlsym(handle, lx_names[i]);
        if (!slots[i]) {
          snprintf(message, size, "libxml2.so.2 has no %s (a different version: install libxml2)", lx_names[i]);
          break;
        }
      }
      if (i == count) {
        // libxml2 wants this once before parsers are used from several threads.
        lx_lib.initParser();
        lx_lib.setDefaultGenericErrorFunc(NULL, lx_silent);
        loaded = 1;
      } else {
        memset(&lx_lib, 0, sizeof lx_lib);
        dlclose(handle);
      }
    }
  }
  int ok = loaded;
  pthread_mutex_unlock(&lx_lock);
  return ok;
}

struct lx_parser {
  xmlSAXHandler sax;
  xmlParserCtxtPtr context;
  lx_callbacks callbacks;
  int stopped;
  int failed;
  char error[256];
};

static void lx_start(void *ctx, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri, int namespaceCount,
                     const xmlChar **namespaces, int attributeCount, int defaulted, const xmlChar **attributes) {
  (void)namespaceCount, (void)namespaces, (void)attributeCount, (void)defaulted, (void)attributes;
  lx_parser *p = ctx;
  if (!p->stopped) p->callbacks.start(p->callbacks.context, (const char *)local, (const char *)prefix, (const char *)uri);
}

static void lx_end(void *ctx, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri) {
  lx_parser *p = ctx;
  if (!p->stopped) p->callbacks.end(p->callbacks.context, (const char *)local, (const char *)prefix, (const char *)uri);
}

static void lx_text(void *ctx, const xmlChar *text, int length) {
  lx_parser *p = ctx;
  if (!p->stopped) p->callbacks.text(p->callbacks.context, (const char *)text, length);
}

/// Every message goes here, none to stderr (libxml2's default): the first one is kept.
static void lx_record(void *ctx, xmlErrorPtr error) {
  lx_parser *p = ctx;
  if (!error || error->level < XML_ERR_ERROR || p->error[0]) return;
  const char *text = error->message ? error->message : "unreadable XML";
  size_t n = strcspn(text, "\n");
  if (error->line > 0) {
    snprintf(p->error, sizeof p->error, "line %d: %.*s", error->line, (int)n, text);
  } else {
    snprintf(p->error, sizeof p->error, "%.*s", (int)n, text);
  }
}

lx_parser *lx_create(lx_callbacks callbacks, int *code, char *message, size_t size) {
  if (!lx_load(message, size)) {
    *code = LX_MISSING_LIBRARY;
    return NULL;
  }
  lx_parser *p = calloc(1, sizeof *p);
  if (!p) {
    *code = LX_MISSING_LIBRARY;
    snprintf(message, size, "out of memory");
    return NULL;
  }
  // The generic error function is per thread: set on the one that parses.
  lx_lib.setGenericErrorFunc(NULL, lx_silent);
  p->callbacks = callbacks;
  p->sax.initialized = XML_SAX2_MAGIC;
  p->sax.startElementNs = lx_start;
  p->sax.endElementNs = lx_end;
  p->sax.characters = lx_text;
  p->sax.cdataBlock = lx_text;
  p->sax.serror = lx_record;
  p->context = lx_lib.createPush(&p->sax, p, NULL, 0, NULL);
  if (!p->context) {
    free(p);
    *code = LX_MISSING_LIBRARY;
    snprintf(message, size, "libxml2 could not make a parser");
    return NULL;
  }
  // No network, no external DTD or entity loaded, no entity substituted beyond XML's own five.
  lx_lib.useOptions(p->context, XML_PARSE_NONET);
  *code = LX_OK;
  return p;
}

int lx_feed(lx_parser *p, const char *bytes, int length, int last) {
  if (p->stopped) return LX_STOPPED;
  if (p->failed) return LX_MALFORMED;
  int result = lx_lib.parseChunk(p->context, bytes, length, last);
  if (p->stopped) return LX_STOPPED;
  if (result != 0 || !p->context->wellFormed) {
    p->failed = 1;
    if (!p->error[0]) snprintf(p->error, sizeof p->error, "not well-formed XML (error %d)", result);
    return LX_MALFORMED;
  }
  return LX_OK;
}

void lx_stop(lx_parser *p) {
  if (p->stopped) return;
  p->stopped = 1;
  lx_lib.stopParser(p->context);
}

const char *lx_error(const lx_parser *p) { return p->error; }

void lx_free(lx_parser *p) {
  if (!p) return;
  // A push parser without a document handler builds no tree, but free one if it did.
  if (p->context->myDoc) lx_lib.freeDocument(p->context->myDoc);
  lx_lib.freeContext(p->context);
  free(p);
}
