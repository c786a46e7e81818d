// group_throw.cpp — an uncaught C++ exception of the type argv names, thrown
// at one site (tests/crash/test_groups.c: the type is part of the crash
// group).  Run under libpostmortem-preload.so.
//   crash_group_throw runtime | logic
#include <cstring>
#include <stdexcept>

namespace app {
__attribute__((noinline)) void
load(const char *kind)
{
	if (std::strcmp(kind, "logic") == 0)
		throw std::logic_error("a logic error");
	throw std::runtime_error("a runtime error");
}
} // namespace app

int
main(int argc, char **argv)
{
	app::load(argc > 1 ? argv[1] : "runtime");
	return 0;
}
