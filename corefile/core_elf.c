/*
 * core_elf.c — a core's ELF header and program headers, checked field by
 * field: the core comes from a crashed process, a file anyone may have
 * edited, or a pipe.  NOT AS-safe.
 */
#include "core_internal.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

pm_err
pmi_core_fail(char *why, size_t cap, pm_err e, const char *fmt, ...)
{
	if (why && cap) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, cap, fmt, ap);
		va_end(ap);
	}
	return e;
}

const char *
pmi_core_arch_name(pm_core_arch a)
{
	return a == PM_CORE_ARCH_X86_64 ? "x86_64" : a == PM_CORE_ARCH_AARCH64 ? "aarch64" : "unknown";
}

pm_core_arch
pmi_core_host_arch(void)
{
#if defined(__x86_64__)
	return PM_CORE_ARCH_X86_64;
#elif defined(__aarch64__)
	return PM_CORE_ARCH_AARCH64;
#else
	return (pm_core_arch)0;
#endif
}

pm_err
pmi_core_parse_ehdr(const unsigned char *p, size_t n, pm_core_ehdr *h, char *why, size_t cap)
{
	if (n < EI_NIDENT || memcmp(p, ELFMAG, SELFMAG) != 0)
		return pmi_core_fail(why, cap, PM_E_FORMAT, "not an ELF file");
	if (n < PM_CORE_EHDR)
		return pmi_core_fail(why, cap, PM_E_FORMAT, "ELF header cut short (%zu bytes)", n);
	if (p[EI_CLASS] != ELFCLASS64)
		return pmi_core_fail(why, cap, PM_E_UNSUPPORTED, "a 32-bit ELF file: only 64-bit cores are read");
	if (p[EI_DATA] != ELFDATA2LSB)
		return pmi_core_fail(why, cap, PM_E_UNSUPPORTED, "a big-endian ELF file: only little-endian cores are read");
	if (pmi_core_u16(p + 16) != ET_CORE)
		return pmi_core_fail(why, cap, PM_E_FORMAT, "an ELF file but not a core (e_type %u)", pmi_core_u16(p + 16));
	uint16_t machine = pmi_core_u16(p + 18);
	if (machine == EM_X86_64)
		h->arch = PM_CORE_ARCH_X86_64;
	else if (machine == EM_AARCH64)
		h->arch = PM_CORE_ARCH_AARCH64;
	else
		return pmi_core_fail(why, cap, PM_E_UNSUPPORTED, "a core of machine %u: only x86_64 and aarch64 are read",
		                     machine);
	h->phoff = pmi_core_u64(p + 32);
	h->shoff = pmi_core_u64(p + 40);
	uint16_t phentsize = pmi_core_u16(p + 54);
	h->phnum = pmi_core_u16(p + 56);
	if (h->phnum == 0)
		return pmi_core_fail(why, cap, PM_E_FORMAT, "a core without program headers");
	if (phentsize != PM_CORE_PHDR)
		return pmi_core_fail(why, cap, PM_E_FORMAT, "program header size %u, not %d", phentsize, PM_CORE_PHDR);
	if (h->phoff < PM_CORE_EHDR)
		return pmi_core_fail(why, cap, PM_E_FORMAT, "program headers at %llu, inside the ELF header",
		                     (unsigned long long)h->phoff);
	return PM_OK;
}

/* Whether [off, off + len) overflows. */
static bool
wraps(uint64_t off, uint64_t len)
{
	return off + len < off;
}

