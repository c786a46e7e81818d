/*
 * json_twin.h — what the JSON twin's writer and reader share (docs/json-schema.md):
 * the names it gives the model's enums.
 */
#ifndef PM_FORMATS_JSON_TWIN_H
#define PM_FORMATS_JSON_TWIN_H

#include "postmortem-tools.h"

/* The value of the top-level "schema" member. */
#define PM_JSON_SCHEMA "postmortem"

/* A model enum's names, indexed by value; NULL marks a value the twin never writes. */
typedef struct pm_json_names {
	const char *const *name;
	unsigned count;
} pm_json_names;

extern const pm_json_names pmi_json_kinds;  /* pm_kind */
extern const pm_json_names pmi_json_oses;   /* pm_os */
extern const pm_json_names pmi_json_hows;   /* pm_how */
extern const pm_json_names pmi_json_arches; /* pm_arch */

/* Name of value v, NULL when it has none.  AS-safe. */
const char *pmi_json_name_of(const pm_json_names *names, unsigned v);

#endif
