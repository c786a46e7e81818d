/*
 * tls_cert.h — a throwaway certificate authority for the HTTPS tests.
 */
#ifndef PM_TESTS_TLS_CERT_H
#define PM_TESTS_TLS_CERT_H

typedef struct ssl_ctx_st SSL_CTX;

/*
 * A TLS server context with a fresh self-signed certificate for the names
 * in `san` ("DNS:localhost,IP:127.0.0.1"); the certificate is written to
 * cert_path (PEM) for a client to trust.
 */
SSL_CTX *tls_server_context(const char *san, const char *cert_path);

#endif
