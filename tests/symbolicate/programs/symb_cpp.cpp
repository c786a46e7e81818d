// symb_cpp.cpp — a C++ crash for the symbolication tests, built with -g -O2:
// the frames must read demangled (ns::Widget::explode(int)).  Tests find the
// expected lines by the LINE: markers.
extern "C" {
#include "sample_crashes/sample.h"
}

namespace ns {

class Widget {
public:
	SAMPLE_FRAME void explode(int v);
	SAMPLE_FRAME void run(int v);
};

void
Widget::explode(int v)
{
	*sample_null = v; // LINE:explode
}

void
Widget::run(int v)
{
	explode(v * 2); // LINE:run
	SAMPLE_KEEP_FRAME();
}

} // namespace ns

int
main(int argc, char **)
{
	sample_install();
	ns::Widget w;
	w.run(argc);
	return 0;
}
