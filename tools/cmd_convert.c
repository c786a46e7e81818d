/*
 * cmd_convert.c — `postmortem convert IN [-o OUT] [--to crash|json]`.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

static const char usage_line[] = "convert IN [-o OUT] [--to crash|json]";

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "Read a crash report in any supported format (detected from its content:\n"
	       "postmortem JSON twin, Apple .crash text, Apple .ips) and write it as\n"
	       "Apple-style .crash text or as a postmortem JSON twin.\n\n"
	       "  -o, --output OUT   write to OUT instead of standard output\n"
	       "  -t, --to FORMAT    crash or json (default: crash, or json when IN is .crash text)\n"
	       "  -h, --help         show this help\n\n"
	       "Exit status: 0 converted, 1 IN could not be read, 2 bad usage, 3 OUT could not be written.\n",
	       usage_line);
}

static int
write_report(const pm_report *r, bool json, int fd)
{
	char buf[1 << 16];
	pm_out o;
	pm_out_init_fd(&o, fd, buf, sizeof buf);
	return json ? pm_write_json(r, &o) : pm_write_text(r, &o);
}

static int
convert(const char *in, const char *out, const char *to)
{
	pm_report r;
	int rc = cli_load("convert", in, &r);
	if (rc != PM_EXIT_OK)
		return rc;
	bool json = to ? strcmp(to, "json") == 0 : r.format == PM_FORMAT_TEXT;
	int fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : STDOUT_FILENO;
	if (fd < 0) {
		cli_error("convert", "cannot write %s: %s", out, strerror(errno));
		pm_report_free(&r);
		return PM_EXIT_IO;
	}
	pm_err e = write_report(&r, json, fd);
	if (out && close(fd) != 0 && e == PM_OK)
		e = PM_E_IO;
	pm_report_free(&r);
	if (e != PM_OK) {
		cli_error("convert", "cannot write %s: %s", out ? out : "standard output", strerror(errno));
		if (out)
			unlink(out);
		return PM_EXIT_IO;
	}
	return PM_EXIT_OK;
}

int
cmd_convert(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "to", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *out = NULL, *to = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "o:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 't': to = optarg; break;
		case 'h': help(); return PM_EXIT_OK;
		default: return cli_usage_error("convert", usage_line);
		}
	}
	if (to && strcmp(to, "crash") != 0 && strcmp(to, "json") != 0) {
		cli_error("convert", "--to must be crash or json, not '%s'", to);
		return PM_EXIT_USAGE;
	}
	if (optind + 1 != argc)
		return cli_usage_error("convert", usage_line);
	return convert(argv[optind], out, to);
}
