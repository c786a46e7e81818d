/*
 * cli_mask.c — text from a report on its way to a terminal.
 *
 * Names in a report (process, thread, image, symbol) come from the crashed
 * program and from files anyone can write: an escape sequence among them
 * could retitle, recolour or rewrite the user's terminal.  Control
 * characters other than newline and tab are shown as '?', and so is the
 * second byte of a C1 control as UTF-8 encodes it (0xC2 0x80-0x9F), which
 * leaves an invalid sequence a terminal does not act on.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

void
cli_mask(char *p, size_t n, bool *after_c2)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		bool c1 = *after_c2 && c >= 0x80 && c <= 0x9f;
		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || c1)
			p[i] = '?';
		*after_c2 = c == 0xc2;
	}
}

int
cli_print_masked(FILE *f, const char *text)
{
	char *copy = cli_for_locale(text);
	if (!copy)
		return EOF;
	bool after_c2 = false;
	cli_mask(copy, strlen(copy), &after_c2);
	int rc = fputs(copy, f);
	free(copy);
	return rc;
}

/* A writer callback that masks on the way to a terminal. */
typedef struct tty_sink {
	int fd;
	bool after_c2;
} tty_sink;

static bool
to_tty(void *ctx, const char *p, size_t n)
{
	tty_sink *t = ctx;
	char chunk[4096];
	while (n > 0) {
		size_t k = n < sizeof chunk ? n : sizeof chunk;
		memcpy(chunk, p, k);
		cli_mask(chunk, k, &t->after_c2);
		for (size_t done = 0; done < k;) {
			ssize_t w = write(t->fd, chunk + done, k - done);
			if (w < 0)
				return false;
			done += (size_t)w;
		}
		p += k;
		n -= k;
	}
	return true;
}

bool
cli_render(const pm_report *r, bool json, int fd)
{
	pm_format f = json ? PM_FORMAT_JSON : PM_FORMAT_TEXT;
	tty_sink tty = { .fd = fd };
	pm_err e = isatty(fd) ? pm_write_report_cb(r, f, to_tty, &tty) : pm_write_report_fd(r, f, fd);
	return e == PM_OK;
}
