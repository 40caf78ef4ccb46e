#include "rows.h"

#include <fmt/format.h>

#include "sift/items_field.h"

namespace sift::python {

namespace {

std::string type_name(py::handle value) { return Py_TYPE(value.ptr())->tp_name; }

bool is_text(py::handle value) { return PyUnicode_Check(value.ptr()) || PyBytes_Check(value.ptr()); }

std::string bytes_of(py::handle bytes) { return std::string(PyBytes_AS_STRING(bytes.ptr()), PyBytes_GET_SIZE(bytes.ptr())); }

// row[key], or RowError 'missing field "key"' when the row has no such key.
py::object field(py::handle row, const char* key) {
  try {
    return row[key];
  } catch (py::error_already_set& e) {
    if (e.matches(PyExc_KeyError) || e.matches(PyExc_IndexError)) throw RowError(fmt::format("missing field \"{}\"", key));
    throw RowError(fmt::format("field \"{}\": {}", key, e.what()));
  }
}

}  // namespace

std::string text_from_python(py::handle text, std::string_view what) {
  if (PyBytes_Check(text.ptr())) return bytes_of(text);
  if (!PyUnicode_Check(text.ptr())) throw RowTypeError(fmt::format("{} must be a string, got {}", what, type_name(text)));
  Py_ssize_t size = 0;
  const char* utf8 = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (utf8 == nullptr) {  // a lone surrogate ('\ud800') has no UTF-8 form
    const py::error_already_set error;
    throw RowError(fmt::format("{} is not valid UTF-8 text: {}", what, error.what()));
  }
  return std::string(utf8, static_cast<size_t>(size));
}

namespace {

// Python values for the one items rule (io/row_items.h): a list is any iterable that is not
// text (a list, a tuple, a numpy array), text a str or bytes, an object a dict.
struct PythonFormat {
  using Value = py::handle;
  static bool is_list(py::handle v) { return !is_text(v) && py::isinstance<py::iterable>(v); }
  static bool is_text(py::handle v) { return python::is_text(v); }
  static bool is_object(py::handle v) { return py::isinstance<py::dict>(v); }
  static std::string type_name(py::handle v) { return python::type_name(v); }
  static py::iterable items_of(py::handle list) { return py::reinterpret_borrow<py::iterable>(list); }
  static std::string text(py::handle v, std::string_view where) { return text_from_python(v, where); }
  static bool has_text_field(py::handle object) {
    const py::dict dict = py::reinterpret_borrow<py::dict>(object);
    return dict.contains("text") && is_text(dict["text"]);
  }
  static std::string text_field(py::handle object, std::string_view where) {
    return text_from_python(py::reinterpret_borrow<py::dict>(object)["text"], where);
  }
};

}  // namespace

std::vector<std::string> items_from_python(py::handle items, py::list* ids) {
  std::vector<std::string> texts;
  try {
    for_each_row_item<PythonFormat>(items, "items", [&](std::string text, const py::handle* object) {
      texts.push_back(std::move(text));
      if (!ids) return;
      const py::dict item = object ? py::reinterpret_borrow<py::dict>(*object) : py::dict();
      ids->append(item.contains("id") ? py::object(item["id"]) : py::none());
    });
  } catch (const RowItemsError& e) {  // a value of the wrong type: TypeError where one row is scored
    throw RowTypeError(e.what());
  }
  return texts;
}

Row row_from_python(py::handle row, py::list* item_ids) {
  if (py::isinstance<py::tuple>(row) || py::isinstance<py::list>(row)) {
    const py::sequence pair = py::reinterpret_borrow<py::sequence>(row);
    if (pair.size() != 2)
      throw RowTypeError(fmt::format("a row given as a sequence must be (query, items), got {} values", pair.size()));
    return {text_from_python(pair[0], "the query"), items_from_python(pair[1], item_ids)};
  }
  if (is_text(row) || !py::hasattr(row, "__getitem__"))
    throw RowTypeError(fmt::format("a row must be a (query, items) pair or a mapping with \"query\" and \"items\", got {}",
                               type_name(row)));
  return {text_from_python(field(row, "query"), "field \"query\""), items_from_python(field(row, "items"), item_ids)};
}

ConvertedRows rows_from_python(py::iterable rows) {
  ConvertedRows converted;
  for (py::handle row : rows) {
    try {
      py::list ids;
      converted.rows.push_back(row_from_python(row, &ids));
      converted.item_ids.push_back(std::move(ids));
      converted.positions.push_back(converted.errors.size());
      converted.errors.emplace_back();
    } catch (const RowError& e) {
      converted.errors.emplace_back(e.what());
    } catch (py::error_already_set& e) {  // an items iterable that raised, a row whose __getitem__ broke
      converted.errors.emplace_back(e.what());
    }
  }
  return converted;
}

std::string line_from_python(py::handle line, size_t index) {
  if (PyBytes_Check(line.ptr())) return bytes_of(line);
  if (!PyUnicode_Check(line.ptr()))
    throw py::type_error(fmt::format("lines[{}] must be a str or bytes, got {}", index, type_name(line)));
  // "surrogateescape" gives back the bytes of a file read with errors="surrogateescape"; any
  // other lone surrogate is written as its own (invalid) UTF-8 bytes.
  for (const char* errors : {"surrogateescape", "surrogatepass"}) {
    const py::object utf8 = py::reinterpret_steal<py::object>(PyUnicode_AsEncodedString(line.ptr(), "utf-8", errors));
    if (utf8) return bytes_of(utf8);
    PyErr_Clear();
  }
  throw py::value_error(fmt::format("lines[{}] cannot be encoded as UTF-8", index));
}

}  // namespace sift::python
