/* test_decode.c — the signal, si_code, Mach and termination tables, and the code-pair decoders. */
#include <criterion/criterion.h>
#include <string.h>

#include "formats/decode/decode.h"

Test(decode, signals_by_number_and_name)
{
	const pm_signal_info *s = pmi_signal_by_number(PM_OS_LINUX, 11);
	cr_assert_not_null(s);
	cr_expect_str_eq(s->name, "SIGSEGV");
	cr_expect_str_eq(s->text, "Segmentation fault");
	cr_expect_str_eq(s->mach_type, "EXC_BAD_ACCESS");
	cr_expect(s->meaning[0]);
	cr_expect_eq(pmi_signal_by_name(PM_OS_LINUX, "SIGSEGV"), s);

	s = pmi_signal_by_name(PM_OS_DARWIN, "SIGABRT");
	cr_assert_not_null(s);
	cr_expect_eq(s->number, 6);
	cr_expect_str_eq(s->text, "Abort trap");
	cr_expect_str_eq(s->mach_type, "EXC_CRASH");

	s = pmi_signal_by_number(PM_OS_DARWIN, 5);
	cr_assert_not_null(s);
	cr_expect_str_eq(s->name, "SIGTRAP");
	cr_expect_str_eq(s->text, "Trace/BPT trap");
	cr_expect_str_eq(s->mach_type, "EXC_BREAKPOINT");
	cr_expect_str_eq(pmi_signal_by_number(PM_OS_LINUX, 4)->mach_type, "EXC_BAD_INSTRUCTION");
	cr_expect_str_eq(pmi_signal_by_number(PM_OS_LINUX, 8)->mach_type, "EXC_ARITHMETIC");
	cr_expect_str_eq(pmi_signal_by_name(PM_OS_DARWIN, "SIGEMT")->mach_type, "EXC_EMULATION");
}

Test(decode, every_signal_round_trips)
{
	for (int os = PM_OS_LINUX; os <= PM_OS_DARWIN; os++) {
		int found = 0;
		for (int n = 1; n <= 31; n++) {
			const pm_signal_info *s = pmi_signal_by_number((pm_os)os, n);
			if (!s)
				continue;
			found++;
			cr_expect_eq(s->number, n);
			cr_expect_eq(pmi_signal_by_name((pm_os)os, s->name), s, "%s", s->name);
			cr_expect(strncmp(s->name, "SIG", 3) == 0);
			cr_expect(s->text[0] && s->mach_type[0] && s->meaning[0]);
		}
		cr_expect_eq(found, 31, "os %d has %d signals numbered 1..31", os, found);
	}
}

Test(decode, linux_and_darwin_numbering_differ)
{
	cr_expect_eq(pmi_signal_by_name(PM_OS_LINUX, "SIGBUS")->number, 7);
	cr_expect_eq(pmi_signal_by_name(PM_OS_DARWIN, "SIGBUS")->number, 10);
	cr_expect_eq(pmi_signal_by_name(PM_OS_LINUX, "SIGSYS")->number, 31);
	cr_expect_eq(pmi_signal_by_name(PM_OS_DARWIN, "SIGSYS")->number, 12);
	cr_expect_eq(pmi_signal_by_name(PM_OS_LINUX, "SIGUSR1")->number, 10);
	cr_expect_eq(pmi_signal_by_name(PM_OS_DARWIN, "SIGUSR1")->number, 30);
	cr_expect_str_eq(pmi_signal_by_number(PM_OS_LINUX, 7)->name, "SIGBUS");
	cr_expect_str_eq(pmi_signal_by_number(PM_OS_DARWIN, 7)->name, "SIGEMT");
	cr_expect_str_eq(pmi_signal_by_number(PM_OS_LINUX, 10)->name, "SIGUSR1");
	cr_expect_str_eq(pmi_signal_by_number(PM_OS_DARWIN, 10)->name, "SIGBUS");
	/* Darwin wording with either numbering. */
	cr_expect_str_eq(pmi_signal_by_number(PM_OS_LINUX, 7)->text, "Bus error");
	cr_expect_str_eq(pmi_signal_by_number(PM_OS_LINUX, 6)->text, "Abort trap");
	/* Unknown reads as Darwin. */
	cr_expect_eq(pmi_signal_by_number(PM_OS_UNKNOWN, 10), pmi_signal_by_number(PM_OS_DARWIN, 10));
}

