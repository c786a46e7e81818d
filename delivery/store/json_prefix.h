/*
 * json_prefix.h — make a torn JSON document parseable.
 */
#ifndef PM_DELIVERY_JSON_PREFIX_H
#define PM_DELIVERY_JSON_PREFIX_H

#include <stddef.h>

/*
 * The longest prefix of data[0..len) that ends after a whole value (or just
 * inside an opened container), followed by the brackets that close it: a
 * malloc'd NUL-terminated document, its length in *out_len.  NULL when not
 * even the top-level object was opened, or out of memory.  A whole document
 * comes back unchanged.
 */
char *pmi_json_close_prefix(const char *data, size_t len, size_t *out_len);

#endif
