/*
 * http_server.h — a small HTTP/1.1 server on 127.0.0.1 for the upload tests.
 *
 * It runs on its own thread, answers each connection once from a script of
 * replies (then closes it), and records every request: request line,
 * headers, body, the multipart form decoded (gzip parts inflated) and when
 * it arrived.
 */
#ifndef PM_TESTS_HTTP_SERVER_H
#define PM_TESTS_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct http_reply {
	int status;            /* 0 ends the script: later requests get 200 */
	const char *headers;   /* extra header lines, each ending in "\r\n" */
	const char *body;
	bool hang_up;          /* close the connection without answering */
	bool hold;             /* answer only after http_server_release (or when stopping) */
} http_reply;

#define HTTP_MAX_PARTS 16

typedef struct http_part {
	char name[64], filename[128], type[64];
	char *data;            /* decoded: inflated when the part is application/gzip */
	size_t len;
	bool gzipped;
	bool decode_failed;
} http_part;

typedef struct http_request {
	char method[16], path[256];
	char *head;            /* the header lines as received */
	char *body;            /* NULL when the server does not keep bodies */
	size_t body_len;
	http_part parts[HTTP_MAX_PARTS];
	size_t part_count;
	double arrived;        /* CLOCK_MONOTONIC seconds, once the whole request was read */
} http_request;

typedef struct http_server http_server;

/* Listen on 127.0.0.1 at a free port and serve `script` (terminated by a {0} entry). */
http_server *http_server_start(const http_reply *script);
/* The same over TLS with tls (an SSL_CTX, owned by the server from now on). */
http_server *http_server_start_tls(const http_reply *script, void *tls);
/* Connections accepted, with or without a whole request on them. */
unsigned http_server_connections(http_server *s);
/* Stop serving, join the thread and free everything recorded. */
void http_server_stop(http_server *s);
uint16_t http_server_port(const http_server *s);
/* "http[s]://127.0.0.1:PORT/upload" (static storage). */
const char *http_server_url(const http_server *s);
/* Record requests without their bodies (many-report tests). */
void http_server_drop_bodies(http_server *s);
/* Requests seen so far; each stays valid until http_server_stop. */
size_t http_server_count(http_server *s);
const http_request *http_server_request(http_server *s, size_t i);
/* Wait until n requests arrived or timeout_ms passed; true when they did. */
bool http_server_wait(http_server *s, size_t n, uint32_t timeout_ms);

/* Let held replies go. */
void http_server_release(http_server *s);

/* Value of a request header (case-insensitive name) copied into buf, or NULL. */
const char *http_request_header(const http_request *r, const char *name, char *buf, size_t cap);
/* The form part called name, or NULL. */
const http_part *http_request_part(const http_request *r, const char *name);

/* Split r->body into parts per its multipart/form-data Content-Type (http_form.c). */
void http_form_parse(http_request *r);
void http_form_free(http_request *r);

#endif