Test(decode, unknown_signals)
{
	cr_expect_null(pmi_signal_by_number(PM_OS_LINUX, 0));
	cr_expect_null(pmi_signal_by_number(PM_OS_LINUX, 32));
	cr_expect_null(pmi_signal_by_number(PM_OS_DARWIN, -1));
	cr_expect_null(pmi_signal_by_name(PM_OS_LINUX, "SIGEMT"), "Linux has no SIGEMT");
	cr_expect_null(pmi_signal_by_name(PM_OS_LINUX, "SIGINFO"));
	cr_expect_null(pmi_signal_by_name(PM_OS_DARWIN, "SIGSTKFLT"));
	cr_expect_null(pmi_signal_by_name(PM_OS_DARWIN, "SIGPWR"));
	cr_expect_null(pmi_signal_by_name(PM_OS_DARWIN, "SIGFOO"));
	cr_expect_null(pmi_signal_by_name(PM_OS_DARWIN, NULL));
	cr_expect_null(pmi_signal_by_name(PM_OS_DARWIN, "sigsegv"));
}

Test(decode, signals_with_addresses)
{
	const char *const with[] = { "SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGTRAP" };
	for (int os = PM_OS_LINUX; os <= PM_OS_DARWIN; os++)
		for (size_t i = 0; i < sizeof with / sizeof with[0]; i++)
			cr_expect(pmi_signal_has_address((pm_os)os, pmi_signal_by_name((pm_os)os, with[i])->number),
			          "%s", with[i]);
	cr_expect(pmi_signal_has_address(PM_OS_LINUX, 7), "SIGBUS is 7 on Linux");
	cr_expect_not(pmi_signal_has_address(PM_OS_DARWIN, 7), "7 is SIGEMT on Darwin");
	cr_expect(pmi_signal_has_address(PM_OS_DARWIN, 10));
	cr_expect_not(pmi_signal_has_address(PM_OS_LINUX, 10), "10 is SIGUSR1 on Linux");
	cr_expect_not(pmi_signal_has_address(PM_OS_LINUX, 6));
	cr_expect_not(pmi_signal_has_address(PM_OS_LINUX, 9));
	cr_expect_not(pmi_signal_has_address(PM_OS_LINUX, 0));
	cr_expect_not(pmi_signal_has_address(PM_OS_LINUX, 99));
}

Test(decode, si_codes_both_directions)
{
	const pm_si_code_info *c = pmi_si_code_by_number(11, 1);
	cr_assert_not_null(c);
	cr_expect_str_eq(c->name, "SEGV_MAPERR");
	cr_expect_str_eq(c->subtype, "KERN_INVALID_ADDRESS");
	cr_expect_eq(pmi_si_code_by_name("SEGV_MAPERR"), c);
	cr_expect_str_eq(pmi_si_code_by_number(11, 2)->subtype, "KERN_PROTECTION_FAILURE");
	cr_expect_str_eq(pmi_si_code_by_number(7, 1)->name, "BUS_ADRALN");
	cr_expect_str_eq(pmi_si_code_by_number(7, 1)->subtype, "EXC_ARM_DA_ALIGN");
	cr_expect_str_eq(pmi_si_code_by_number(7, 2)->subtype, "KERN_PROTECTION_FAILURE");
	cr_expect_str_eq(pmi_si_code_by_number(7, 3)->subtype, "KERN_MEMORY_ERROR");
	cr_expect_str_empty(pmi_si_code_by_number(11, 4)->subtype, "SEGV_PKUERR has no Apple name");
	cr_expect_str_eq(pmi_si_code_by_number(11, 9)->name, "SEGV_MTESERR");
	cr_expect_str_eq(pmi_si_code_by_number(4, 9)->name, "ILL_BADIADDR");
	cr_expect_str_eq(pmi_si_code_by_number(8, 1)->name, "FPE_INTDIV");
	cr_expect_str_eq(pmi_si_code_by_number(8, 15)->name, "FPE_CONDTRAP");
	cr_expect_str_eq(pmi_si_code_by_number(5, 1)->name, "TRAP_BRKPT");
	cr_expect_str_eq(pmi_si_code_by_number(5, 5)->name, "TRAP_UNK");
	cr_expect_str_eq(pmi_si_code_by_number(31, 1)->name, "SYS_SECCOMP");
	cr_expect_str_eq(pmi_si_code_by_number(7, 5)->name, "BUS_MCEERR_AO");

	const char *const names[] = {
		"ILL_ILLOPC", "ILL_BADIADDR", "FPE_INTDIV", "FPE_FLTUNK", "SEGV_ACCERR", "SEGV_BNDERR",
		"SEGV_ACCADI", "SEGV_MTEAERR", "BUS_OBJERR", "BUS_MCEERR_AR", "TRAP_TRACE",
		"TRAP_BRANCH", "TRAP_HWBKPT", "SI_USER", "SI_KERNEL", "SI_QUEUE", "SI_TIMER",
		"SI_MESGQ", "SI_ASYNCIO", "SI_SIGIO", "SI_TKILL",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const pm_si_code_info *n = pmi_si_code_by_name(names[i]);
		cr_assert_not_null(n, "%s", names[i]);
		int signo = n->signo ? n->signo : 11;
		cr_expect_eq(pmi_si_code_by_number(signo, n->code), n, "%s", names[i]);
	}
}

