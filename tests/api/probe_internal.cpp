// Compiled by the header-boundary test against sift::sift alone: it must not compile, since
// nothing outside include/sift/ reaches a consumer.
#include <sift/sift.h>

#include "scoring/plan.h"

sift::PlanLimits probe_internal() { return {}; }
