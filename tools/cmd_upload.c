/*
 * cmd_upload.c — `postmortem upload [--dir D] --url URL | --dsn DSN [options]`:
 * one delivery pass over the pending reports, in the foreground.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "commands.h"

static const char usage_line[] =
	"upload [--dir D] (--url URL | --dsn DSN) [--header 'K: V']... [--allow-http] [--insecure]\n"
	"                         [--ca-file F] [--timeout-ms N] [--deadline-ms N] [--attempts N] [--no-gzip]\n"
	"                         [--symbolicate] [--environment NAME] [--fingerprint-signature]";

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "Send the pending reports of a reports directory to URL, one multipart POST\n"
	       "each (docs/upload.md), or to Sentry, one envelope each (docs/sentry.md).\n"
	       "A report leaves pending only after a 2xx answer;\n"
	       "408, 429, 5xx and broken transfers are retried with backoff; other 4xx\n"
	       "move it to quarantine/ with the server's reason.  To Sentry, the sessions\n"
	       "of the runs that ended go too (release health: a crashed run's in its\n"
	       "crash's envelope), each once; those without a release (the app's version\n"
	       "unknown), which Sentry drops, are not sent.  Opening the directory applies\n"
	       "storm control first (docs/store.md): of a crash group's reports the first\n"
	       "and the latest few are sent, and the group's latest says how many more\n"
	       "crashed.\n\n"
	       "  -d, --dir D          reports directory (default: $POSTMORTEM_DIR, else\n"
	       "                       $XDG_STATE_HOME/postmortem, else ~/.local/state/postmortem)\n"
	       "  -u, --url URL        where to POST: https://..., or http:// to this machine\n"
	       "      --dsn DSN        a Sentry project's DSN instead of a URL (default:\n"
	       "                       $POSTMORTEM_DSN when no --url is given)\n"
	       "  -H, --header 'K: V'  extra request header (repeatable), e.g. an auth token\n"
	       "      --allow-http     permit plain HTTP to other hosts (reports travel unencrypted)\n"
	       "      --insecure       do not verify the server's TLS certificate\n"
	       "      --ca-file F      trust the CA certificates in F instead of the system's\n"
	       "      --timeout-ms N   limit for one request (default 60000)\n"
	       "      --deadline-ms N  limit for the whole pass, retries included (default\n"
	       "                       twice --timeout-ms); what is left stays pending\n"
	       "      --attempts N     tries per report before it is kept for later (default 5)\n"
	       "      --no-gzip        send the files uncompressed\n"
	       "      --symbolicate    symbolicate with local debug information first\n"
	       "      --environment NAME\n"
	       "                       with --dsn: the Sentry environment of every event\n"
	       "                       (default: $POSTMORTEM_ENVIRONMENT, else production)\n"
	       "      --fingerprint-signature\n"
	       "                       with --dsn: Sentry groups the events by postmortem's\n"
	       "                       crash signature (docs/grouping.md) instead of its own\n"
	       "                       rules; the signature is the tag postmortem.signature\n"
	       "                       either way\n"
	       "  -h, --help           show this help\n\n"
	       "Progress goes to standard error (on a terminal: n of N reports and their\n"
	       "size, as it goes); a one-line summary to standard output, always (with\n"
	       "--dsn, the sessions' too).\n"
	       "Exit status: 0 every report (and session) was delivered, or none was\n"
	       "waiting, 1 some reports or sessions stay waiting or were quarantined, or\n"
	       "the directory cannot be opened, 2 bad usage (including a URL refused by\n"
	       "the rules above).\n",
	       usage_line);
}

/* A positive 32-bit count of milliseconds or attempts. */
static bool
parse_u32(const char *s, uint32_t *out)
{
	char *end;
	errno = 0;
	uintmax_t v = strtoumax(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v == 0 || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* What the pass handled, for the progress line and the summary. */
typedef struct progress {
	bool tty;
	size_t total;
	uint64_t total_bytes;
} progress;

static void
on_progress(void *ctx, size_t done, size_t total, uint64_t done_bytes, uint64_t total_bytes)
{
	progress *p = ctx;
	p->total = total;
	p->total_bytes = total_bytes;
	if (!p->tty)
		return;
	char a[32], b[32];
	cli_format_size(done_bytes, a, sizeof a);
	cli_format_size(total_bytes, b, sizeof b);
	/* Cleared, written, carriage return: the next log line writes over it. */
	fprintf(stderr, "\033[Kpostmortem upload: %zu of %zu reports, %s of %s\r", done, total, a, b);
	fflush(stderr);
}

static int
upload(const char *dir, pm_upload_options *opt)
{
	pm_store_options so = { .dir = dir };
	pm_store *s = NULL;
	pm_err e = pm_store_open(&s, &so);
	if (e != PM_OK) {
		cli_error("upload", "cannot open the reports directory%s%s: %s", dir ? " " : "",
		          dir ? dir : "", pm_strerror(e));
		return PM_EXIT_FAIL;
	}
	pm_upload_result res;
	progress p = { .tty = isatty(STDERR_FILENO) };
	opt->progress = on_progress;
	opt->progress_ctx = &p;
	e = pm_upload_pending(s, opt, &res);
	pm_store_close(s);
	if (p.tty && p.total)
		fputs("\033[K", stderr);
	if (e == PM_E_INVAL) {
		cli_error("upload", "the URL, the DSN, the environment or a header was refused (see above)");
		return PM_EXIT_USAGE;
	}
	if (e != PM_OK) {
		cli_error("upload", "%s", pm_strerror(e));
		return PM_EXIT_FAIL;
	}
	char size[32];
	cli_format_size(p.total_bytes, size, sizeof size);
	printf("sent %" PRIu32 ", kept %" PRIu32 ", quarantined %" PRIu32 " (of %zu pending reports, %s)", res.sent,
	       res.kept, res.quarantined, p.total, size);
	if (opt->dsn)
		printf("; sessions: sent %" PRIu32 ", kept %" PRIu32 ", not sent without a release %" PRIu32,
		       res.sessions_sent, res.sessions_kept, res.sessions_unversioned);
	putchar('\n');
	return res.kept || res.quarantined || res.sessions_kept ? PM_EXIT_FAIL : PM_EXIT_OK;
}

int
cmd_upload(int argc, char **argv)
{
	enum { OPT_ALLOW_HTTP = 256, OPT_DSN, OPT_INSECURE, OPT_CA_FILE, OPT_TIMEOUT, OPT_DEADLINE, OPT_ATTEMPTS,
	       OPT_NO_GZIP, OPT_SYMBOLICATE, OPT_ENVIRONMENT, OPT_FINGERPRINT };
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "url", required_argument, NULL, 'u' },
		{ "dsn", required_argument, NULL, OPT_DSN },
		{ "header", required_argument, NULL, 'H' },
		{ "allow-http", no_argument, NULL, OPT_ALLOW_HTTP },
		{ "insecure", no_argument, NULL, OPT_INSECURE },
		{ "ca-file", required_argument, NULL, OPT_CA_FILE },
		{ "timeout-ms", required_argument, NULL, OPT_TIMEOUT },
		{ "deadline-ms", required_argument, NULL, OPT_DEADLINE },
		{ "attempts", required_argument, NULL, OPT_ATTEMPTS },
		{ "no-gzip", no_argument, NULL, OPT_NO_GZIP },
		{ "symbolicate", no_argument, NULL, OPT_SYMBOLICATE },
		{ "environment", required_argument, NULL, OPT_ENVIRONMENT },
		{ "fingerprint-signature", no_argument, NULL, OPT_FINGERPRINT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	pm_upload_options opt = { 0 };
	const char *dir = NULL;
	/* Every argument could be a header: room for all of them. */
	const char **headers = calloc((size_t)argc, sizeof *headers);
	int rc = -1, c;
	if (!headers) {
		cli_error("upload", "out of memory");
		return PM_EXIT_FAIL;
	}
	while (rc < 0 && (c = getopt_long(argc, argv, "d:u:H:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'u': opt.url = optarg; break;
		case OPT_DSN: opt.dsn = optarg; break;
		case 'H': headers[opt.header_count++] = optarg; break;
		case OPT_ALLOW_HTTP: opt.allow_http = true; break;
		case OPT_INSECURE: opt.insecure_tls = true; break;
		case OPT_CA_FILE: opt.ca_file = optarg; break;
		case OPT_NO_GZIP: opt.no_gzip = true; break;
		case OPT_SYMBOLICATE: opt.symbolicate = true; break;
		case OPT_ENVIRONMENT: opt.environment = optarg; break;
		case OPT_FINGERPRINT: opt.fingerprint_signature = true; break;
		case OPT_TIMEOUT:
		case OPT_DEADLINE:
		case OPT_ATTEMPTS:
			if (!parse_u32(optarg, c == OPT_TIMEOUT ? &opt.timeout_ms
			                       : c == OPT_DEADLINE ? &opt.pass_timeout_ms : &opt.max_attempts)) {
				cli_error("upload", "%s must be a positive number, not '%s'",
				          c == OPT_TIMEOUT ? "--timeout-ms" : c == OPT_DEADLINE ? "--deadline-ms" : "--attempts",
				          optarg);
				rc = PM_EXIT_USAGE;
			}
			break;
		case 'h': help(); rc = PM_EXIT_OK; break;
		default: rc = cli_usage_error("upload", usage_line); break;
		}
	}
	if (!opt.url && !opt.dsn)
		opt.dsn = getenv("POSTMORTEM_DSN");
	if (rc < 0 && ((!opt.url && !opt.dsn) || optind != argc)) {
		if (!opt.url && !opt.dsn)
			cli_error("upload", "--url or --dsn is required");
		rc = cli_usage_error("upload", usage_line);
	}
	if (rc < 0) {
		opt.headers = headers;
		rc = upload(dir, &opt);
	}
	free(headers);
	return rc;
}