Test(decode, generic_si_codes_match_any_signal)
{
	const pm_si_code_info *c = pmi_si_code_by_number(6, -6);
	cr_assert_not_null(c);
	cr_expect_str_eq(c->name, "SI_TKILL");
	cr_expect_eq(c->signo, 0);
	cr_expect_eq(pmi_si_code_by_number(11, -6), c);
	cr_expect_str_eq(pmi_si_code_by_number(15, 0)->name, "SI_USER");
	cr_expect_str_eq(pmi_si_code_by_number(11, 0x80)->name, "SI_KERNEL");
	cr_expect_eq(pmi_si_code_by_name("SI_KERNEL")->code, 0x80);
	cr_expect_eq(pmi_si_code_by_name("SI_QUEUE")->code, -1);
	/* Signal-specific codes stay with their signal. */
	cr_expect_str_eq(pmi_si_code_by_number(8, 1)->name, "FPE_INTDIV");
	cr_expect_str_eq(pmi_si_code_by_number(7, 1)->name, "BUS_ADRALN");
}

Test(decode, unknown_si_codes)
{
	cr_expect_null(pmi_si_code_by_number(11, 77));
	cr_expect_null(pmi_si_code_by_number(6, 1), "SIGABRT has no code 1");
	cr_expect_null(pmi_si_code_by_number(11, -99));
	cr_expect_null(pmi_si_code_by_name("SEGV_NOPE"));
	cr_expect_null(pmi_si_code_by_name(NULL));
}

Test(decode, mach_exceptions)
{
	for (int n = 1; n <= 13; n++) {
		const pm_mach_exc_info *m = pmi_mach_exc_by_number(n);
		cr_assert_not_null(m, "%d", n);
		cr_expect_eq(pmi_mach_exc_by_name(m->name), m);
		cr_expect(m->meaning[0]);
	}
	cr_expect_str_eq(pmi_mach_exc_by_number(1)->name, "EXC_BAD_ACCESS");
	cr_expect_str_eq(pmi_mach_exc_by_number(10)->name, "EXC_CRASH");
	cr_expect_eq(pmi_mach_exc_by_name("EXC_GUARD")->number, 12);
	cr_expect_eq(pmi_mach_exc_by_name("EXC_CORPSE_NOTIFY")->number, 13);
	cr_expect_null(pmi_mach_exc_by_number(0));
	cr_expect_null(pmi_mach_exc_by_number(14));
	cr_expect_null(pmi_mach_exc_by_name("EXC_NOPE"));
	cr_expect_null(pmi_mach_exc_by_name(NULL));
}

