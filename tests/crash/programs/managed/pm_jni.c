/* Runtimes.java's native methods: pm_install (an app that embeds postmortem
 * in its JVM; the JVM's handlers were there first) and a fault in native
 * code (a real crash). */
#include <jni.h>

#include "postmortem.h"

int *volatile pm_jni_bad = (int *)16;

JNIEXPORT void JNICALL
Java_Runtimes_install(JNIEnv *env, jclass cls)
{
	(void)env;
	(void)cls;
	pm_install(NULL);
}

JNIEXPORT void JNICALL
Java_Runtimes_fault(JNIEnv *env, jclass cls)
{
	(void)env;
	(void)cls;
	*pm_jni_bad = 1;
}
