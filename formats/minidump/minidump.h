/*
 * minidump.h — the door of formats/minidump: the Breakpad/Crashpad minidump
 * ("MDMP") layout that the crash
 * path's writer (reporter/minidump/as_minidump*.c) and the reader
 * (formats/minidump/read_minidump*.c) share: stream numbers, record sizes, field
 * offsets, and little-endian byte access.  AS-SAFE.
 *
 * Records are written and read field by field at these offsets, never by
 * casting structs, so the layout does not depend on the compiler's padding.
 */
#ifndef PM_FORMATS_MINIDUMP_H
#define PM_FORMATS_MINIDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

enum {
	PM_MD_SIGNATURE = 0x504d444d, /* "MDMP" */
	PM_MD_VERSION = 0xa793,

	PM_MD_THREAD_LIST = 3,
	PM_MD_MODULE_LIST = 4,
	PM_MD_MEMORY_LIST = 5,
	PM_MD_EXCEPTION = 6,
	PM_MD_SYSTEM_INFO = 7,
	PM_MD_MISC_INFO = 15,
	PM_MD_THREAD_NAMES = 24,
	/* Breakpad's Linux streams: the files, byte for byte. */
	PM_MD_LINUX_PROC_STATUS = 0x47670004,
	PM_MD_LINUX_LSB_RELEASE = 0x47670005,
	PM_MD_LINUX_CMD_LINE = 0x47670006,
	PM_MD_LINUX_ENVIRON = 0x47670007,
	PM_MD_LINUX_AUXV = 0x47670008,
	PM_MD_LINUX_MAPS = 0x47670009,

	PM_MD_HEADER_SIZE = 32,
	PM_MD_DIR_ENTRY_SIZE = 12,
	PM_MD_LOCATION_SIZE = 8,       /* data_size, rva */
	PM_MD_MEMORY_DESC_SIZE = 16,   /* start, location */
	PM_MD_THREAD_SIZE = 48,
	PM_MD_MODULE_SIZE = 108,
	PM_MD_EXCEPTION_SIZE = 168,
	PM_MD_SYSTEM_INFO_SIZE = 56,
	PM_MD_MISC_INFO_SIZE = 24,
	PM_MD_THREAD_NAME_SIZE = 12,   /* tid, 64-bit rva: packed to 4 */

	/* Offsets inside the records above. */
	PM_MD_THREAD_STACK = 24,       /* memory descriptor */
	PM_MD_THREAD_CONTEXT = 40,     /* location */
	PM_MD_MODULE_NAME = 20,
	PM_MD_MODULE_CV = 76,          /* location of the CodeView record */
	PM_MD_EXC_CODE = 8,            /* Linux: the signal */
	PM_MD_EXC_FLAGS = 12,          /* Linux: si_code */
	PM_MD_EXC_ADDRESS = 24,
	PM_MD_EXC_CONTEXT = 160,

	PM_MD_CV_ELF = 0x4270454c,     /* "BpEL" + the raw ELF build id */
	PM_MD_OS_LINUX = 0x8201,
	PM_MD_CPU_AMD64 = 9,
	PM_MD_CPU_ARM64_BREAKPAD = 0x8003, /* with MDRawContextARM64_Old (minidump_context.c) */
	PM_MD_MISC_PROCESS_ID = 1,
	PM_MD_MISC_PROCESS_TIMES = 2,

	PM_MD_CONTEXT_AMD64_SIZE = 1232,
	PM_MD_CONTEXT_ARM64_SIZE = 796, /* flags, iregs[33], cpsr, fpsr, fpcr, v[32] */
};

static inline void
pm_md_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void
pm_md_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void
pm_md_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t
pm_md_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t
pm_md_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t
pm_md_get64(const uint8_t *p)
{
	return (uint64_t)pm_md_get32(p) | (uint64_t)pm_md_get32(p + 4) << 32;
}

/*
 * The thread context of an architecture: the model's registers in the
 * minidump's CPU context and back.  Only the general registers travel (the
 * model keeps no others); the context says so in its flags.
 */
typedef struct pm_md_context_layout {
	uint8_t arch;          /* pm_arch */
	uint16_t cpu;          /* SystemInfo processor_architecture */
	uint32_t size;         /* bytes of the context record */
	uint32_t flags_offset;
	uint32_t flags;        /* what a context written from the model holds */
	uint32_t sp_offset, pc_offset;
} pm_md_context_layout;

/* The layout for an architecture (pm_arch), or NULL. */
const pm_md_context_layout *pmi_md_context_for_arch(uint8_t arch);
/* The layout for a SystemInfo processor_architecture, or NULL. */
const pm_md_context_layout *pmi_md_context_for_cpu(uint16_t cpu);
/* Context bytes (layout->size of them, zeroed first) from the model's registers. */
void pmi_md_context_from_regs(const pm_md_context_layout *l, const pm_regs *regs, uint8_t *out);
/* The model's registers, in the report's order, from context bytes (layout->size of them). */
void pmi_md_regs_from_context(const pm_md_context_layout *l, const uint8_t *ctx, pm_regs *out);

/* UTF-16 code units of a UTF-8 string (a MINIDUMP_STRING's length is twice this). */
size_t pmi_md_utf16_units(const char *s);
/* A MINIDUMP_STRING of s: byte length, UTF-16LE units, a zero unit.  Invalid UTF-8
 * becomes U+FFFD. */
void pmi_md_put_string(pm_out *o, const char *s);
/* Bytes pmi_md_put_string writes for s. */
size_t pmi_md_string_size(const char *s);

#endif
