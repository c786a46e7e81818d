/*
 * read_ips_util.c — small helpers the .ips mapping files share: bounded
 * array counts, string members, arena printf and the report's date form.
 */
#include "model.h"
#include "read_ips.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "text.h"

uint32_t
pmi_ips_count(const cJSON *arr, uint32_t max, bool *cut)
{
	if (!cJSON_IsArray(arr))
		return 0;
	uint32_t n = 0;
	for (const cJSON *el = arr->child; el; el = el->next) {
		if (n == max) {
			*cut = true;
			break;
		}
		n++;
	}
	return n;
}

const char *
pmi_ips_str(pm_arena *a, const cJSON *obj, const char *key)
{
	const cJSON *it = pmi_json_get(obj, key);
	if (!cJSON_IsString(it) || !it->valuestring || !it->valuestring[0])
		return NULL;
	return pmi_arena_strdup(a, it->valuestring);
}

const char *
pmi_ips_printf(pm_arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	char *p = pmi_arena_alloc(a, (size_t)n + 1, 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* The report's date form is the text reader's Date/Time: one parser for both. */
bool
pmi_ips_time(const cJSON *obj, const char *key, pm_time *t)
{
	const cJSON *it = pmi_json_get(obj, key);
	if (!cJSON_IsString(it) || !it->valuestring)
		return false;
	return pmi_tx_time(pmi_tx_span(it->valuestring, strlen(it->valuestring)), t);
}
