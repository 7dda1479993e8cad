// nbfft._core.Pencils: nbfft::fft::Pencils on raw buffers. The Python class nbfft.Pencils
// checks shapes, dtypes, contiguity and writability (collectively) and passes each array
// with its byte count and element size; here only the pointers are taken, with the GIL
// released. Axes travel in the C++ order {x, y, z}; the Python layer turns them around.
#include "common.hpp"

#include "nbfft/coll/transport.hpp"
#include "nbfft/fft/transpose.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <sstream>
#include <vector>

namespace nbfft::py {

namespace {

using Array = nb::ndarray<nb::device::cpu>;
using ConstArray = nb::ndarray<nb::ro, nb::device::cpu>;
using fft::Pencil;

Pencil pencil_of(int p) {
  if (p < 0 || p > 2) throw Error("Pencils: pencil index " + std::to_string(p) + " is not 0 (X), 1 (Y) or 2 (Z)");
  return static_cast<Pencil>(p);
}


class PyPencils {
 public:
  PyPencils(std::uint64_t handle, std::array<std::int64_t, 3> n, const fft::PencilOptions& o) {
    check_mpi_running("Pencils");
    MPI_Comm comm = comm_from_handle(handle);
    nb::gil_scoped_release release;  // collective
    p_ = std::make_unique<fft::Pencils>(comm, n, o);
  }
  ~PyPencils() { close(); }

  void close() { free_or_leak(p_); }
  bool closed() const { return !p_; }

  const fft::Pencils& get() const {
    if (!p_) throw Error("Pencils: used after close()", ErrorCode::InvalidState);
    return *p_;
  }

  std::pair<int, std::string> agree(int kind, const std::string& message) const {
    MPI_Comm c = get().comm();
    nb::gil_scoped_release release;
    return agree_on(c, kind, message);
  }

  void transpose(int from, int to, const ConstArray& in, std::size_t in_b, const Array& out, std::size_t out_b,
                 std::size_t elem) const {
    const fft::Pencils& p = get();
    const void* i = in.data();
    void* o = out.data();
    nb::gil_scoped_release release;
    p.transpose_bytes(pencil_of(from), pencil_of(to), i, in_b, o, out_b, elem);
  }

  PyRequest* start(int from, int to, const ConstArray& in, std::size_t in_b, const Array& out, std::size_t out_b,
                   std::size_t elem) const {
    const fft::Pencils& p = get();
    const void* i = in.data();
    void* o = out.data();
    Request r;
    {
      nb::gil_scoped_release release;
      r = p.start_bytes(pencil_of(from), pencil_of(to), i, in_b, o, out_b, elem);
    }
    return new PyRequest(std::move(r), nb::none());
  }

  void many(int from, int to, const std::vector<ConstArray>& in, std::size_t in_b, const std::vector<Array>& out,
            std::size_t out_b, std::size_t elem) const {
    const fft::Pencils& p = get();
    std::vector<const void*> ip;
    std::vector<void*> op;
    for (const auto& a : in) ip.push_back(a.data());
    for (const auto& a : out) op.push_back(a.data());
    if (ip.size() != op.size())
      throw Error("Pencils.transpose_many: " + std::to_string(ip.size()) + " input fields but " +
                  std::to_string(op.size()) + " output fields");
    nb::gil_scoped_release release;
    p.transpose_many_bytes(pencil_of(from), pencil_of(to), ip.size(), ip.data(), in_b, op.data(), out_b, elem);
  }

 private:
  std::unique_ptr<fft::Pencils> p_;
};

}  // namespace

const fft::Pencils& pencils_of(nb::handle pencils) { return nb::cast<const PyPencils&>(pencils).get(); }

void bind_transpose(nb::module_& m) {
  using namespace nb::literals;

  nb::class_<PyPencils>(m, "Pencils")
      .def(
          "__init__",
          [](PyPencils* self, std::uint64_t handle, std::array<std::int64_t, 3> n, int m1, int m2,
             const std::string& row, const std::string& col, int fields_in_flight) {
            // The Python layer has agreed across ranks that every word parses.
            fft::PencilOptions o;
            o.m1 = m1;
            o.m2 = m2;
            o.row_transport = coll::Transport::parse(row);
            o.col_transport = coll::Transport::parse(col);
            o.fields_in_flight = fields_in_flight;
            new (self) PyPencils(handle, n, o);
          },
          "comm_handle"_a, "n"_a, "m1"_a, "m2"_a, "row_transport"_a, "col_transport"_a, "fields_in_flight"_a)
      .def("close", &PyPencils::close)
      .def_prop_ro("closed", &PyPencils::closed)
      .def("agree", &PyPencils::agree, "kind"_a, "message"_a)
      .def(
          "box",
          [](const PyPencils& p, int pencil) {
            const fft::Box3& b = p.get().box(pencil_of(pencil));
            return std::make_pair(b.lo, b.n);
          },
          "pencil"_a)
      .def(
          "can_transpose", [](const PyPencils& p, int from, int to) {
            return p.get().can_transpose(pencil_of(from), pencil_of(to));
          },
          "from_"_a, "to"_a)
      .def_prop_ro("global_size", [](const PyPencils& p) { return p.get().global_size(); })
      .def_prop_ro("m1", [](const PyPencils& p) { return p.get().m1(); })
      .def_prop_ro("m2", [](const PyPencils& p) { return p.get().m2(); })
      .def_prop_ro("row", [](const PyPencils& p) { return p.get().row(); })
      .def_prop_ro("col", [](const PyPencils& p) { return p.get().col(); })
      .def_prop_ro("description",
                   [](const PyPencils& p) {
                     std::ostringstream s;
                     s << p.get();
                     return s.str();
                   })
      .def("transpose", &PyPencils::transpose, "from_"_a, "to"_a, "a"_a.noconvert(), "a_bytes"_a,
           "out"_a.noconvert(), "out_bytes"_a, "elem"_a)
      .def("start", &PyPencils::start, "from_"_a, "to"_a, "a"_a.noconvert(), "a_bytes"_a, "out"_a.noconvert(),
           "out_bytes"_a, "elem"_a, nb::rv_policy::take_ownership)
      .def("transpose_many", &PyPencils::many, "from_"_a, "to"_a, "a"_a.noconvert(), "a_bytes"_a,
           "out"_a.noconvert(), "out_bytes"_a, "elem"_a);
}

}  // namespace nbfft::py
