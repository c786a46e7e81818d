/*
 * read_text_section.c — the text reader's open section, shared by the
 * section readers: which section a line may continue, how far the reader
 * has come (header, exception, body), and the verbatim multi-line fields a
 * block collects until its section ends.
 */
#include "model.h"
#include "read_text.h"

#include <string.h>

/* The verbatim text of a multi-line field; CRs ending a line are dropped, as for single lines. */
static const char *
copy_block(pm_arena *a, const char *s, const char *e)
{
	char *out = pmi_arena_alloc(a, (size_t)(e - s) + 1, 1);
	if (!out)
		return NULL;
	size_t o = 0;
	for (const char *c = s; c < e;) {
		const char *q = c;
		while (q < e && *q == '\r')
			q++;
		if (q == c) {
			out[o++] = *c++;
			continue;
		}
		if (q == e || *q != '\n') {
			memcpy(out + o, c, (size_t)(q - c));
			o += (size_t)(q - c);
		}
		c = q;
	}
	out[o] = '\0';
	return out;
}

void
pmi_tx_end_section(tx_parser *p)
{
	if (p->section == TX_BLOCK && p->block_start)
		*p->block_dst = copy_block(p->r->arena, p->block_start, p->block_end);
	p->block_dst = NULL;
	p->block_start = p->block_end = NULL;
	p->section = TX_NONE;
}

void
pmi_tx_begin_section(tx_parser *p, tx_section s)
{
	pmi_tx_end_section(p);
	p->section = s;
}

void
pmi_tx_enter_phase(tx_parser *p, tx_phase ph)
{
	if (ph > p->phase)
		p->phase = ph;
}

void
pmi_tx_extend_block(tx_parser *p, tx_span s)
{
	if (!p->block_start)
		p->block_start = s.p;
	p->block_end = s.p + s.n;
}

void
pmi_tx_begin_block(tx_parser *p, const char **dst, tx_span first)
{
	pmi_tx_begin_section(p, TX_BLOCK);
	p->block_dst = dst;
	if (first.n)
		pmi_tx_extend_block(p, first);
}