Test(decode, bad_access_codes)
{
	cr_expect_str_eq(pmi_bad_access_code_by_number(1)->name, "KERN_INVALID_ADDRESS");
	cr_expect_str_eq(pmi_bad_access_code_by_number(2)->name, "KERN_PROTECTION_FAILURE");
	cr_expect_str_eq(pmi_bad_access_code_by_number(9)->name, "KERN_MEMORY_FAILURE");
	cr_expect_str_eq(pmi_bad_access_code_by_number(10)->name, "KERN_MEMORY_ERROR",
	                 "kern_return_t wins over EXC_I386_INVTSSFLT");
	cr_expect_str_eq(pmi_bad_access_code_by_number(50)->name, "KERN_CODESIGN_ERROR");
	cr_expect_str_eq(pmi_bad_access_code_by_number(0x101)->name, "EXC_ARM_DA_ALIGN");
	cr_expect_str_eq(pmi_bad_access_code_by_number(0x105)->name, "EXC_ARM_PAC_FAIL");
	cr_expect_str_eq(pmi_bad_access_code_by_number(13)->name, "EXC_I386_GPFLT");
	cr_expect_eq(pmi_bad_access_code_by_name("KERN_CODESIGN_ERROR")->code, 0x32);
	cr_expect_eq(pmi_bad_access_code_by_name("EXC_ARM_SP_ALIGN")->code, 0x103);
	cr_expect_eq(pmi_bad_access_code_by_name("EXC_I386_ALIGNFLT")->code, 17);
	cr_expect_eq(pmi_bad_access_code_by_name("EXC_I386_INVTSSFLT")->code, 10);
	cr_expect_null(pmi_bad_access_code_by_number(0));
	cr_expect_null(pmi_bad_access_code_by_number(3));
	cr_expect_null(pmi_bad_access_code_by_number(UINT64_MAX));
	cr_expect_null(pmi_bad_access_code_by_name("KERN_SUCCESS"));
}

Test(decode, namespaces)
{
	cr_expect_str_eq(pmi_namespace_by_number(1)->name, "JETSAM");
	cr_expect_str_eq(pmi_namespace_by_number(2)->name, "SIGNAL");
	cr_expect_str_eq(pmi_namespace_by_number(10)->name, "SPRINGBOARD");
	cr_expect_str_eq(pmi_namespace_by_number(15)->name, "RUNNINGBOARD");
	cr_expect_str_eq(pmi_namespace_by_number(36)->name, "BOOTMOUNT");
	for (uint64_t n = 1; n <= 36; n++) {
		const pm_code_info *c = pmi_namespace_by_number(n);
		cr_assert_not_null(c, "%llu", (unsigned long long)n);
		cr_expect_eq(pmi_namespace_by_name(c->name), c, "%s", c->name);
		cr_expect(c->meaning[0]);
	}
	cr_expect_eq(pmi_namespace_by_name("TCC")->code, 11);
	cr_expect_eq(pmi_namespace_by_name("ASSERTIOND")->code, 15);
	cr_expect_eq(pmi_namespace_by_name("FRONTBOARD")->code, UINT64_MAX);
	cr_expect_eq(pmi_namespace_by_name("CAROUSEL")->code, UINT64_MAX);
	cr_expect_null(pmi_namespace_by_number(UINT64_MAX), "not numbered is not a number");
	cr_expect_null(pmi_namespace_by_number(0));
	cr_expect_null(pmi_namespace_by_number(37));
	cr_expect_null(pmi_namespace_by_name("SIGNALS"));
	cr_expect_null(pmi_namespace_by_name(NULL));
}

Test(decode, magic_codes)
{
	const pm_magic_code *m = pmi_magic_code_lookup(0x8badf00d);
	cr_assert_not_null(m);
	cr_expect_str_eq(m->nickname, "ate bad food");
	cr_expect(strstr(m->meaning, "watchdog") || strstr(m->meaning, "Watchdog"));
	cr_expect(m->cause[0]);
	cr_expect_eq(pmi_magic_code_lookup(2343432205u), m, "the .ips decimal form");
	cr_expect_str_eq(pmi_magic_code_lookup(0xdead10cc)->nickname, "dead lock");
	cr_expect_str_eq(pmi_magic_code_lookup(0xc00010ff)->nickname, "cool off");
	cr_expect_str_eq(pmi_magic_code_lookup(0xbada5e47)->nickname, "bad assert(ion)");
	cr_expect_str_empty(pmi_magic_code_lookup(0xc51bad01)->nickname);
	cr_expect_null(pmi_magic_code_lookup(0));
	cr_expect_null(pmi_magic_code_lookup(0xb));
	cr_expect_null(pmi_magic_code_lookup(0x8badf00e));

	size_t n = 0;
	const pm_magic_code *all = pmi_magic_codes(&n);
	cr_expect_eq(n, 17);
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(pmi_magic_code_lookup(all[i].code), &all[i]);
		cr_expect(all[i].meaning[0] && all[i].cause[0]);
	}
}

