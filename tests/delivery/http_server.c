/*
 * http_server.c — the loopback HTTP server of http_server.h.
 *
 * One connection at a time, one request per connection ("Connection:
 * close"): the uploader sends reports one after another, so this is all the
 * tests need, and each retry shows up as its own connection.  With a TLS
 * context the same runs over OpenSSL.
 */
#include "http_server.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct http_server {
	int fd;
	uint16_t port;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t arrived;   /* a request was recorded, or a release or stop came */
	atomic_bool stop;
	bool released;            /* under lock */
	atomic_bool keep_bodies;
	SSL_CTX *tls;             /* NULL: plain HTTP */
	atomic_uint connections;
	const http_reply *script;
	size_t next;              /* script position */
	http_request **req;
	size_t count, cap;
};

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *
http_request_header(const http_request *r, const char *name, char *buf, size_t cap)
{
	size_t n = strlen(name);
	for (const char *line = r->head; line && *line;) {
		const char *end = strstr(line, "\r\n");
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if (len > n && line[n] == ':' && strncasecmp(line, name, n) == 0) {
			const char *v = line + n + 1;
			while (*v == ' ')
				v++;
			size_t vlen = len - (size_t)(v - line);
			snprintf(buf, cap, "%.*s", (int)vlen, v);
			return buf;
		}
		line = end ? end + 2 : line + len;
	}
	return NULL;
}

const http_part *
http_request_part(const http_request *r, const char *name)
{
	for (size_t i = 0; i < r->part_count; i++)
		if (strcmp(r->parts[i].name, name) == 0)
			return &r->parts[i];
	return NULL;
}

typedef struct conn {
	int fd;
	SSL *ssl;
} conn;

static ssize_t
conn_recv(conn *c, char *p, size_t n)
{
	return c->ssl ? SSL_read(c->ssl, p, (int)n) : recv(c->fd, p, n, 0);
}

static void
conn_send(conn *c, const char *p, size_t n)
{
	if (c->ssl)
		SSL_write(c->ssl, p, (int)n);
	else
		send(c->fd, p, n, MSG_NOSIGNAL);
}

/* Read until the blank line, then Content-Length bytes of body.  NULL on a broken request. */
static http_request *
read_request(conn *c)
{
	size_t cap = 1 << 16, len = 0, head_end = 0, body_len = 0;
	char *buf = malloc(cap + 1);
	for (;;) {
		if (len == cap)
			buf = realloc(buf, (cap *= 2) + 1);
		ssize_t got = conn_recv(c, buf + len, cap - len);
		if (got <= 0) {
			free(buf);
			return NULL;
		}
		len += (size_t)got;
		buf[len] = '\0';
		if (!head_end) {
			char *blank = strstr(buf, "\r\n\r\n");
			if (!blank)
				continue;
			head_end = (size_t)(blank - buf) + 4;
			char *cl = strcasestr(buf, "\r\nContent-Length:");
			body_len = cl && cl < blank ? strtoul(cl + 17, NULL, 10) : 0;
		}
		if (len >= head_end + body_len)
			break;
	}
	http_request *r = calloc(1, sizeof *r);
	r->arrived = now_s();
	char *line_end = strstr(buf, "\r\n");
	sscanf(buf, "%15s %255s", r->method, r->path);
	r->head = strndup(line_end + 2, head_end - (size_t)(line_end + 2 - buf) - 2);
	r->body_len = body_len;
	r->body = malloc(body_len + 1);
	memcpy(r->body, buf + head_end, body_len);
	r->body[body_len] = '\0';
	free(buf);
	return r;
}

static const char *
reason_phrase(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 408: return "Request Timeout";
	case 413: return "Payload Too Large";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	default: return "Status";
	}
}

static void
wait_release(http_server *s)
{
	pthread_mutex_lock(&s->lock);
	while (!s->released && !atomic_load(&s->stop))
		pthread_cond_wait(&s->arrived, &s->lock);
	pthread_mutex_unlock(&s->lock);
}

static void
answer(http_server *s, conn *c, const http_reply *reply)
{
	if (reply->hold)
		wait_release(s);
	if (reply->hang_up || atomic_load(&s->stop))
		return;
	const char *body = reply->body ? reply->body : "";
	char *out = NULL;
	int n = asprintf(&out, "HTTP/1.1 %d %s\r\nContent-Length: %zu\r\nConnection: close\r\n%s\r\n%s",
	                 reply->status, reason_phrase(reply->status), strlen(body),
	                 reply->headers ? reply->headers : "", body);
	if (n > 0)
		conn_send(c, out, (size_t)n);
	free(out);
}

