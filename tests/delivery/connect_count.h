/*
 * connect_count.h — count the TCP connections this process tries to a port.
 *
 * The test executable defines connect(), which the dynamic linker binds
 * libcurl's calls to before libc's: a port nobody listens on still shows
 * how often the uploader knocked.
 */
#ifndef PM_TESTS_CONNECT_COUNT_H
#define PM_TESTS_CONNECT_COUNT_H

#include <stdint.h>

/* Start counting attempts to 127.0.0.1:port from zero. */
void connect_count_watch(uint16_t port);
unsigned connect_count(void);

#endif
