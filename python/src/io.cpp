// nbfft._core.H5File: nbfft::io::H5File on numpy buffers. The Python class nbfft.io.File
// checks the plan, the space, dtypes, shapes and contiguity (collectively) first; here the
// array's own dtype goes to the C++ call (which checks it against the plan's once more)
// and every collective call runs with the GIL released. Binding one more H5File method is
// one .def here and one method in nbfft/io.py.
#include "common.hpp"

#include "nbfft/io/hdf5.hpp"
#include "nbfft/io/layout.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <vector>

namespace nbfft::py {

namespace {

using Array = nb::ndarray<nb::device::cpu>;
using ConstArray = nb::ndarray<nb::ro, nb::device::cpu>;
using io::H5File;

template <typename A>
io::Dtype dtype_of(const A& a) {
  const nb::dlpack::dtype d = a.dtype();
  if (d == nb::dtype<double>()) return io::Dtype::Float64;
  if (d == nb::dtype<float>()) return io::Dtype::Float32;
  if (d == nb::dtype<std::complex<double>>()) return io::Dtype::Complex128;
  if (d == nb::dtype<std::complex<float>>()) return io::Dtype::Complex64;
  throw Error("H5File: arrays are float64, float32, complex128 or complex64");
}

io::Space space_of(const std::string& s) {
  if (s == "physical") return io::Space::Physical;
  if (s == "spectral") return io::Space::Spectral;
  throw Error("H5File: space must be 'physical' or 'spectral', got '" + s + "'");
}

io::Axis axis_of(const std::string& a) {
  if (a == "x") return io::Axis::X;
  if (a == "y") return io::Axis::Y;
  if (a == "z") return io::Axis::Z;
  throw Error("H5File: axis must be 'x', 'y' or 'z', got '" + a + "'");
}

io::Dtype dtype_named(const std::string& d) {
  for (io::Dtype t : {io::Dtype::Float64, io::Dtype::Float32, io::Dtype::Complex128, io::Dtype::Complex64})
    if (d == io::name(t)) return t;
  throw Error("Layout: dtype must be float64, float32, complex128 or complex64, got '" + d + "'");
}

// An io::Layout (the global shape, this rank's block, the dtype and the description the file
// records): what nbfft.io.Layout holds, from a plan of any shape, a pencil or the user's own.
struct PyLayout {
  io::Layout l;
};

class PyH5File {
 public:
  PyH5File(std::uint64_t handle, const std::string& path, const std::string& mode, const io::H5Options& o) {
    check_mpi_running("nbfft.io.File");
    const H5File::Mode m = mode == "w"   ? H5File::Mode::Create
                           : mode == "a" ? H5File::Mode::Append
                                         : H5File::Mode::Read;
    MPI_Comm comm = comm_from_handle(handle);
    nb::gil_scoped_release release;
    file_ = std::make_unique<H5File>(comm, path, m, o);
  }
  ~PyH5File() { discard(); }

  H5File& file() const {
    if (!file_) throw Error("nbfft.io.File: used after close()", ErrorCode::InvalidState);
    return *file_;
  }

  // Commits (a "w" file is renamed over its path) and frees; collective.
  void close() {
    if (!file_) return;
    std::unique_ptr<H5File> f = std::move(file_);
    nb::gil_scoped_release release;
    f->close();
  }
  // Frees without committing: an unfinished "w" file is removed, the path left as it was.
  // After MPI_Finalize (objects collected at exit) nothing can be done: leaked.
  void discard() {
    if (!file_) return;
    if (mpi_finalized()) {
      (void)file_.release();
      return;
    }
    std::unique_ptr<H5File> f = std::move(file_);
    nb::gil_scoped_release release;
    f.reset();
  }
  bool closed() const { return !file_; }

