// libxml2's push parser, opened on first use (lazy_xml.c says why), behind a few functions that
// hand a document's elements and text to callbacks.
#ifndef CLAZYXML_H
#define CLAZYXML_H

#include <stddef.h>

/// What the parser calls as it meets the document. Names are UTF-8, NUL-terminated; `prefix`
/// and `uri` are NULL when the element has none. `text` is `length` bytes of UTF-8 (not
/// terminated): character data and CDATA alike, entities and character references replaced.
typedef struct lx_callbacks {
  void *context;
  void (*start)(void *context, const char *local, const char *prefix, const char *uri);
  void (*end)(void *context, const char *local, const char *prefix, const char *uri);
  void (*text)(void *context, const char *text, int length);
} lx_callbacks;

typedef struct lx_parser lx_parser;

enum {
  LX_OK = 0,
  /// libxml2.so.2 (or a function of it) is not there: `message` names the package.
  LX_MISSING_LIBRARY = 1,
  /// The bytes are not well-formed XML: `lx_error` says where and why.
  LX_MALFORMED = 2,
  /// `lx_stop` was called from a callback.
  LX_STOPPED = 3,
};

/// A parser for one document, or NULL with `*code` and `message` (at most `size` bytes) set.
lx_parser *lx_create(lx_callbacks callbacks, int *code, char *message, size_t size);

/// Parses the next `length` bytes; `last` non-zero after the document's final bytes (which
/// checks that it ended). Returns LX_OK, LX_MALFORMED or LX_STOPPED; after anything but LX_OK
/// the parser takes nothing more.
int lx_feed(lx_parser *parser, const char *bytes, int length, int last);

/// Stops parsing from inside a callback: the current `lx_feed` returns LX_STOPPED.
void lx_stop(lx_parser *parser);

/// The first error libxml2 reported ("" when none), with its line when it has one.
const char *lx_error(const lx_parser *parser);

void lx_free(lx_parser *parser);

#endif
