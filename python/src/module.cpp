// The extension module sift._native: sift.Labeler and sift.Result over sift's public C++ API
// (include/sift/labeler.h); the package python/sift/ re-exports them.
#include <pybind11/pybind11.h>

#include <string>

#include "labeler.h"
#include "results.h"
#include "sift/error.h"
#include "sift/version.h"

PYBIND11_MODULE(_native, module) {
  module.doc() = "sift's scoring engine (use the package sift)";
  module.attr("__version__") = std::string(sift::version());  // the version `sift --version` prints
  pybind11::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const sift::Error& e) {  // bad input or a broken file: the engine's one-line message
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  sift::python::bind_result(module);
  sift::python::bind_labeler(module);
}