pm_err
pmi_core_parse_phdrs(pm_core *c, const unsigned char *p, size_t n, pm_core_span **notes, size_t *nnotes,
                     char *why, size_t cap)
{
	size_t loads = 0, nn = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t type = pmi_core_u32(p + i * PM_CORE_PHDR);
		loads += type == PT_LOAD;
		nn += type == PT_NOTE;
	}
	if (nn == 0)
		return pmi_core_fail(why, cap, PM_E_FORMAT, "a core without notes (no PT_NOTE)");
	c->segs = calloc(loads ? loads : 1, sizeof *c->segs);
	*notes = calloc(nn, sizeof **notes);
	if (!c->segs || !*notes)
		return pmi_core_fail(why, cap, PM_E_NOMEM, "out of memory for %zu program headers", n);
	*nnotes = 0;
	uint64_t notes_total = 0;
	c->nsegs = 0;
	c->end = 0;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *h = p + i * PM_CORE_PHDR;
		uint32_t type = pmi_core_u32(h);
		uint64_t off = pmi_core_u64(h + 8), vaddr = pmi_core_u64(h + 16), filesz = pmi_core_u64(h + 32),
		         memsz = pmi_core_u64(h + 40);
		if (type != PT_LOAD && type != PT_NOTE)
			continue;
		if (wraps(off, filesz))
			return pmi_core_fail(why, cap, PM_E_FORMAT, "program header %zu: offset %llu + size %llu wraps", i,
			                     (unsigned long long)off, (unsigned long long)filesz);
		if (type == PT_NOTE) {
			/* Each bounded before it is added, and its padding counted: no sum wraps. */
			if (filesz > PM_CORE_NOTES_MAX || notes_total + ((filesz + 3) & ~(uint64_t)3) > PM_CORE_NOTES_MAX)
				return pmi_core_fail(why, cap, PM_E_LIMIT, "notes larger than the %d-byte limit",
				                     PM_CORE_NOTES_MAX);
			notes_total += (filesz + 3) & ~(uint64_t)3;
			(*notes)[(*nnotes)++] = (pm_core_span){ off, filesz };
			continue;
		}
		if (wraps(vaddr, memsz))
			return pmi_core_fail(why, cap, PM_E_FORMAT, "segment %zu: address %#llx + size %llu wraps", i,
			                     (unsigned long long)vaddr, (unsigned long long)memsz);
		if (filesz > memsz)
			return pmi_core_fail(why, cap, PM_E_FORMAT, "segment %zu: %llu bytes in the core for %llu in memory",
			                     i, (unsigned long long)filesz, (unsigned long long)memsz);
		c->segs[c->nsegs++] = (pm_core_segment){ vaddr, memsz, off, filesz, pmi_core_u32(h + 4) };
		if (filesz && off + filesz > c->end)
			c->end = off + filesz;
	}
	return PM_OK;
}

pm_core *
pmi_core_new(const pm_core_options *opt)
{
	pm_core *c = calloc(1, sizeof *c);
	pm_core_src *s = calloc(1, sizeof *s);
	if (!c || !s) {
		free(c);
		free(s);
		return NULL;
	}
	c->src = s;
	s->fd = -1;
	s->sysroot_fd = -1;
	s->mem_fd = opt ? opt->mem_fd : -1;
	bool ok = true;
	if (opt && opt->mapped) {
		/* At least one entry, so that a process with no file mapped still opens no path. */
		ok = (s->mapped = malloc((opt->nmapped + 1) * sizeof *s->mapped)) != NULL;
		if (ok && opt->nmapped)
			memcpy(s->mapped, opt->mapped, opt->nmapped * sizeof *s->mapped);
		s->nmapped = ok ? opt->nmapped : 0;
	} else if (opt && opt->sysroot && *opt->sysroot) {
		/* The sysroot as given (links in it followed: the caller's choice);
		 * NT_FILE's paths beneath it follow none (core_files.c). */
		s->sysroot_fd = open(opt->sysroot, O_PATH | O_DIRECTORY | O_CLOEXEC);
		ok = (s->sysroot = realpath(opt->sysroot, NULL)) != NULL || (s->sysroot = strdup(opt->sysroot)) != NULL;
	}
	if (ok && opt && !opt->mapped && opt->exe && *opt->exe)
		ok = (s->exe = strdup(opt->exe)) != NULL;
	if (!ok) {
		pmi_core_close(c);
		return NULL;
	}
	return c;
}

void
pmi_core_close(pm_core *c)
{
	if (!c)
		return;
	pm_core_src *s = c->src;
	if (s) {
		for (size_t i = 0; i < s->nkept; i++)
			free(s->kept[i].data);
		for (size_t i = 0; i < s->nfiles; i++)
			if (s->files[i].fd >= 0 && !s->files[i].borrowed)
				close(s->files[i].fd);
		if (s->fd >= 0)
			close(s->fd);
		if (s->sysroot_fd >= 0)
			close(s->sysroot_fd);
		free(s->mapped);
		free(s->kept);
		free(s->file_note);
		free(s->sysroot);
		free(s->exe);
		free(s->files);
		free(s->map_file);
		free(s);
	}
	free(c->threads);
	free(c->auxv);
	free(c->maps);
	free(c->segs);
	free(c);
}
