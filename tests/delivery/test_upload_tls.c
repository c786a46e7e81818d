/*
 * test_upload_tls.c — HTTPS: the server's certificate is checked unless the
 * caller says otherwise.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "http_server.h"
#include "tls_cert.h"
#include "upload_util.h"

static void
setup(void)
{
	/* OpenSSL writes to sockets without MSG_NOSIGNAL; a client hanging up must not kill the test. */
	signal(SIGPIPE, SIG_IGN);
}

TestSuite(upload_tls, .init = setup, .timeout = 120);

static const http_reply ok[] = { { .status = 200 }, { 0 } };

typedef struct tls_case {
	const char *san;      /* names the certificate is for */
	bool trust;           /* give its certificate as ca_file */
	bool insecure;
	bool delivered;
} tls_case;

static void
run(const tls_case *c)
{
	char *dir = upload_make_reports(1, 0);
	char cert[4096];
	snprintf(cert, sizeof cert, "%s/server.pem", dir);
	http_server *srv = http_server_start_tls(ok, tls_server_context(c->san, cert));
	pm_upload_options opt = upload_options(http_server_url(srv));
	opt.ca_file = c->trust ? cert : NULL;
	opt.insecure_tls = c->insecure;
	pm_store *s = upload_store(dir);
	pm_upload_result res;
	cr_assert_eq(pm_upload_pending(s, &opt, &res), PM_OK);
	pm_store_close(s);
	bool pending = upload_exists(upload_path(dir, "pending", upload_id(0), ".json"));
	if (c->delivered) {
		cr_expect_eq(res.sent, 1);
		cr_expect_eq(http_server_count(srv), 1);
		cr_expect(!pending);
	} else {
		cr_expect_eq(res.kept, 1);
		cr_expect_eq(http_server_count(srv), 0, "a request went to an unverified server");
		cr_expect_eq(http_server_connections(srv), 1, "a refused certificate is not retried");
		cr_expect(pending);
	}
	http_server_stop(srv);
	upload_remove(dir);
}

Test(upload_tls, unknown_certificate_is_refused_by_default)
{
	run(&(tls_case){ .san = "IP:127.0.0.1", .delivered = false });
}

Test(upload_tls, trusted_ca_file_delivers)
{
	run(&(tls_case){ .san = "IP:127.0.0.1", .trust = true, .delivered = true });
}

Test(upload_tls, certificate_for_another_host_is_refused)
{
	run(&(tls_case){ .san = "DNS:crash.example", .trust = true, .delivered = false });
}

Test(upload_tls, insecure_delivers_only_when_asked)
{
	run(&(tls_case){ .san = "DNS:crash.example", .insecure = true, .delivered = true });
}
