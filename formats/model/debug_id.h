/*
 * debug_id.h — debug ids (docs/identifiers.md).  AS-safe.
 */
#ifndef PM_DEBUG_ID_H
#define PM_DEBUG_ID_H

#include "out.h"

/* Swap the first three GUID fields in place (its own inverse): build id bytes <-> debug id. */
void pmi_guid_swap(uint8_t id[16]);
/* A UUID in lowercase hex: 8-4-4-4-12 with dashes (JSON, Sentry), 32 digits without (.crash). */
void pmi_out_uuid(pm_out *o, const uint8_t id[16], bool dashes);

#endif
