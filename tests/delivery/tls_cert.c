/*
 * tls_cert.c — make the self-signed certificate of tls_cert.h in memory.
 */
#include "tls_cert.h"

#include <criterion/criterion.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>

static void
add_ext(X509 *x, int nid, const char *value)
{
	X509V3_CTX v3;
	X509V3_set_ctx_nodb(&v3);
	X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
	X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &v3, nid, value);
	cr_assert_not_null(ext, "bad extension %s", value);
	X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
}

SSL_CTX *
tls_server_context(const char *san, const char *cert_path)
{
	EVP_PKEY *key = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	cr_assert(key && x);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), -3600);
	X509_gmtime_adj(X509_getm_notAfter(x), 86400);
	X509_set_pubkey(x, key);
	X509_NAME *name = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"postmortem test", -1, -1, 0);
	X509_set_issuer_name(x, name);
	add_ext(x, NID_basic_constraints, "critical,CA:TRUE");
	add_ext(x, NID_subject_alt_name, san);
	cr_assert(X509_sign(x, key, EVP_sha256()) > 0);

	FILE *f = fopen(cert_path, "w");
	cr_assert_not_null(f, "cannot write %s", cert_path);
	PEM_write_X509(f, x);
	fclose(f);

	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	cr_assert(ctx && SSL_CTX_use_certificate(ctx, x) == 1 && SSL_CTX_use_PrivateKey(ctx, key) == 1);
	X509_free(x);
	EVP_PKEY_free(key);
	return ctx;
}
