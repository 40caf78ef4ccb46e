#pragma once
// sift's public C++ API (link the CMake target sift::sift): see sift/labeler.h.
#include "sift/error.h"
#include "sift/labeler.h"
#include "sift/version.h"
#include "sift/weight_storage.h"
