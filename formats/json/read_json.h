/*
 * read_json.h — the JSON twin reader's shared machinery (not public).
 *
 * Policy for hostile input, in one place (read_json_value.c):
 *   - a member that is absent or null reads as "unknown" and leaves the model's default;
 *   - a member of the wrong JSON type, or an integer that does not fit its model
 *     field, fails the whole read with PM_E_FORMAT and a message naming the member
 *     ("threads[2].frames[5].address: expected an integer from 0 to …");
 *   - an enum name the reader does not know reads as the model's unknown value;
 *   - capacity limits are repaired, not failed: arrays keep their first elements
 *     (setting the *_truncated flag where the model has one), indices that point
 *     nowhere become -1, register names that do not fit are skipped.
 * After the first failure every getter reads "absent", so readers need not check.
 */
#ifndef PM_FORMATS_READ_JSON_H
#define PM_FORMATS_READ_JSON_H

#include <cjson/cJSON.h>

#include "json_twin.h"

/* Capacities of a report read from JSON; hostile files may claim millions. */
enum {
	PM_JR_MAX_THREADS = 4096,
	PM_JR_MAX_FRAMES = 4096, /* per thread, and for last_exception_backtrace */
	PM_JR_MAX_IMAGES = 8192,
	PM_JR_MAX_LINES = 4096,  /* header extra, asi, termination reasons */
};

typedef struct pm_jr {
	pm_report *r;
	pm_read_error *err;
	pm_err rc;         /* the first failure */
	size_t path_len;
	char path[128];    /* the value being read, for messages: "threads[2].frames[5]" */
	uint32_t index;    /* position of the element pmi_jr_list is reading */
} pm_jr;

/* Path bookkeeping: enter member `key` or element `index`; pmi_jr_leave(c, mark) goes back. */
size_t pmi_jr_enter(pm_jr *c, const char *key);
size_t pmi_jr_enter_index(pm_jr *c, uint32_t index);
void pmi_jr_leave(pm_jr *c, size_t mark);

/* Fail about member `key` of the current value (NULL: the value itself).  First failure wins. */
void pmi_jr_fail(pm_jr *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An arena allocation failed. */
void pmi_jr_nomem(pm_jr *c);

/*
 * Typed getters.  Each reads member `key` of obj, or obj itself when key is NULL.
 * They return false / NULL and leave *out alone when the member is absent, null,
 * of the wrong type (which also fails the read), or reading already failed.
 */
const cJSON *pmi_jr_get(pm_jr *c, const cJSON *obj, const char *key);
const cJSON *pmi_jr_object(pm_jr *c, const cJSON *obj, const char *key);
/* The string in the JSON tree (not copied). */
const char *pmi_jr_text(pm_jr *c, const cJSON *obj, const char *key);
/* An arena copy of the string. */
const char *pmi_jr_str(pm_jr *c, const cJSON *obj, const char *key);
/* True only for a present true. */
bool pmi_jr_flag(pm_jr *c, const cJSON *obj, const char *key);
bool pmi_jr_range(pm_jr *c, const cJSON *obj, const char *key, int64_t min, int64_t max, int64_t *out);
bool pmi_jr_u64(pm_jr *c, const cJSON *obj, const char *key, uint64_t *out);
bool pmi_jr_u32(pm_jr *c, const cJSON *obj, const char *key, uint32_t *out);
bool pmi_jr_i64(pm_jr *c, const cJSON *obj, const char *key, int64_t *out);
bool pmi_jr_i32(pm_jr *c, const cJSON *obj, const char *key, int32_t *out);
/* Value of an enum name; 0 (the model's unknown) when absent or not known. */
uint8_t pmi_jr_enum(pm_jr *c, const cJSON *obj, const char *key, const pm_json_names *names);

/* Fills the element at dst from the JSON value it (already entered in the path). */
typedef void pm_jr_elem_fn(pm_jr *c, const cJSON *it, void *dst);

/*
 * Array member `key` read into a fresh zeroed arena array of up to cap elements of
 * `size` bytes, each filled by fn.  *count gets the length; *truncated (when not
 * NULL) is set if the array held more.  NULL when absent or empty.
 */
void *pmi_jr_list(pm_jr *c, const cJSON *obj, const char *key, uint32_t cap, size_t size,
                 pm_jr_elem_fn *fn, uint32_t *count, bool *truncated);

/* Element readers for pmi_jr_list. */
pm_jr_elem_fn pmi_jr_string_elem;  /* const char * */
pm_jr_elem_fn pmi_jr_frame_elem;   /* pm_frame; needs c->r->images read already */
pm_jr_elem_fn pmi_jr_thread_elem;  /* pm_thread */
pm_jr_elem_fn pmi_jr_image_elem;   /* pm_image */

#endif