  // What every call on a field's block resolves first, with the GIL held (the plan, the
  // file, the array's dtype, the space), then call(file, plan, space, dtype, data, bytes)
  // with the GIL released. A: Array (reads) or ConstArray (writes).
  template <typename A, typename Call>
  void with_block(nb::handle plan, const std::string& space, const A& a, Call&& call) const {
    const fft::Plan& p = plan_of(plan);
    H5File& f = file();
    const io::Dtype d = dtype_of(a);
    const io::Space s = space_of(space);
    auto* data = a.data();
    const std::size_t bytes = a.nbytes();
    nb::gil_scoped_release release;
    call(f, p, s, d, data, bytes);
  }

  void write(nb::handle plan, const std::string& space, const std::string& field, std::int64_t step, double time,
             const ConstArray& a) const {
    with_block(plan, space, a, [&](H5File& f, const fft::Plan& p, io::Space s, io::Dtype d, auto data, auto bytes) {
      f.write_bytes(p, s, field, step, time, d, data, bytes);
    });
  }
  void read(nb::handle plan, const std::string& space, const std::string& field, std::int64_t step,
            const Array& a) const {
    with_block(plan, space, a, [&](H5File& f, const fft::Plan& p, io::Space s, io::Dtype d, auto data, auto bytes) {
      f.read_bytes(p, s, field, step, d, data, bytes);
    });
  }
  void write_plane(nb::handle plan, const std::string& space, const std::string& field, std::int64_t step,
                   double time, const std::string& axis, std::int64_t index, const ConstArray& a) const {
    const io::Axis ax = axis_of(axis);
    with_block(plan, space, a, [&](H5File& f, const fft::Plan& p, io::Space s, io::Dtype d, auto data, auto bytes) {
      f.write_plane_bytes(p, s, field, step, time, ax, index, d, data, bytes);
    });
  }
  // stride in x, y, z order (nbfft/io.py turns numpy's (z, y, x) around).
  void write_subsampled(nb::handle plan, const std::string& space, const std::string& field, std::int64_t step,
                        double time, std::array<std::int64_t, 3> stride, const ConstArray& a) const {
    with_block(plan, space, a, [&](H5File& f, const fft::Plan& p, io::Space s, io::Dtype d, auto data, auto bytes) {
      f.write_subsampled_bytes(p, s, field, step, time, stride, d, data, bytes);
    });
  }
  // Reads into this rank's whole block: the plane's or subsample's points are set, the
  // others left as they are.
  void read_plane(nb::handle plan, const std::string& space, const std::string& field, std::int64_t step,
                  const std::string& axis, std::int64_t index, const Array& a) const {
    const io::Axis ax = axis_of(axis);
    with_block(plan, space, a, [&](H5File& f, const fft::Plan& p, io::Space s, io::Dtype d, auto data, auto bytes) {
      f.read_plane_bytes(p, s, field, step, ax, index, d, data, bytes);
    });
  }
  // stride in x, y, z order, as write_subsampled's.
  void read_subsampled(nb::handle plan, const std::string& space, const std::string& field, std::int64_t step,
                       std::array<std::int64_t, 3> stride, const Array& a) const {
    with_block(plan, space, a, [&](H5File& f, const fft::Plan& p, io::Space s, io::Dtype d, auto data, auto bytes) {
      f.read_subsampled_bytes(p, s, field, step, stride, d, data, bytes);
    });
  }
  // keep: what must stay alive until the wait (the array, the plan).
  PyRequest* write_start(nb::handle plan, const std::string& space, const std::string& field, std::int64_t step,
                         double time, const ConstArray& a, bool borrow, nb::object keep) const {
    const fft::Plan& p = plan_of(plan);
    H5File& f = file();
    const io::Dtype d = dtype_of(a);
    const io::Space s = space_of(space);
    const void* data = a.data();
    const std::size_t bytes = a.nbytes();
    H5File::Pending pending;
    {
      nb::gil_scoped_release release;
      pending = f.write_start_bytes(p, s, field, step, time, d, data, bytes,
                                    borrow ? H5File::Stage::Borrow : H5File::Stage::Copy);
    }
    return new PyRequest(std::move(pending), std::move(keep));
  }
  // The same on a layout (an N-D plan's, a pencil's or the user's block).
  void write_layout(const PyLayout& l, const std::string& field, std::int64_t step, double time,
                    const ConstArray& a) const {
    H5File& f = file();
    const io::Dtype d = dtype_of(a);
    const void* data = a.data();
    const std::size_t bytes = a.nbytes();
    nb::gil_scoped_release release;
    f.write_bytes(l.l, field, step, time, d, data, bytes);
  }
  void read_layout(const PyLayout& l, const std::string& field, std::int64_t step, const Array& a) const {
    H5File& f = file();
    const io::Dtype d = dtype_of(a);
    void* data = a.data();
    const std::size_t bytes = a.nbytes();
    nb::gil_scoped_release release;
    f.read_bytes(l.l, field, step, d, data, bytes);
  }
  PyRequest* write_start_layout(const PyLayout& l, const std::string& field, std::int64_t step, double time,
                                const ConstArray& a, bool borrow, nb::object keep) const {
    H5File& f = file();
    const io::Dtype d = dtype_of(a);
    const void* data = a.data();
    const std::size_t bytes = a.nbytes();
    H5File::Pending pending;
    {
      nb::gil_scoped_release release;
      pending = f.write_start_bytes(l.l, field, step, time, d, data, bytes,
                                    borrow ? H5File::Stage::Borrow : H5File::Stage::Copy);
    }
    return new PyRequest(std::move(pending), std::move(keep));
  }
  std::array<double, 3> box_lengths() const { return file().box_lengths(); }
  std::string xdmf_path() const { return file().xdmf_path(); }
  std::vector<std::string> fields() const {
    H5File& f = file();
    nb::gil_scoped_release release;
    return f.fields();
  }
  std::vector<std::int64_t> steps(const std::string& field) const {
    H5File& f = file();
    nb::gil_scoped_release release;
    return f.steps(field);
  }
  double time(const std::string& field, std::int64_t step) const {
    H5File& f = file();
    nb::gil_scoped_release release;
    return f.time(field, step);
  }

