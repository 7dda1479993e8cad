// The C API of nbfft/io/hdf5.hpp (nbfft/nbfft_h5.h): nbfft_h5file handles over H5File.
// As in nbfft_c.cpp each entry point is one guard() around the C++ call; what C alone must
// check (pointers, the exact byte count, the options text) is agreed on the file's
// communicator first, so one rank's mistake fails every rank before any collective HDF5
// call. Binding one more H5File method is one entry point of a few lines here.
#include "nbfft/nbfft.h"

#include "capi/guard.hpp"
#include "capi/handles.hpp"
#include "nbfft/agree.hpp"
#include "nbfft/fft/option_table.hpp"
#include "nbfft/io/hdf5.hpp"
#include "nbfft/io/layout.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

struct nbfft_h5file_s {
  nbfft::io::H5File file;
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate: the C side's own agreements
};

struct nbfft_io_layout_s {
  nbfft::io::Layout layout;
};

namespace nbfft::capi {
namespace {

using io::H5File;
using io::Space;

nbfft_h5file_s& file_of(nbfft_h5file f) {
  if (!f) throw Error("the file is NULL (never opened, or closed)", ErrorCode::InvalidState);
  nbfft_h5file_s* s = find_handle<nbfft_h5file_s>(f);
  if (!s) throw Error(std::string("the file handle") + kStale, ErrorCode::InvalidState);
  return *s;
}

H5File::Mode mode_of(nbfft_h5_mode m) {
  switch (m) {
    case NBFFT_H5_MODE_READ: return H5File::Mode::Read;
    case NBFFT_H5_MODE_CREATE: return H5File::Mode::Create;
    case NBFFT_H5_MODE_APPEND: return H5File::Mode::Append;
  }
  throw Error("mode " + std::to_string(static_cast<int>(m)) +
              " is none of NBFFT_H5_MODE_READ (0), NBFFT_H5_MODE_CREATE (1), NBFFT_H5_MODE_APPEND (2)");
}

Space space_of(nbfft_space s) {
  if (s != NBFFT_SPACE_PHYSICAL && s != NBFFT_SPACE_SPECTRAL)
    throw Error("space " + std::to_string(static_cast<int>(s)) +
                " is neither NBFFT_SPACE_PHYSICAL (0) nor NBFFT_SPACE_SPECTRAL (1)");
  return s == NBFFT_SPACE_PHYSICAL ? Space::Physical : Space::Spectral;
}

// The plan's element type in `space` (its one rule of call shapes): what C's bytes hold.
io::Dtype dtype_of(const fft::Plan& plan, Space space) {
  const fft::Plan::Shape s = plan.shape(fft::Direction::Forward);
  const fft::Element e = space == Space::Physical ? s.in : s.out;
  const bool dbl = e.precision == fft::Precision::Double;
  if (e.real) return dbl ? io::Dtype::Float64 : io::Dtype::Float32;
  return dbl ? io::Dtype::Complex128 : io::Dtype::Complex64;
}

std::uint64_t parse_count(const std::string& key, const std::string& v) {
  char* end = nullptr;
  const unsigned long long x = v.empty() || v[0] == '-' ? 0 : std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || v[0] == '-' || !end || *end != '\0')
    throw Error("options: " + key + "=" + v + " is not a count of bytes (a whole number >= 0)");
  return x;
}

// "box_lengths=6.28,6.28,3.14" (x, y, z): three finite lengths >= 0 (0: the default).
std::array<double, 3> parse_lengths(const std::string& value) {
  std::array<double, 3> l{0, 0, 0};
  std::istringstream parts(value);
  std::string part;
  int k = 0;
  bool ok = !value.empty() && value.back() != ',';
  while (ok && std::getline(parts, part, ',')) {
    char* end = nullptr;
    const double x = part.empty() ? -1 : std::strtod(part.c_str(), &end);
    ok = k < 3 && !part.empty() && end && *end == '\0' && std::isfinite(x) && x >= 0;
    if (ok) l[k++] = x;
  }
  if (!ok || k != 3)
    throw Error("options: box_lengths=" + value + " is not Lx,Ly,Lz (three finite lengths >= 0, e.g. 6.28,6.28,3.14)");
  return l;
}

// "alignment=1048576 align_threshold=65536 chunk=16x32x32" -> H5Options; "" or NULL: defaults.
const std::string kKeys = "alignment, align_threshold, chunk, box_lengths, xdmf";

io::H5Options parse_options(const char* text) {
  io::H5Options o;
  if (!text) return o;
  auto set = [&](const std::string& key, const std::string& value) {
    if (key == "alignment") {
      o.alignment = parse_count(key, value);
    } else if (key == "align_threshold") {
      o.align_threshold = parse_count(key, value);
    } else if (key == "chunk") {
      std::istringstream parts(value);
      std::string part;
      int k = 0;
      while (std::getline(parts, part, 'x') && k < 3) o.chunk[k++] = parse_count(key, part);
      if (k != 3 || parts.rdbuf()->in_avail() > 0 || value.back() == 'x')
        throw Error("options: chunk=" + value + " is not ZxYxX (three counts, e.g. 16x32x32)");
    } else if (key == "box_lengths") {
      o.box_lengths = parse_lengths(value);
    } else if (key == "xdmf") {
      if (value != "0" && value != "1") throw Error("options: xdmf=" + value + " is neither 0 nor 1");
      o.xdmf = value == "1";
    } else {
      throw Error("options: unknown key '" + key + "' (keys: " + kKeys + ")");
    }
  };
  try {  // the plans' splitter of key=value text (fft/option_table.hpp)
    nbfft::fft::for_each_pair(text,
                              [&](std::string_view k, std::string_view v) { set(std::string(k), std::string(v)); });
  } catch (const Error& e) {
    if (e.message().rfind("options: ", 0) == 0) throw;
    throw Error("options: " + e.message() + " (keys: " + kKeys + ")");
  }
  return o;
}

void open_file(MPI_Comm comm, const char* path, nbfft_h5_mode mode, const char* options, nbfft_h5file* file) {
  check_mpi_running("nbfft_h5_open");
  if (comm == MPI_COMM_NULL) throw Error("the communicator is MPI_COMM_NULL");
  io::H5Options o;
  H5File::Mode m{};
  agree(comm, [&] {
    need(file, "the file pointer");
    need(path, "path");
    m = mode_of(mode);
    o = parse_options(options);
  });
  *file = nullptr;
  H5File f(comm, path, m, o);
  MPI_Comm dup = MPI_COMM_NULL;
  check_mpi(MPI_Comm_dup(comm, &dup), "MPI_Comm_dup");
  *file = add_handle<nbfft_h5file>(std::unique_ptr<nbfft_h5file_s>(new nbfft_h5file_s{std::move(f), dup}));
}

// close (commit) or discard: the handle is freed either way, then the file finished.
void end_file(nbfft_h5file* file, bool commit) {
  need(file, "the file pointer");
  if (!*file) return;
  std::unique_ptr<nbfft_h5file_s> f = remove_handle<nbfft_h5file_s>(*file);
  if (!f) throw Error(std::string("the file handle") + kStale, ErrorCode::InvalidState);
  *file = nullptr;
  struct FreeComm {
    MPI_Comm& c;
    ~FreeComm() {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized && c != MPI_COMM_NULL) MPI_Comm_free(&c);
    }
  } free_comm{f->comm};
  if (commit) f->file.close();  // else never closed: the destructor of a Create file removes the temporary
}

