/* runtimes.js's native addon (Node-API): crash(), a write at address 16;
 * built with -DLINKED, install() too, which calls pm_install. */
#include <node_api.h>

#ifdef LINKED
#include "postmortem.h"
#endif

int *volatile pm_addon_bad = (int *)16;

static napi_value
crash(napi_env env, napi_callback_info info)
{
	(void)env;
	(void)info;
	*pm_addon_bad = 1;
	return NULL;
}

#ifdef LINKED
static napi_value
install(napi_env env, napi_callback_info info)
{
	(void)env;
	(void)info;
	pm_install(NULL);
	return NULL;
}
#endif

static void
add_function(napi_env env, napi_value exports, const char *name, napi_callback fn)
{
	napi_value f;
	if (napi_create_function(env, name, NAPI_AUTO_LENGTH, fn, NULL, &f) == napi_ok)
		napi_set_named_property(env, exports, name, f);
}

NAPI_MODULE_INIT()
{
	add_function(env, exports, "crash", crash);
#ifdef LINKED
	add_function(env, exports, "install", install);
#endif
	return exports;
}
