/*
 * decode.h — the door of formats/decode: exception and termination decoding
 * tables (data about the format), and arm64's exception syndrome
 * (decode_esr.h).
 *
 * Table-driven, both directions (number -> name -> number).  Every lookup is
 * AS-SAFE: pure table scans over static data, no heap, no locale.  The crash
 * handler uses the signal and si_code tables to name what it caught.
 */
#ifndef PM_FORMATS_DECODE_H
#define PM_FORMATS_DECODE_H

#include "decode_esr.h"
#include "postmortem-tools.h"

/*
 * The tables hold their text in arrays, not pointers: a pointer in a static
 * table is a relocation the loader applies at every start of every program
 * that links libpostmortem, in a page of its own it must copy first
 * (docs/benchmarks.md, issue 13).  A field that may be absent is "".  Each
 * array is a few bytes longer than its longest text (test_decode checks that
 * every one is terminated).
 */

/* ---- BSD / Linux signals ------------------------------------------------ */

typedef struct pm_signal_info {
	int number;              /* in the table's OS numbering */
	char name[12];           /* "SIGSEGV" */
	char text[28];           /* Darwin strsignal wording: "Segmentation fault" */
	char mach_type[24];      /* Exception Type to print: "EXC_BAD_ACCESS" (§13.2) */
	char meaning[184];       /* one plain sentence */
} pm_signal_info;

/* Signal by number in the numbering of `os` (PM_OS_UNKNOWN reads as Darwin); NULL if unknown. */
const pm_signal_info *pmi_signal_by_number(pm_os os, int number);
/* Signal by name ("SIGBUS") in the numbering of `os`; NULL if unknown. */
const pm_signal_info *pmi_signal_by_name(pm_os os, const char *name);

/* ---- Linux siginfo si_code ---------------------------------------------- */

typedef struct pm_si_code_info {
	int signo;               /* Linux signal number, 0 for codes valid with any signal */
	int code;
	char name[20];           /* "SEGV_MAPERR", "SI_USER" */
	char subtype[28];        /* Apple Exception Subtype name: "KERN_INVALID_ADDRESS", or "" */
	char meaning[72];
} pm_si_code_info;

/* si_code of a Linux signal; NULL if unknown. */
const pm_si_code_info *pmi_si_code_by_number(int signo, int code);
/* si_code by name; NULL if unknown. */
const pm_si_code_info *pmi_si_code_by_name(const char *name);
/* True when the signal carries a faulting address in si_addr (SEGV, BUS, ILL, FPE, TRAP). */
bool pmi_signal_has_address(pm_os os, int signo);

/* ---- Mach exceptions ----------------------------------------------------- */

typedef struct pm_mach_exc_info {
	int number;              /* EXC_BAD_ACCESS = 1, ... */
	char name[24];
	char meaning[88];
} pm_mach_exc_info;

const pm_mach_exc_info *pmi_mach_exc_by_number(int number);
const pm_mach_exc_info *pmi_mach_exc_by_name(const char *name);

/* A named code: kern_return_t values, arch-specific codes, guard types, ... */
typedef struct pm_code_info {
	uint64_t code;
	char name[28];
	char meaning[112];
} pm_code_info;

/* EXC_BAD_ACCESS codes (kern_return_t and arch codes such as EXC_ARM_DA_ALIGN). */
const pm_code_info *pmi_bad_access_code_by_number(uint64_t code);
const pm_code_info *pmi_bad_access_code_by_name(const char *name);

/*
 * Decode the code pair of an EXC_RESOURCE / EXC_GUARD exception into the
 * Exception Subtype and Exception Message texts Apple prints, e.g.
 * "CPU" / "(Limit 50%) Observed 60% over 180 secs".  Returns false when the
 * codes do not decode.  Buffers are NUL-terminated and never overrun.
 */
bool pmi_decode_exc_resource(uint64_t code, uint64_t subcode, char *subtype, size_t subtype_cap,
                            char *message, size_t message_cap);
bool pmi_decode_exc_guard(uint64_t code, uint64_t subcode, char *subtype, size_t subtype_cap,
                         char *message, size_t message_cap);

/* ---- Termination --------------------------------------------------------- */

/* OS_REASON namespaces: 2 <-> "SIGNAL", also "FRONTBOARD" etc. (id -1 when not numbered). */
const pm_code_info *pmi_namespace_by_number(uint64_t id);
const pm_code_info *pmi_namespace_by_name(const char *name);

typedef struct pm_magic_code {
	uint64_t code;           /* 0x8badf00d */
	char nickname[24];       /* "ate bad food", or "" */
	char meaning[144];       /* what happened, in plain words */
	char cause[136];         /* the usual cause and what to look at */
} pm_magic_code;

/* A magic termination code (0x8badf00d, 0xdead10cc, ...); NULL if not one. */
const pm_magic_code *pmi_magic_code_lookup(uint64_t code);
/* All magic codes, for listings. */
const pm_magic_code *pmi_magic_codes(size_t *count);

#endif
