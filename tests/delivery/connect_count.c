/*
 * connect_count.c — connect() wrapper of connect_count.h.
 */
#include "connect_count.h"

#include <dlfcn.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <sys/socket.h>

static atomic_uint watched_port;
static atomic_uint attempts;

void
connect_count_watch(uint16_t port)
{
	atomic_store(&watched_port, port);
	atomic_store(&attempts, 0);
}

unsigned
connect_count(void)
{
	return atomic_load(&attempts);
}

/* glibc declares the address as a transparent union under _GNU_SOURCE: match it exactly. */
int
connect(int fd, __CONST_SOCKADDR_ARG arg, socklen_t len)
{
	typedef int connect_fn(int, __CONST_SOCKADDR_ARG, socklen_t);
	const struct sockaddr *addr = arg.__sockaddr__;
	static connect_fn *real;
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "connect");
	if (addr && addr->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
		if (ntohs(in->sin_port) == atomic_load(&watched_port))
			atomic_fetch_add(&attempts, 1);
	}
	return real(fd, arg, len);
}