// The exact byte count of this rank's box of `space`: another count is another element
// type or another box (the same rule as the transforms'). Agreed on the file's ranks;
// guard() names the C function.
struct Call {
  nbfft_h5file_s* f;
  nbfft_plan_s* p;
  Space space;
};
Call checked(nbfft_h5file file, nbfft_plan plan, nbfft_space space, const char* field,
             const void* data, std::size_t bytes) {
  nbfft_h5file_s& f = file_of(file);
  Call c{&f, nullptr, Space::Physical};
  agree(f.comm, [&] {
    c.p = &plan_of(plan);
    c.space = space_of(space);
    need(field, "field");
    const fft::Plan& pl = c.p->plan;
    const std::size_t want = c.space == Space::Physical ? pl.in_bytes() : pl.out_bytes();
    if (bytes != want)
      throw Error("bytes is " + std::to_string(bytes) + " but the plan's " + io::name(c.space) +
                  " field needs exactly " + std::to_string(want) + " for this rank's " +
                  (c.space == Space::Physical ? "input" : "output") + " box" +
                  (bytes > want ? " (a larger count means another element type or another box)" : ""));
    if (bytes > 0) need(data, "data");
  });
  return c;
}

// A file's field name checked, as text.
std::string field_name(nbfft_h5file_s& f, const char* field) {
  agree(f.comm, [&] { need(field, "field"); });
  return field;
}

