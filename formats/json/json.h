/*
 * json.h — the door of formats/json, the JSON twin (docs/json-schema.md):
 * its AS-SAFE writer (write_json.h), the names it gives the model's enums
 * (json_twin.h), and the cJSON helpers the readers of JSON-based formats
 * share (json_util.h).
 */
#ifndef PM_FORMATS_JSON_H
#define PM_FORMATS_JSON_H

#include "json_twin.h"
#include "json_util.h"
#include "write_json.h"

#endif