 private:
  std::unique_ptr<H5File> file_;
};

}  // namespace

void bind_io(nb::module_& m) {
  using namespace nb::literals;
  m.def("hdf5_available", &io::hdf5_available);
  nb::class_<PyLayout>(m, "Layout")
      .def_static(
          "user",
          [](std::vector<std::int64_t> shape, std::vector<std::int64_t> lo, std::vector<std::int64_t> n,
             std::vector<int> order, const std::string& dtype) {
            nd::Box b;
            b.lo = std::move(lo);
            b.n = std::move(n);
            b.order = std::move(order);
            return PyLayout{io::Layout(std::move(shape), std::move(b), dtype_named(dtype))};
          },
          "shape"_a, "lo"_a, "n"_a, "order"_a, "dtype"_a)
      .def_static(
          "of_plan", [](nb::handle plan, const std::string& space) { return PyLayout{io::Layout::of(plan_of(plan), space_of(space))}; },
          "plan"_a, "space"_a)
      .def_static(
          "of_nd", [](nb::handle plan, const std::string& space) { return PyLayout{io::Layout::of(nd_plan_of(plan), space_of(space))}; },
          "plan"_a, "space"_a)
      .def_static(
          "of_pencils",
          [](nb::handle pencils, int pencil, const std::string& dtype) {
            if (pencil < 0 || pencil > 2) throw Error("Layout: pencil must be 'x', 'y' or 'z'");
            return PyLayout{io::Layout::of(pencils_of(pencils), static_cast<fft::Pencil>(pencil), dtype_named(dtype))};
          },
          "pencils"_a, "pencil"_a, "dtype"_a)
      .def_prop_ro("shape", [](const PyLayout& l) { return l.l.shape; })
      .def_prop_ro("lo", [](const PyLayout& l) { return l.l.box.lo; })
      .def_prop_ro("n", [](const PyLayout& l) { return l.l.box.n; })
      .def_prop_ro("order", [](const PyLayout& l) { return l.l.box.order; })
      .def_prop_ro("memory_shape", [](const PyLayout& l) { return l.l.box.memory_shape(); })
      .def_prop_ro("dtype", [](const PyLayout& l) { return std::string(io::name(l.l.dtype)); })
      .def_prop_ro("space", [](const PyLayout& l) {
        return l.l.has_space ? std::string(io::name(l.l.space)) : std::string();
      })
      .def("check", [](const PyLayout& l) { return l.l.check(); });
  m.def("hdf5_info", &io::hdf5_info);
  nb::class_<PyH5File>(m, "H5File")
      .def(
          "__init__",
          [](PyH5File* self, std::uint64_t handle, const std::string& path, const std::string& mode,
             std::uint64_t alignment, std::uint64_t align_threshold, std::array<std::uint64_t, 3> chunk,
             std::array<double, 3> box_lengths, bool xdmf) {
            io::H5Options o;
            o.alignment = alignment;
            o.align_threshold = align_threshold;
            o.chunk = chunk;
            o.box_lengths = box_lengths;  // x, y, z
            o.xdmf = xdmf;
            new (self) PyH5File(handle, path, mode, o);
          },
          "comm_handle"_a, "path"_a, "mode"_a, "alignment"_a, "align_threshold"_a, "chunk"_a, "box_lengths"_a,
          "xdmf"_a)
      .def("close", &PyH5File::close)
      .def("discard", &PyH5File::discard)
      .def(
          "agree_call",
          [](PyH5File& f, const std::string& call, const std::string& error) {
            H5File& h = f.file();
            nb::gil_scoped_release release;
            h.agree_call(call, error);
          },
          "call"_a, "error"_a)
      .def_prop_ro("closed", &PyH5File::closed)
      .def_prop_ro("path", [](const PyH5File& f) { return f.file().path(); })
      .def("write", &PyH5File::write, "plan"_a, "space"_a, "field"_a, "step"_a, "time"_a, "a"_a.noconvert())
      .def("read", &PyH5File::read, "plan"_a, "space"_a, "field"_a, "step"_a, "out"_a.noconvert())
      .def("write_plane", &PyH5File::write_plane, "plan"_a, "space"_a, "field"_a, "step"_a, "time"_a, "axis"_a,
           "index"_a, "a"_a.noconvert())
      .def("write_subsampled", &PyH5File::write_subsampled, "plan"_a, "space"_a, "field"_a, "step"_a, "time"_a,
           "stride"_a, "a"_a.noconvert())
      .def("read_plane", &PyH5File::read_plane, "plan"_a, "space"_a, "field"_a, "step"_a, "axis"_a, "index"_a,
           "out"_a.noconvert())
      .def("read_subsampled", &PyH5File::read_subsampled, "plan"_a, "space"_a, "field"_a, "step"_a, "stride"_a,
           "out"_a.noconvert())
      .def("write_start", &PyH5File::write_start, "plan"_a, "space"_a, "field"_a, "step"_a, "time"_a,
           "a"_a.noconvert(), "borrow"_a, "keep"_a, nb::rv_policy::take_ownership)
      .def("write_layout", &PyH5File::write_layout, "layout"_a, "field"_a, "step"_a, "time"_a, "a"_a.noconvert())
      .def("read_layout", &PyH5File::read_layout, "layout"_a, "field"_a, "step"_a, "out"_a.noconvert())
      .def("write_start_layout", &PyH5File::write_start_layout, "layout"_a, "field"_a, "step"_a, "time"_a,
           "a"_a.noconvert(), "borrow"_a, "keep"_a, nb::rv_policy::take_ownership)
      .def_prop_ro("box_lengths", &PyH5File::box_lengths)
      .def_prop_ro("xdmf_path", &PyH5File::xdmf_path)
      .def("fields", &PyH5File::fields)
      .def("steps", &PyH5File::steps, "field"_a)
      .def("time", &PyH5File::time, "field"_a, "step"_a);
}

}  // namespace nbfft::py
