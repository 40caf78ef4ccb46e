// Compiled by the header-boundary test against sift::sift alone: the public API is reachable.
#include <sift/sift.h>

sift::RowResult probe_public() { return {}; }