nbfft_io_layout_s& layout_of(nbfft_io_layout l) { return object_of<nbfft_io_layout_s>(l, "the layout"); }

io::Dtype dtype_of(nbfft_dtype d) {
  switch (d) {
    case NBFFT_DTYPE_FLOAT64: return io::Dtype::Float64;
    case NBFFT_DTYPE_FLOAT32: return io::Dtype::Float32;
    case NBFFT_DTYPE_COMPLEX128: return io::Dtype::Complex128;
    case NBFFT_DTYPE_COMPLEX64: return io::Dtype::Complex64;
  }
  throw Error("dtype " + std::to_string(static_cast<int>(d)) +
              " is none of NBFFT_DTYPE_FLOAT64 (0), _FLOAT32 (1), _COMPLEX128 (2), _COMPLEX64 (3)");
}

void add_layout(nbfft_io_layout* out, io::Layout l) {
  *out = add_handle<nbfft_io_layout>(std::make_unique<nbfft_io_layout_s>(nbfft_io_layout_s{std::move(l)}));
}

std::size_t layout_bytes(const io::Layout& l) { return std::size_t(l.count()) * io::size_of(l.dtype); }

// A layout call's file, layout, field and exact byte count, agreed on the file's ranks (as
// checked() for a plan): one rank's NULL or short buffer fails every rank.
struct LayoutCall {
  nbfft_h5file_s* f;
  const io::Layout* l;
};
LayoutCall checked_layout(nbfft_h5file file, nbfft_io_layout layout, const char* field, const void* data,
                          std::size_t bytes) {
  nbfft_h5file_s& f = file_of(file);
  LayoutCall c{&f, nullptr};
  agree(f.comm, [&] {
    c.l = &layout_of(layout).layout;
    need(field, "field");
    // A block with negative extents has no byte count; the C++ call names it (Layout::check).
    if (!c.l->check().empty()) return;
    const std::size_t want = layout_bytes(*c.l);
    if (bytes != want)
      throw Error("bytes is " + std::to_string(bytes) + " but the layout's block needs exactly " +
                  std::to_string(want) + " (" + std::to_string(c.l->count()) + " elements of " +
                  io::name(c.l->dtype) + ")");
    if (bytes > 0) need(data, "data");
  });
  return c;
}

H5File::Pending& pending_of(nbfft_h5request r) { return request_of(r).request; }

io::Axis axis_of(nbfft_axis a) {
  switch (a) {
    case NBFFT_AXIS_X: return io::Axis::X;
    case NBFFT_AXIS_Y: return io::Axis::Y;
    case NBFFT_AXIS_Z: return io::Axis::Z;
  }
  throw Error("axis " + std::to_string(static_cast<int>(a)) +
              " is none of NBFFT_AXIS_X (0), NBFFT_AXIS_Y (1), NBFFT_AXIS_Z (2)");
}

// A plane call's axis and a subsample call's stride (x, y, z), checked on the file's ranks
// together after checked(): one rank's bad axis or NULL stride fails every rank. A stride
// below 1 is the C++ call's to name (the same on every rank).
io::Axis agreed_axis(const Call& c, nbfft_axis axis) {
  io::Axis a{};
  agree(c.f->comm, [&] { a = axis_of(axis); });
  return a;
}
std::array<std::int64_t, 3> agreed_stride(const Call& c, const int64_t stride[3]) {
  std::array<std::int64_t, 3> st{};
  agree(c.f->comm, [&] {
    need(stride, "stride");
    st = {stride[0], stride[1], stride[2]};
  });
  return st;
}

}  // namespace
}  // namespace nbfft::capi

using namespace nbfft::capi;

