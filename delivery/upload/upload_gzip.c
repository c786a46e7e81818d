/*
 * upload_gzip.c — gzip a report file before it goes into the form.
 *
 * Reports are text with long runs of repeated addresses and paths; gzip
 * shrinks them several times over.  One deflate call over the whole buffer:
 * a report is at most PM_READ_MAX_BYTES and deflateBound tells the room.
 */
#include <stdlib.h>
#include <zlib.h>

#include "upload.h"

pm_err
pmi_upload_gzip(const char *in, size_t n, char **out, size_t *out_len)
{
	z_stream z = { 0 };
	/* 16 + MAX_WBITS: a gzip header and trailer instead of zlib's. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
	                 Z_DEFAULT_STRATEGY) != Z_OK)
		return PM_E_NOMEM;
	uLong cap = deflateBound(&z, (uLong)n);
	char *buf = malloc(cap);
	if (!buf) {
		deflateEnd(&z);
		return PM_E_NOMEM;
	}
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	z.next_out = (Bytef *)buf;
	z.avail_out = (uInt)cap;
	int rc = deflate(&z, Z_FINISH);
	*out_len = (size_t)z.total_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(buf);
		return PM_E_NOMEM;
	}
	*out = buf;
	return PM_OK;
}
