/*
 * upload_env.c — the variables an uploader started at a crash is given
 * from its process's environment (upload_env.h).  NOT AS-safe.
 */
#include "upload_env.h"

const char *const pmi_upload_destination_vars[PMI_UPLOAD_DESTINATION_VARS] = {
	"POSTMORTEM_DSN", "POSTMORTEM_UPLOAD_URL", "POSTMORTEM_UPLOAD_HEADER", "POSTMORTEM_UPLOAD_CA_FILE",
	"POSTMORTEM_UPLOAD_ALLOW_HTTP", "POSTMORTEM_UPLOAD_INSECURE", "POSTMORTEM_UPLOAD_NO_GZIP",
	"POSTMORTEM_ENVIRONMENT", "POSTMORTEM_UPLOAD_FINGERPRINT_SIGNATURE",
};

const char *const pmi_upload_passed_vars[PMI_UPLOAD_PASSED_VARS] = {
	"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE", "LD_LIBRARY_PATH", "HOME", "TMPDIR",
	"POSTMORTEM_STORM_KEEP", /* the uploader's store applies storm control (docs/store.md) */
};
