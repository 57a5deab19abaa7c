#ifndef PULLREFRESH_LIBXML2_SHIM_H
#define PULLREFRESH_LIBXML2_SHIM_H

#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU, so encoding.h includes <unicode/ucnv.h>, whose UErrorCode
   clashes with Foundation's own ICU module in any Swift file that imports both. The flag only
   adds two trailing pointers to xmlCharEncodingHandler, a struct Swift never allocates. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/tree.h>

/* xmlFree is a global function pointer, which Swift 6 rejects as shared mutable state. */
static inline void pullrefresh_xml_free(void *pointer) { xmlFree(pointer); }

/* libxml2 reports some errors (encoding and I/O errors, raised without a parser context)
   through the generic handler, which prints to stderr; its type is variadic, so Swift cannot
   write one. The handler is per thread: each parse installs it on the thread it runs on. */
static inline void pullrefresh_xml_ignore(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

static inline void pullrefresh_xml_silence_thread(void) { xmlSetGenericErrorFunc(NULL, pullrefresh_xml_ignore); }

#endif
