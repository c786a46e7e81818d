/*
 * symbols_build.c — pm_symbols_build: the pre-parsed table (table.c) of each
 * image a debug file describes: an ELF file by its build id, a Mach-O file
 * (a dSYM's DWARF file, an executable) by the UUID of each of its slices.
 *
 * The module is opened as symbolication opens it, at bias 0, so the table
 * holds link-time addresses and exactly the answers symbolication would give.
 * Each table is written under a temporary name and renamed into place.
 * pm_symbols_build_id finds the files of a build id as symbolication does
 * (debuginfod included) and builds from them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symb.h"
#include "model.h"

typedef struct out_msg {
	char *buf;
	size_t cap, len;
} out_msg;

static void __attribute__((format(printf, 2, 3)))
say(out_msg *m, const char *fmt, ...)
{
	if (!m->buf || m->len >= m->cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(m->buf + m->len, m->cap - m->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		m->len += (size_t)n < m->cap - m->len ? (size_t)n : m->cap - m->len - 1;
}

/* Write the open module's table as DIR/<hex id>.pmsym. */
static pm_err
write_table(pm_sy_module *m, const pm_image *img, const char *dir, out_msg *msg)
{
	/* At bias 0 the table holds link-time addresses; the base says where the image starts. */
	uint64_t base = img->start - m->bias;
	m->bias = 0;
	char hex[2 * PM_BUILD_ID_MAX + 1], *path = NULL, *tmp = NULL;
	pmi_sy_hex(img->build_id, img->build_id_len, hex);
	if (asprintf(&path, "%s/%s.pmsym", dir, hex) < 0 || asprintf(&tmp, "%s/.%s.pmsym.tmp", dir, hex) < 0) {
		free(path);
		return PM_E_NOMEM;
	}
	FILE *f = fopen(tmp, "wb");
	bool ok = f && pmi_sy_table_write(m, img->build_id, img->build_id_len, base, f);
	int err = errno;
	if (f && fclose(f) != 0 && ok) {
		ok = false;
		err = errno;
	}
	if (ok && rename(tmp, path) != 0) {
		ok = false;
		err = errno;
	}
	if (ok)
		say(msg, "%s%s", msg->len ? "\n" : "", path);
	else {
		unlink(tmp);
		say(msg, "%scannot write %s: %s", msg->len ? "\n" : "", path, strerror(err));
	}
	free(path);
	free(tmp);
	return ok ? PM_OK : PM_E_IO;
}

static pm_err
build_files(const pm_sy_files *files, const pm_image *img, bool macho, const char *dir, out_msg *msg)
{
	pm_arena arena;
	pmi_arena_init_heap(&arena);
	pm_sy_module m;
	char why[512];
	pm_err rc = PM_E_FORMAT;
	if ((macho ? pmi_sy_macho_module_open : pmi_sy_module_open)(&m, img, files, &arena, why, sizeof why)) {
		rc = why[0] ? PM_E_FORMAT : write_table(&m, img, dir, msg);
		pmi_sy_module_close(&m);
	}
	if (why[0])
		say(msg, "%s%s", msg->len ? "\n" : "", why);
	pmi_arena_free(&arena);
	return rc;
}

static pm_err
build_one(const char *path, const pm_image *img, bool macho, bool dwarf, const char *dir, out_msg *msg)
{
	pm_sy_files files = { .elf_path = (char *)path, .dwarf_path = dwarf ? (char *)path : NULL };
	return build_files(&files, img, macho, dir, msg);
}

static pm_err
build_elf(const char *path, const pm_sy_facts *f, const char *dir, out_msg *msg)
{
	if (f->build_id_len == 0) {
		say(msg, "%s: no build id: nothing could match a report's image to it", path);
		return PM_E_FORMAT;
	}
	pm_image img = { .build_id_len = (uint8_t)f->build_id_len };
	memcpy(img.build_id, f->build_id, f->build_id_len);
	return build_one(path, &img, false, f->has_dwarf, dir, msg);
}

