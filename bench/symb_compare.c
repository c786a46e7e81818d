/*
 * symb_compare.c — how many answers of a symbolizer are identical to
 * llvm-symbolizer's, and what kind of difference each other one is: the
 * first field that differs, frame by frame from the innermost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symb_bench.h"

enum { CLASS_CHAIN, CLASS_OUTER_NAME, CLASS_INLINED_NAME, CLASS_FILE, CLASS_LINE, CLASS_COUNT };
static const char *const class_names[] = {
	"inline chain of another length",
	"outermost function named differently",
	"inlined function named differently",
	"another file",
	"another line",
};

/* Split an answer into its frames in place; returns how many. */
static size_t
split_frames(char *a, char **frames, size_t max)
{
	size_t n = 0;
	for (char *s = a; s && n < max;) {
		frames[n++] = s;
		char *sep = strstr(s, " <- ");
		if (sep)
			*sep = '\0';
		s = sep ? sep + 4 : NULL;
	}
	return n;
}

static int
classify(const char *ours, const char *theirs)
{
	char *a = strdup(ours), *b = strdup(theirs), *fa[64], *fb[64];
	size_t na = split_frames(a, fa, 64), nb = split_frames(b, fb, 64);
	int cls = CLASS_CHAIN;
	for (size_t i = 0; na == nb && i < na; i++) {
		char *at_a = strstr(fa[i], " @ "), *at_b = strstr(fb[i], " @ ");
		char *colon_a = strrchr(fa[i], ':'), *colon_b = strrchr(fb[i], ':');
		if ((size_t)(at_a - fa[i]) != (size_t)(at_b - fb[i]) || strncmp(fa[i], fb[i], (size_t)(at_a - fa[i])) != 0)
			cls = i + 1 == na ? CLASS_OUTER_NAME : CLASS_INLINED_NAME;
		else if (colon_a - at_a != colon_b - at_b || strncmp(at_a, at_b, (size_t)(colon_a - at_a)) != 0)
			cls = CLASS_FILE;
		else if (strcmp(colon_a, colon_b) != 0)
			cls = CLASS_LINE;
		else
			continue;
		break;
	}
	free(a);
	free(b);
	return cls;
}

double
sb_agreement(const sb_side *a, const sb_side *ref, size_t n, sb_label_fn *label, void *ctx)
{
	size_t same = 0, counts[CLASS_COUNT] = { 0 };
	for (size_t i = 0; i < n; i++) {
		const char *x = a->answers[i] ? a->answers[i] : "(no answer)";
		const char *y = ref->answers[i] ? ref->answers[i] : "(no answer)";
		if (strcmp(x, y) == 0) {
			same++;
			continue;
		}
		int cls = classify(x, y);
		if (label && counts[cls] < 3) {
			char where[256];
			label(i, ctx, where, sizeof where);
			printf("  [%s] %s\n    %-18s %s\n    %-18s %s\n", class_names[cls], where, a->name, x, ref->name, y);
		}
		counts[cls]++;
	}
	if (label)
		for (int k = 0; k < CLASS_COUNT; k++)
			printf("  %-40s %zu\n", class_names[k], counts[k]);
	return n ? 100.0 * (double)same / (double)n : 0;
}