/* The tables hold their text in fixed arrays (decode.h): each must keep room
 * for its terminator, or a lookup would hand out a string that runs on. */
#define TERMINATED(field) (memchr((field), '\0', sizeof(field)) != NULL)

Test(decode, every_text_is_terminated)
{
	size_t seen = 0;
	for (int os = PM_OS_LINUX; os <= PM_OS_DARWIN; os++)
		for (int n = 1; n <= 64; n++) {
			const pm_signal_info *s = pmi_signal_by_number((pm_os)os, n);
			if (s && ++seen)
				cr_expect(TERMINATED(s->name) && TERMINATED(s->text) && TERMINATED(s->mach_type) &&
				          TERMINATED(s->meaning), "signal %d", n);
		}
	static const int signos[] = { 0, 4, 5, 7, 8, 11, 31 };
	for (size_t i = 0; i < sizeof signos / sizeof signos[0]; i++)
		for (int code = -16; code <= 0x100; code++) {
			const pm_si_code_info *c = pmi_si_code_by_number(signos[i], code);
			if (c && ++seen)
				cr_expect(TERMINATED(c->name) && TERMINATED(c->subtype) && TERMINATED(c->meaning),
				          "si_code %d/%d", signos[i], code);
		}
	for (int n = 0; n <= 64; n++) {
		const pm_mach_exc_info *m = pmi_mach_exc_by_number(n);
		if (m && ++seen)
			cr_expect(TERMINATED(m->name) && TERMINATED(m->meaning), "mach exception %d", n);
	}
	for (uint64_t n = 0; n <= 0x200; n++) {
		const pm_code_info *c = pmi_bad_access_code_by_number(n);
		if (c && ++seen)
			cr_expect(TERMINATED(c->name) && TERMINATED(c->meaning), "bad access code %#lx", (unsigned long)n);
		c = pmi_namespace_by_number(n);
		if (c && ++seen)
			cr_expect(TERMINATED(c->name) && TERMINATED(c->meaning), "namespace %lu", (unsigned long)n);
	}
	size_t n = 0;
	const pm_magic_code *all = pmi_magic_codes(&n);
	for (size_t i = 0; i < n; i++, seen++)
		cr_expect(TERMINATED(all[i].nickname) && TERMINATED(all[i].meaning) && TERMINATED(all[i].cause),
		          "magic code %#lx", (unsigned long)all[i].code);
	/* 62 signal rows, 40-odd si_codes, 13 Mach exceptions, 16 + 37 codes, 17 magic codes */
	cr_expect_gt(seen, 170);
}

Test(decode, exc_resource_worked_example)
{
	char st[32], msg[96];
	cr_assert(pmi_decode_exc_resource(0x2400000000005a32, 0x3c, st, sizeof st, msg, sizeof msg));
	cr_expect_str_eq(st, "CPU");
	cr_expect_str_eq(msg, "(Limit 50%) Observed 60% over 180 secs");
}

Test(decode, exc_resource_other_kinds)
{
	char st[32], msg[96];
	/* WAKEUPS: interval 300 s in bits 31..20, 150/s in bits 19..0; observed 195/s. */
	uint64_t wake = (UINT64_C(2) << 61) | (UINT64_C(1) << 58) | (UINT64_C(300) << 20) | 150;
	cr_assert(pmi_decode_exc_resource(wake, 195, st, sizeof st, msg, sizeof msg));
	cr_expect_str_eq(st, "WAKEUPS");
	cr_expect_str_eq(msg, "(Limit 150/sec) Observed 195/sec over 300 secs");

	uint64_t fatal = (UINT64_C(1) << 61) | (UINT64_C(2) << 58) | (UINT64_C(60) << 7) | 90;
	cr_assert(pmi_decode_exc_resource(fatal, 95, st, sizeof st, msg, sizeof msg));
	cr_expect_str_eq(st, "CPU_FATAL");
	cr_expect_str_eq(msg, "(Limit 90%) Observed 95% over 60 secs");

	uint64_t mem = (UINT64_C(3) << 61) | (UINT64_C(1) << 58) | 2098;
	cr_assert(pmi_decode_exc_resource(mem, 0, st, sizeof st, msg, sizeof msg));
	cr_expect_str_eq(st, "MEMORY");
	cr_expect_str_eq(msg, "(Limit 2098 MB) Crossed High Water Mark");

	uint64_t io = (UINT64_C(4) << 61) | (UINT64_C(2) << 58) | (UINT64_C(86400) << 15) | 2048;
	cr_assert(pmi_decode_exc_resource(io, 4096, st, sizeof st, msg, sizeof msg));
	cr_expect_str_eq(st, "IO");
	cr_expect_str_eq(msg, "(Limit 2048 MB) Observed 4096 MB over 86400 secs");

	uint64_t ports = (UINT64_C(6) << 61) | (UINT64_C(1) << 58) | 100000;
	cr_assert(pmi_decode_exc_resource(ports, 0, st, sizeof st, msg, sizeof msg));
	cr_expect_str_eq(st, "PORT_SPACE");
}

