// cxx_throw.cpp — a C++ program that dies of an exception nobody catches.
// It does not link postmortem: the tests run it under libpostmortem-preload.so.
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
	(void)argv;
	return app::parse_config(argc + 41);
}
