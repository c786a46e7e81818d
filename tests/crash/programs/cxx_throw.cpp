// cxx_throw.cpp — a C++ program that dies of an exception nobody catches
// (no argument), or that catches one and then aborts ("caught").  It does
// not link postmortem: the tests run it under libpostmortem-preload.so.
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace app {
__attribute__((noinline)) int
parse_config(int line)
{
	if (line > 3)
		throw std::runtime_error("bad config line " + std::to_string(line));
	return line;
}
} // namespace app

int
main(int argc, char **argv)
{
	if (argc > 1 && std::strcmp(argv[1], "caught") == 0) {
		try {
			app::parse_config(42);
		} catch (const std::exception &) {
		}
		std::abort();
	}
	return app::parse_config(argc + 41);
}
