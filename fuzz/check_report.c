/*
 * check_report.c — what must hold for a report any reader accepted (checks.h).
 */
#include "formats/model/model.h"
#include "formats/text/text.h"
#include "formats/json/json.h"
#include "fuzz/checks.h"

#include <stdlib.h>

/* Larger than any twin a fuzzer input (at most a few hundred KB) can describe. */
enum { OUT_CAP = 64 << 20 };

bool
fuzz_check_report(const pm_report *a, char *why, size_t cap)
{
	static char text[1 << 16];
	pm_out o;
	pmi_out_init_buf(&o, text, sizeof text);
	pmi_write_text(a, &o);

	static char *buf;
	if (!buf && !(buf = malloc(OUT_CAP)))
		return fuzz_say(why, cap, "no memory for the output buffer");
	pmi_out_init_buf(&o, buf, OUT_CAP);
	if (pmi_write_json(a, &o) != PM_OK)
		return fuzz_say(why, cap, "pmi_write_json failed");
	pm_report b;
	pm_read_error err;
	pm_report_init(&b);
	bool same = false;
	const char *where = "";
	if (pm_read_json(buf, o.len, &b, &err) != PM_OK)
		fuzz_say(why, cap, "the written twin does not read: %s", err.message);
	else if (!(same = pmi_report_equal(a, &b, &where)))
		fuzz_say(why, cap, "round trip through the JSON twin differs: %s", where);
	pm_report_free(&b);
	return same;
}

bool
fuzz_check_read(fuzz_read_fn *read, const uint8_t *data, size_t size, char *why, size_t cap)
{
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	bool ok = true;
	if (read((const char *)data, size, &r, &err) == PM_OK)
		ok = fuzz_check_report(&r, why, cap);
	else if (err.message[0] == '\0')
		ok = fuzz_say(why, cap, "rejected without a message");
	pm_report_free(&r);
	return ok;
}

