// nbfft._core: module setup, the translation of nbfft::Error into Python exceptions, and
// the small MPI helpers the Python layer needs (agreement, library identity).
#include "common.hpp"

#include "nbfft/build_info.hpp"
#include "nbfft/coll/engine.hpp"
#include "nbfft/coll/transport.hpp"
#include "nbfft/fft/field.hpp"
#include "nbfft/fft/options.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <dlfcn.h>

#include <tuple>
#include <vector>

namespace nbfft::py {

namespace {

// Python callable (code, message) -> exception instance, set by nbfft/_errors.py. Kept as
// a strong reference for the life of the process: translators may run late at exit.
PyObject* g_error_factory = nullptr;

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const nbfft::Error& e) {
    if (g_error_factory == nullptr) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
      return;
    }
    PyObject* exc = PyObject_CallFunction(g_error_factory, "is", static_cast<int>(e.code()), e.message().c_str());
    if (exc == nullptr) return;  // the factory's own error stays set
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc)), exc);
    Py_DECREF(exc);
  }
}

}  // namespace

std::pair<int, std::string> agree_on(MPI_Comm comm, int kind, const std::string& message) {
  int rank = 0, size = 1;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  int mine = message.empty() ? size : rank, first = size;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == size) return {0, std::string()};
  int head[2] = {kind, static_cast<int>(message.size())};
  check_mpi(MPI_Bcast(head, 2, MPI_INT, first, comm), "MPI_Bcast");
  std::string text = rank == first ? message : std::string(static_cast<std::size_t>(head[1]), '\0');
  check_mpi(MPI_Bcast(text.data(), head[1], MPI_CHAR, first, comm), "MPI_Bcast");
  return {head[0], text + " [rank " + std::to_string(first) + "]"};
}

void free_comm(MPI_Comm& comm) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm);
  comm = MPI_COMM_NULL;
}

void bind_request(nb::module_& m) {
  nb::class_<PyRequest>(m, "Request")
      .def("test", &PyRequest::test)
      .def("wait", &PyRequest::wait)
      .def("progress", &PyRequest::progress)
      .def_prop_ro("active", [](const PyRequest& r) { return r.r.active(); })
      .def_prop_ro("valid", [](const PyRequest& r) { return r.r.valid(); });
}

}  // namespace nbfft::py

NB_MODULE(_core, m) {
  namespace nb = nanobind;
  using namespace nbfft::py;
  using namespace nb::literals;
  m.doc() = "nbfft's C++ core; use the nbfft package, not this module.";
  nb::register_exception_translator(translate);

  m.def("_set_error_factory", [](nb::object f) {
    Py_XDECREF(g_error_factory);
    g_error_factory = f.release().ptr();
  });
  m.def("error_code_name", [](int code) { return std::string(nbfft::error_code_name(static_cast<nbfft::ErrorCode>(code))); });

  m.def(
      "agree",
      [](std::uint64_t handle, int kind, const std::string& message) {
        nb::gil_scoped_release release;
        return agree_on(comm_from_handle(handle), kind, message);
      },
      "comm_handle"_a, "kind"_a, "message"_a);

  // The MPI library this extension is linked against: its version string and the file it
  // was loaded from, so the package can point mpi4py at the same one.
  m.def("mpi_library", [] {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
    int len = 0;
    MPI_Get_library_version(version, &len);
    Dl_info info{};
    std::string path;
    if (dladdr(reinterpret_cast<void*>(&MPI_Get_library_version), &info) != 0 && info.dli_fname) path = info.dli_fname;
    return std::make_tuple(std::string(version, static_cast<std::size_t>(len)), path);
  });
  m.def("mpi_running", [] {
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin;
  });
  m.def("query_thread", [] {
    int provided = 0;
    nbfft::check_mpi(MPI_Query_thread(&provided), "MPI_Query_thread");
    return provided;
  });
  m.attr("THREAD_SINGLE") = static_cast<int>(MPI_THREAD_SINGLE);
  m.attr("THREAD_FUNNELED") = static_cast<int>(MPI_THREAD_FUNNELED);
  m.attr("THREAD_SERIALIZED") = static_cast<int>(MPI_THREAD_SERIALIZED);
  m.attr("THREAD_MULTIPLE") = static_cast<int>(MPI_THREAD_MULTIPLE);

  // Transport name -> (full form, engine name); throws on a bad name.
  m.def("parse_transport", [](const std::string& name) {
    const auto t = nbfft::coll::Transport::parse(name);
    return std::make_tuple(t.str(), std::string(nbfft::coll::engine_name(t.engine)));
  });
  // The MPI thread level a transport needs: C++'s rule itself (fft/field.hpp), so Python
  // cannot answer otherwise than C, C++ and Fortran.
  m.def("required_thread_level", [](const std::string& transport) {
    return nbfft::fft::required_thread_level(nbfft::coll::Transport::parse(transport));
  });
  // Seed 002's COL kernel name -> its canonical name; throws listing the kernels (checked in
  // Python before the collective constructor, so one rank's bad name cannot strand the others).
  m.def("parse_col_kernel", [](const std::string& name) { return std::string(nbfft::fft::find_col_kernel(name).name); });
  m.def("transport_presets", [] {
    std::vector<std::tuple<std::string, std::string, std::string>> v;
    for (const auto& p : nbfft::coll::transport_presets()) v.emplace_back(p.name, p.expansion, p.summary);
    return v;
  });
  m.def("engines", [] {
    std::vector<std::tuple<std::string, std::string, bool>> v;
    for (const auto& e : nbfft::coll::engines()) v.emplace_back(e.name, e.summary, e.needs_thread_multiple);
    return v;
  });

  // The one version (CMake's project VERSION, through nbfft/version.h) and the text of
  // nbfft_build_info(); `python -m nbfft` prints it.
  m.attr("version") = NBFFT_VERSION_STRING;
  m.def("build_info", [] { return nbfft::build_info(); },
        "nbfft's version, MPI library and thread levels, FFTW, build options and the engines, "
        "transports and algorithms available, as 'name: value' lines.");

  bind_request(m);
  bind_plan(m);
  bind_coll(m);
  bind_io(m);
  bind_transpose(m);
  bind_nd(m);
}