static void
record(http_server *s, http_request *r)
{
	http_form_parse(r);
	if (!s->keep_bodies) {
		http_form_free(r);
		free(r->body);
		r->body = NULL;
	}
	pthread_mutex_lock(&s->lock);
	if (s->count == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->req = realloc(s->req, s->cap * sizeof *s->req);
	}
	s->req[s->count++] = r;
	pthread_cond_broadcast(&s->arrived);
	pthread_mutex_unlock(&s->lock);
}

static void
serve(http_server *s, int fd)
{
	struct timeval tv = { 10, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	conn c = { .fd = fd };
	if (s->tls) {
		c.ssl = SSL_new(s->tls);
		SSL_set_fd(c.ssl, fd);
		if (SSL_accept(c.ssl) != 1) {
			SSL_free(c.ssl);
			return;
		}
	}
	http_request *r = read_request(&c);
	if (r) {
		static const http_reply fallback = { .status = 200 };
		const http_reply *reply = s->script[s->next].status ? &s->script[s->next++] : &fallback;
		record(s, r);
		answer(s, &c, reply);
	}
	if (c.ssl) {
		SSL_shutdown(c.ssl);
		SSL_free(c.ssl);
	}
}

static void *
run(void *arg)
{
	http_server *s = arg;
	while (!atomic_load(&s->stop)) {
		struct pollfd p = { .fd = s->fd, .events = POLLIN };
		if (poll(&p, 1, 20) <= 0)
			continue;
		int fd = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		atomic_fetch_add(&s->connections, 1);
		serve(s, fd);
		close(fd);
	}
	return NULL;
}

http_server *
http_server_start(const http_reply *script)
{
	return http_server_start_tls(script, NULL);
}

http_server *
http_server_start_tls(const http_reply *script, void *tls)
{
	http_server *s = calloc(1, sizeof *s);
	s->script = script;
	s->tls = tls;
	s->keep_bodies = true;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->arrived, NULL);
	s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert(s->fd >= 0, "socket: %s", strerror(errno));
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof a;
	cr_assert(bind(s->fd, (struct sockaddr *)&a, sizeof a) == 0, "bind: %s", strerror(errno));
	cr_assert(listen(s->fd, 64) == 0);
	getsockname(s->fd, (struct sockaddr *)&a, &alen);
	s->port = ntohs(a.sin_port);
	cr_assert(pthread_create(&s->thread, NULL, run, s) == 0);
	return s;
}

void
http_server_stop(http_server *s)
{
	pthread_mutex_lock(&s->lock);
	atomic_store(&s->stop, true);
	pthread_cond_broadcast(&s->arrived);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	close(s->fd);
	for (size_t i = 0; i < s->count; i++) {
		http_form_free(s->req[i]);
		free(s->req[i]->head);
		free(s->req[i]->body);
		free(s->req[i]);
	}
	free(s->req);
	SSL_CTX_free(s->tls);
	pthread_cond_destroy(&s->arrived);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

uint16_t
http_server_port(const http_server *s)
{
	return s->port;
}

const char *
http_server_url(const http_server *s)
{
	static char url[64];
	snprintf(url, sizeof url, "%s://127.0.0.1:%u/upload", s->tls ? "https" : "http", (unsigned)s->port);
	return url;
}

unsigned
http_server_connections(http_server *s)
{
	return atomic_load(&s->connections);
}

void
http_server_drop_bodies(http_server *s)
{
	s->keep_bodies = false;
}

void
http_server_release(http_server *s)
{
	pthread_mutex_lock(&s->lock);
	s->released = true;
	pthread_cond_broadcast(&s->arrived);
	pthread_mutex_unlock(&s->lock);
}

size_t
http_server_count(http_server *s)
{
	pthread_mutex_lock(&s->lock);
	size_t n = s->count;
	pthread_mutex_unlock(&s->lock);
	return n;
}

const http_request *
http_server_request(http_server *s, size_t i)
{
	pthread_mutex_lock(&s->lock);
	const http_request *r = i < s->count ? s->req[i] : NULL;
	pthread_mutex_unlock(&s->lock);
	return r;
}

bool
http_server_wait(http_server *s, size_t n, uint32_t timeout_ms)
{
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&s->lock);
	while (s->count < n && pthread_cond_timedwait(&s->arrived, &s->lock, &deadline) != ETIMEDOUT)
		;
	bool ok = s->count >= n;
	pthread_mutex_unlock(&s->lock);
	return ok;
}