/* Each slice once: a universal file is asked for every architecture Apple reports name. */
static pm_err
build_macho(const char *path, const char *dir, out_msg *msg)
{
	static const char *const arches[] = { "arm64", "arm64e", "x86_64", "x86_64h" };
	pm_sy_map map;
	int err = pmi_sy_map_file(path, &map);
	if (err) {
		say(msg, "%s: %s", path, strerror(err));
		return err == ENOENT ? PM_E_NOTFOUND : PM_E_IO;
	}
	uint8_t seen[4][16];
	size_t nseen = 0;
	pm_err rc = PM_E_FORMAT;
	for (size_t i = 0; i < sizeof arches / sizeof arches[0]; i++) {
		pm_sy_macho mo;
		bool known = false;
		if (pmi_sy_macho_read(map.data, map.len, arches[i], NULL, &mo) != 0 || !mo.has_uuid)
			continue;
		for (size_t k = 0; k < nseen; k++)
			known |= memcmp(seen[k], mo.uuid, 16) == 0;
		if (known)
			continue;
		memcpy(seen[nseen++], mo.uuid, 16);
		pm_image img = { .arch = arches[i], .build_id_len = 16 };
		memcpy(img.build_id, mo.uuid, 16);
		pm_err one = build_one(path, &img, true, pmi_sy_macho_has_dwarf(&mo), dir, msg);
		rc = rc == PM_OK ? PM_OK : one;
	}
	pmi_sy_unmap(&map);
	if (nseen == 0)
		say(msg, "%s: not an ELF file, nor a 64-bit Mach-O file with an LC_UUID", path);
	return rc;
}

pm_err
pm_symbols_build(const char *path, const char *dir, char *msg, size_t msg_len)
{
	out_msg m = { .buf = msg, .cap = msg_len };
	if (msg && msg_len)
		msg[0] = '\0';
	if (!path || !dir)
		return PM_E_INVAL;
	elf_version(EV_CURRENT);
	pm_sy_facts f;
	int err = pmi_sy_facts_read(path, &f);
	if (err == 0)
		return build_elf(path, &f, dir, &m);
	if (err != ENOEXEC) {
		say(&m, "%s: %s", path, strerror(err));
		return err == ENOENT ? PM_E_NOTFOUND : PM_E_IO;
	}
	return build_macho(path, dir, &m);
}

/* Hex digits, two a byte, into img's build id. */
static bool
parse_id(const char *hex, pm_image *img)
{
	size_t n = strlen(hex);
	if (n == 0 || n % 2 || n > 2 * PM_BUILD_ID_MAX || strspn(hex, "0123456789abcdefABCDEF") != n)
		return false;
	for (size_t i = 0; i < n / 2; i++)
		sscanf(hex + 2 * i, "%2hhx", &img->build_id[i]);
	img->build_id_len = (uint8_t)(n / 2);
	return true;
}

pm_err
pm_symbols_build_id(const char *build_id, const char *dir, const pm_symbolicate_options *opt, char *msg,
                    size_t msg_len)
{
	out_msg m = { .buf = msg, .cap = msg_len };
	if (msg && msg_len)
		msg[0] = '\0';
	pm_image img = { 0 };
	if (!build_id || !dir || !parse_id(build_id, &img)) {
		say(&m, "not a build id (an even number of hex digits, at most %d): '%s'", 2 * PM_BUILD_ID_MAX,
		    build_id ? build_id : "");
		return PM_E_INVAL;
	}
	elf_version(EV_CURRENT);
	pm_sy_remote remote;
	pmi_sy_remote_init(&remote, opt);
	pm_sy_files files;
	pm_err rc = PM_E_NOMEM;
	if (pmi_sy_find_files(&img, false, opt, &remote, &files)) {
		if (files.elf_path) {
			rc = build_files(&files, &img, false, dir, &m);
		} else {
			say(&m, "%s", files.note);
			rc = PM_E_NOTFOUND;
		}
		pmi_sy_files_free(&files);
	}
	pmi_sy_remote_end(&remote);
	return rc;
}