extern "C" {

nbfft_status nbfft_h5_available(int* available) {
  return guard("nbfft_h5_available", [&] {
    need(available, "available");
    *available = nbfft::io::hdf5_available() ? 1 : 0;
  });
}

nbfft_status nbfft_h5_info(char* buffer, size_t size, size_t* needed) {
  return guard("nbfft_h5_info", [&] { copy_out(nbfft::io::hdf5_info(), buffer, size, needed); });
}

nbfft_status nbfft_h5_open(MPI_Comm comm, const char* path, nbfft_h5_mode mode, const char* options,
                           nbfft_h5file* file) {
  return guard("nbfft_h5_open", [&] { open_file(comm, path, mode, options, file); });
}

nbfft_status nbfft_h5_open_f(MPI_Fint comm, const char* path, nbfft_h5_mode mode, const char* options,
                             nbfft_h5file* file) {
  return guard("nbfft_h5_open_f", [&] {
    nbfft::check_mpi_running("nbfft_h5_open_f");
    const MPI_Comm c = MPI_Comm_f2c(comm);
    if (c == MPI_COMM_NULL && comm != MPI_Comm_c2f(MPI_COMM_NULL))
      throw nbfft::Error("MPI_Comm_f2c: Fortran handle " + std::to_string(comm) + " names no communicator",
                         nbfft::ErrorCode::Mpi);
    open_file(c, path, mode, options, file);
  });
}

nbfft_status nbfft_h5_close(nbfft_h5file* file) {
  return guard("nbfft_h5_close", [&] { end_file(file, true); });
}

nbfft_status nbfft_h5_discard(nbfft_h5file* file) {
  return guard("nbfft_h5_discard", [&] { end_file(file, false); });
}

nbfft_status nbfft_h5_write(nbfft_h5file file, nbfft_plan plan, nbfft_space space, const char* field, int64_t step,
                            double time, const void* data, size_t bytes) {
  return guard("nbfft_h5_write", [&] {
    const Call c = checked(file, plan, space, field, data, bytes);
    c.f->file.write_bytes(c.p->plan, c.space, field, step, time, dtype_of(c.p->plan, c.space), data, bytes);
  });
}

nbfft_status nbfft_h5_read(nbfft_h5file file, nbfft_plan plan, nbfft_space space, const char* field, int64_t step,
                           void* data, size_t bytes) {
  return guard("nbfft_h5_read", [&] {
    const Call c = checked(file, plan, space, field, data, bytes);
    c.f->file.read_bytes(c.p->plan, c.space, field, step, dtype_of(c.p->plan, c.space), data, bytes);
  });
}

nbfft_status nbfft_h5_write_plane(nbfft_h5file file, nbfft_plan plan, nbfft_space space, const char* field,
                                  int64_t step, double time, nbfft_axis axis, int64_t index, const void* data,
                                  size_t bytes) {
  return guard("nbfft_h5_write_plane", [&] {
    const Call c = checked(file, plan, space, field, data, bytes);
    const nbfft::io::Axis a = agreed_axis(c, axis);
    c.f->file.write_plane_bytes(c.p->plan, c.space, field, step, time, a, index, dtype_of(c.p->plan, c.space), data,
                                bytes);
  });
}

nbfft_status nbfft_h5_write_subsampled(nbfft_h5file file, nbfft_plan plan, nbfft_space space, const char* field,
                                       int64_t step, double time, const int64_t stride[3], const void* data,
                                       size_t bytes) {
  return guard("nbfft_h5_write_subsampled", [&] {
    const Call c = checked(file, plan, space, field, data, bytes);
    const std::array<std::int64_t, 3> st = agreed_stride(c, stride);
    c.f->file.write_subsampled_bytes(c.p->plan, c.space, field, step, time, st, dtype_of(c.p->plan, c.space), data,
                                     bytes);
  });
}

nbfft_status nbfft_h5_read_plane(nbfft_h5file file, nbfft_plan plan, nbfft_space space, const char* field,
                                 int64_t step, nbfft_axis axis, int64_t index, void* data, size_t bytes) {
  return guard("nbfft_h5_read_plane", [&] {
    const Call c = checked(file, plan, space, field, data, bytes);
    const nbfft::io::Axis a = agreed_axis(c, axis);
    c.f->file.read_plane_bytes(c.p->plan, c.space, field, step, a, index, dtype_of(c.p->plan, c.space), data, bytes);
  });
}

nbfft_status nbfft_h5_read_subsampled(nbfft_h5file file, nbfft_plan plan, nbfft_space space, const char* field,
                                      int64_t step, const int64_t stride[3], void* data, size_t bytes) {
  return guard("nbfft_h5_read_subsampled", [&] {
    const Call c = checked(file, plan, space, field, data, bytes);
    const std::array<std::int64_t, 3> st = agreed_stride(c, stride);
    c.f->file.read_subsampled_bytes(c.p->plan, c.space, field, step, st, dtype_of(c.p->plan, c.space), data, bytes);
  });
}

nbfft_status nbfft_h5_box_lengths(nbfft_h5file file, double lengths[3]) {
  return guard("nbfft_h5_box_lengths", [&] {
    auto& f = file_of(file);
    need(lengths, "lengths");
    const std::array<double, 3> l = f.file.box_lengths();
    for (int k = 0; k < 3; ++k) lengths[k] = l[k];
  });
}

nbfft_status nbfft_h5_xdmf_path(nbfft_h5file file, char* buffer, size_t size, size_t* needed) {
  return guard("nbfft_h5_xdmf_path", [&] { copy_out(file_of(file).file.xdmf_path(), buffer, size, needed); });
}

nbfft_status nbfft_h5_write_start(nbfft_h5file file, nbfft_plan plan, nbfft_space space, const char* field,
                                  int64_t step, double time, const void* data, size_t bytes, int borrow,
                                  nbfft_h5request* request) {
  return guard("nbfft_h5_write_start", [&] {
    // First the call itself, where a rank waiting for a background write meets this one.
    file_of(file).file.agree_call("write_start", request ? "" : "the request pointer is NULL");
    *request = nullptr;
    const Call c = checked(file, plan, space, field, data, bytes);
    const auto stage = borrow ? H5File::Stage::Borrow : H5File::Stage::Copy;
    H5File::Pending p = c.f->file.write_start_bytes(c.p->plan, c.space, field, step, time,
                                                    dtype_of(c.p->plan, c.space), data, bytes, stage);
    *request = add_request(std::move(p));
  });
}

nbfft_status nbfft_io_layout_of_plan(nbfft_plan plan, nbfft_space space, nbfft_io_layout* layout) {
  return guard("nbfft_io_layout_of_plan", [&] {
    need(layout, "the layout pointer");
    *layout = nullptr;
    add_layout(layout, nbfft::io::Layout::of(plan_of(plan).plan, space_of(space)));
  });
}

nbfft_status nbfft_io_layout_of_nd_plan(nbfft_nd_plan plan, nbfft_space space, nbfft_io_layout* layout) {
  return guard("nbfft_io_layout_of_nd_plan", [&] {
    need(layout, "the layout pointer");
    *layout = nullptr;
    add_layout(layout, nbfft::io::Layout::of(nd_plan_of(plan).plan, space_of(space)));
  });
}

nbfft_status nbfft_io_layout_of_pencils(nbfft_pencils pencils, nbfft_pencil pencil, nbfft_dtype dtype,
                                        nbfft_io_layout* layout) {
  return guard("nbfft_io_layout_of_pencils", [&] {
    need(layout, "the layout pointer");
    *layout = nullptr;
    if (pencil != NBFFT_PENCIL_X && pencil != NBFFT_PENCIL_Y && pencil != NBFFT_PENCIL_Z)
      throw nbfft::Error("pencil " + std::to_string(static_cast<int>(pencil)) +
                         " is none of NBFFT_PENCIL_X (0), _Y (1), _Z (2)");
    add_layout(layout, nbfft::io::Layout::of(pencils_of(pencils).p, static_cast<nbfft::fft::Pencil>(pencil),
                                             dtype_of(dtype)));
  });
}

nbfft_status nbfft_io_layout_create(int ndim, const int64_t* shape, const int64_t* lo, const int64_t* n,
                                    const int* order, nbfft_dtype dtype, nbfft_io_layout* layout) {
  return guard("nbfft_io_layout_create", [&] {
    need(layout, "the layout pointer");
    *layout = nullptr;
    if (ndim < 1) throw nbfft::Error("ndim is " + std::to_string(ndim) + "; an array has at least one axis");
    need(shape, "shape");
    need(lo, "lo");
    need(n, "n");
    nbfft::nd::Box box{{lo, lo + ndim}, {n, n + ndim}, {}};
    if (order) box.order.assign(order, order + ndim);
    add_layout(layout, nbfft::io::Layout({shape, shape + ndim}, std::move(box), dtype_of(dtype)));
  });
}

nbfft_status nbfft_io_layout_bytes(nbfft_io_layout layout, size_t* bytes) {
  return guard("nbfft_io_layout_bytes", [&] {
    const nbfft::io::Layout& l = layout_of(layout).layout;
    need(bytes, "bytes");
    const std::string bad = l.check();
    if (!bad.empty()) throw nbfft::Error(bad);
    *bytes = layout_bytes(l);
  });
}

nbfft_status nbfft_io_layout_dtype(nbfft_io_layout layout, nbfft_dtype* dtype) {
  return guard("nbfft_io_layout_dtype", [&] {
    const nbfft::io::Layout& l = layout_of(layout).layout;
    need(dtype, "dtype");
    *dtype = static_cast<nbfft_dtype>(static_cast<int>(l.dtype));  // the same numbers (nbfft_h5.h)
  });
}

nbfft_status nbfft_io_layout_destroy(nbfft_io_layout* layout) {
  return guard("nbfft_io_layout_destroy", [&] {
    free_handle<nbfft_io_layout_s>(layout, "the layout");
  });
}

nbfft_status nbfft_h5_write_layout(nbfft_h5file file, nbfft_io_layout layout, const char* field, int64_t step,
                                   double time, const void* data, size_t bytes) {
  return guard("nbfft_h5_write_layout", [&] {
    const LayoutCall c = checked_layout(file, layout, field, data, bytes);
    c.f->file.write_bytes(*c.l, field, step, time, c.l->dtype, data, bytes);
  });
}

nbfft_status nbfft_h5_read_layout(nbfft_h5file file, nbfft_io_layout layout, const char* field, int64_t step,
                                  void* data, size_t bytes) {
  return guard("nbfft_h5_read_layout", [&] {
    const LayoutCall c = checked_layout(file, layout, field, data, bytes);
    c.f->file.read_bytes(*c.l, field, step, c.l->dtype, data, bytes);
  });
}

nbfft_status nbfft_h5_write_start_layout(nbfft_h5file file, nbfft_io_layout layout, const char* field,
                                         int64_t step, double time, const void* data, size_t bytes, int borrow,
                                         nbfft_request* request) {
  return guard("nbfft_h5_write_start_layout", [&] {
    file_of(file).file.agree_call("write_start", request ? "" : "the request pointer is NULL");
    *request = nullptr;
    const LayoutCall c = checked_layout(file, layout, field, data, bytes);
    const auto stage = borrow ? H5File::Stage::Borrow : H5File::Stage::Copy;
    *request = add_request(c.f->file.write_start_bytes(*c.l, field, step, time, c.l->dtype, data, bytes, stage));
  });
}

nbfft_status nbfft_h5_agree(nbfft_h5file file, const char* call, const char* error) {
  return guard(call && *call ? call : "nbfft_h5_agree", [&] {
    file_of(file).file.agree_call(call ? call : "", error ? error : "");
  });
}

nbfft_status nbfft_h5_test(nbfft_h5request request, int* done) {
  return guard("nbfft_h5_test", [&] {
    H5File::Pending& p = pending_of(request);
    need(done, "done");
    if (!p.valid()) throw nbfft::Error("the write was already waited for", nbfft::ErrorCode::InvalidState);
    *done = p.test() ? 1 : 0;
  });
}

nbfft_status nbfft_h5_wait(nbfft_h5request request) {
  return guard("nbfft_h5_wait", [&] { pending_of(request).wait(); });
}

nbfft_status nbfft_h5_request_free(nbfft_h5request* request) { return nbfft_request_free(request); }

nbfft_status nbfft_h5_fields(nbfft_h5file file, char* buffer, size_t size, size_t* needed) {
  return guard("nbfft_h5_fields", [&] {
    std::string text;
    for (const auto& n : file_of(file).file.fields()) text += (text.empty() ? "" : "\n") + n;
    copy_out(text, buffer, size, needed);
  });
}

nbfft_status nbfft_h5_steps(nbfft_h5file file, const char* field, int64_t* steps, size_t capacity, size_t* count) {
  return guard("nbfft_h5_steps", [&] {
    auto& f = file_of(file);
    nbfft::agree(f.comm, [&] {
      if (capacity > 0) need(steps, "steps");
    });
    const std::vector<std::int64_t> s = f.file.steps(field_name(f, field));
    for (std::size_t k = 0; k < s.size() && k < capacity; ++k) steps[k] = s[k];
    if (count) *count = s.size();
  });
}

nbfft_status nbfft_h5_time(nbfft_h5file file, const char* field, int64_t step, double* time) {
  return guard("nbfft_h5_time", [&] {
    auto& f = file_of(file);
    nbfft::agree(f.comm, [&] { need(time, "time"); });
    *time = f.file.time(field_name(f, field), step);
  });
}

}  // extern "C"