Test(decode, exc_resource_rejects_unknown_codes)
{
	char st[32] = "untouched", msg[96];
	cr_expect_not(pmi_decode_exc_resource(0, 0, st, sizeof st, msg, sizeof msg));
	cr_expect_not(pmi_decode_exc_resource(UINT64_C(7) << 61, 0, st, sizeof st, msg, sizeof msg));
	cr_expect_not(pmi_decode_exc_resource((UINT64_C(1) << 61) | (UINT64_C(5) << 58), 0, st, sizeof st,
	                                     msg, sizeof msg), "unknown CPU flavor");
	cr_expect_str_eq(st, "untouched");
}

Test(decode, exc_guard_worked_example)
{
	char st[32], msg[96];
	cr_assert(pmi_decode_exc_guard(0x400000010000000e, 0x08fd4dbfade2dead, st, sizeof st, msg, sizeof msg));
	cr_expect_str_eq(st, "GUARD_TYPE_FD");
	cr_expect_str_eq(msg, "CLOSE on file descriptor 14, guard 0x08fd4dbfade2dead");
}

Test(decode, exc_guard_other_kinds)
{
	char st[40], msg[128];
	uint64_t dup = (UINT64_C(2) << 61) | (UINT64_C(2) << 32) | 0;
	cr_assert(pmi_decode_exc_guard(dup, 0x1234, st, sizeof st, msg, sizeof msg));
	cr_expect_str_eq(msg, "DUP on file descriptor 0, guard 0x0000000000001234");

	uint64_t both = (UINT64_C(2) << 61) | (UINT64_C(65) << 32) | 3;
	cr_assert(pmi_decode_exc_guard(both, 1, st, sizeof st, msg, sizeof msg));
	cr_expect_str_eq(msg, "CLOSE|WRITE on file descriptor 3, guard 0x0000000000000001");

	uint64_t port = (UINT64_C(1) << 61) | (UINT64_C(1) << 32) | 0x1503;
	cr_assert(pmi_decode_exc_guard(port, 0, st, sizeof st, msg, sizeof msg));
	cr_expect_str_eq(st, "GUARD_TYPE_MACH_PORT");
	cr_expect_str_eq(msg, "flavor 0x1 on mach port 5379, payload 0x0000000000000000");

	uint64_t vm = (UINT64_C(5) << 61) | (UINT64_C(1) << 32);
	cr_assert(pmi_decode_exc_guard(vm, 0x4000, st, sizeof st, msg, sizeof msg));
	cr_expect_str_eq(st, "GUARD_TYPE_VIRT_MEMORY");
	cr_expect_str_eq(msg, "flavor 0x1, offset 0x0000000000004000");
}

Test(decode, exc_guard_rejects_unknown_types)
{
	char st[32], msg[96];
	cr_expect_not(pmi_decode_exc_guard(0x0000000100000000, 0x08fd4dbfade2dead, st, sizeof st, msg,
	                                  sizeof msg), "GUARD_TYPE_NONE");
	cr_expect_not(pmi_decode_exc_guard(UINT64_C(7) << 61, 0, st, sizeof st, msg, sizeof msg));
}

Test(decode, decoders_never_overrun)
{
	char st[5], msg[12];
	memset(st, 'x', sizeof st);
	memset(msg, 'x', sizeof msg);
	cr_assert(pmi_decode_exc_guard(0x400000010000000e, 0x08fd4dbfade2dead, st, 4, msg, 10));
	cr_expect_str_eq(st, "GUA");
	cr_expect_str_eq(msg, "CLOSE on ");
	cr_expect_eq(st[4], 'x');
	cr_expect_eq(msg[10], 'x');
}
