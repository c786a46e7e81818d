/*
 * json_util.h — cJSON with exact 64-bit integers, for the JSON readers.
 *
 * cJSON keeps numbers as doubles, which silently rounds integers above 2^53
 * (register values, PAC-signed pointers, Apple rawCodes).  pmi_json_parse
 * first turns every integer literal of 16 or more digits into a marked
 * string, so those reach the tree intact; pmi_json_u64/i64 read either form
 * exactly, and pmi_json_str never returns a marked number as a string.
 */
#ifndef PM_FORMATS_JSON_UTIL_H
#define PM_FORMATS_JSON_UTIL_H

#include <cjson/cJSON.h>

#include "model.h"
#include "postmortem-tools.h"

/* Parse data[0..len) (NULs allowed only inside strings are rejected by cJSON).  On error
 * fills err with the line and a message and returns NULL.  line_base is added to line numbers. */
cJSON *pmi_json_parse(const char *data, size_t len, uint32_t line_base, pm_read_error *err);

/* Member of an object (case-sensitive), NULL when absent or obj is not an object. */
const cJSON *pmi_json_get(const cJSON *obj, const char *key);
/* Exact integer value of a number or a string of digits. */
bool pmi_json_u64(const cJSON *it, uint64_t *out);
bool pmi_json_i64(const cJSON *it, int64_t *out);
/* true/false, or a number (non-zero is true) as Apple writes isCorpse. */
bool pmi_json_bool(const cJSON *it, bool *out);
/* A real string value (not a number pmi_json_parse carried as a string). */
bool pmi_json_is_text(const cJSON *it);
/* The text of a real string value (read it through this, not valuestring); NULL otherwise. */
const char *pmi_json_text(const cJSON *it);
/* An object member's name as the document wrote it ("" outside an object). */
const char *pmi_json_key(const cJSON *it);
/* Arena copy of a string value; NULL when absent or not a string. */
const char *pmi_json_str(pm_arena *a, const cJSON *it);

/* Shorthands: member `key` of obj. */
bool pmi_json_get_u64(const cJSON *obj, const char *key, uint64_t *out);
bool pmi_json_get_i64(const cJSON *obj, const char *key, int64_t *out);
bool pmi_json_get_bool(const cJSON *obj, const char *key, bool *out);
const char *pmi_json_get_str(pm_arena *a, const cJSON *obj, const char *key);


#endif
