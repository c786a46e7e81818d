/*
 * read_minidump.h — private interface of the minidump reader
 * (read_minidump*.c).  Every offset and size in the file is hostile: each
 * read goes through pmi_mdr_span, which checks it against the input.
 */
#ifndef PM_FORMATS_READ_MINIDUMP_H
#define PM_FORMATS_READ_MINIDUMP_H

#include "minidump.h"

enum {
	PM_MDR_MAX_THREADS = 4096,
	PM_MDR_MAX_MODULES = 8192,
	PM_MDR_MAX_STRING = 64 * 1024, /* bytes of one MINIDUMP_STRING */
	/* UTF-16 bytes decoded per file: many records may point at one long
	 * string, which must not cost its size again each time. */
	PM_MDR_MAX_STRINGS = 16 * 1024 * 1024,
};

typedef struct pm_mdr {
	const uint8_t *data;
	size_t len;
	pm_report *r;
	pm_read_error *err;
	const pm_md_context_layout *ctx;  /* from SystemInfo; NULL when unknown */
	uint32_t crashed_tid;
	bool has_exception;
	size_t string_bytes;              /* decoded so far, against PM_MDR_MAX_STRINGS */
} pm_mdr;

/* The n bytes at rva, or NULL when they are not all inside the input. */
const uint8_t *pmi_mdr_span(const pm_mdr *m, uint64_t rva, uint64_t n);
/* A MINIDUMP_STRING at rva as UTF-8 in the report's arena; NULL when bad or
 * past the file's budget of decoded strings. */
const char *pmi_mdr_string(pm_mdr *m, uint64_t rva);
/* A list stream's entry count, checked against the stream's size (entries
 * may start at 4 or, padded, at 8): *first gets the first entry's offset. */
bool pmi_mdr_list(const pm_mdr *m, const uint8_t *dir, uint32_t entry_size, uint32_t max, uint32_t *count,
                 uint64_t *first);

/* read_minidump_streams.c: one per stream; each returns PM_OK or a format error. */
pm_err pmi_mdr_system_info(pm_mdr *m, const uint8_t *dir);
pm_err pmi_mdr_misc_info(pm_mdr *m, const uint8_t *dir);
pm_err pmi_mdr_exception(pm_mdr *m, const uint8_t *dir);
pm_err pmi_mdr_modules(pm_mdr *m, const uint8_t *dir);
pm_err pmi_mdr_threads(pm_mdr *m, const uint8_t *dir);
pm_err pmi_mdr_thread_names(pm_mdr *m, const uint8_t *dir);

#endif
