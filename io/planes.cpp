// Planes and subsampled fields for quick looks (H5File::write_plane, write_subsampled),
// written without gathering: the reduced dataset is a regular selection of the full grid
// (per axis a start, a stride and a count), each rank copies the selected points of its
// own box into a small block in the file's (z, y, x) order and writes that block into its
// place, in one collective transfer. A rank with no selected point selects nothing and
// still takes part. The dataset carries the checksum of a whole field's (io/checksum.hpp:
// its terms are keyed by the reduced dataset's own indices), and read_plane /
// read_subsampled read each rank's points back the same way, checking it.
#include "local/memory.hpp"
#include "background.hpp"
#include "stored.hpp"
#include "nbfft/agree.hpp"
#include "series.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

namespace nbfft::io {

namespace {

std::string exact(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%a", v);
  return b;
}

// A regular selection of a field's full grid, per axis x, y, z.
struct Cut {
  std::array<std::int64_t, 3> start{0, 0, 0}, stride{1, 1, 1}, count{0, 0, 0};
};

std::string shape(const std::array<std::int64_t, 3>& xyz) {
  return std::to_string(xyz[2]) + "x" + std::to_string(xyz[1]) + "x" + std::to_string(xyz[0]);
}

// This rank's part of a cut: per axis x, y, z the first selected index in its box (in the
// cut's own numbering) and how many there are.
struct Part {
  std::array<std::int64_t, 3> j0{}, nj{};
  std::int64_t count() const { return nj[0] * nj[1] * nj[2]; }
};
Part part_of(const fft::Box3& box, const Cut& cut) {
  Part p;
  for (int a = 0; a < 3; ++a) {
    const std::int64_t lo = box.lo[a], hi = box.lo[a] + box.n[a];
    const std::int64_t s = cut.start[a], k = cut.stride[a];
    const std::int64_t first = lo <= s ? 0 : (lo - s + k - 1) / k;
    const std::int64_t last = hi - 1 < s ? -1 : std::min(cut.count[a] - 1, (hi - 1 - s) / k);
    p.j0[a] = first;
    p.nj[a] = std::max<std::int64_t>(0, last - first + 1);
  }
  return p;
}

// Copies the part's points between the box (its memory order) and a block in the file's
// (z, y, x) order: into the block (to_block) or back into the box.
void move_points(const fft::Box3& box, const Cut& cut, const Part& part, std::size_t es, char* boxmem, char* block,
                 bool to_block) {
  char* b = block;
  for (std::int64_t z = 0; z < part.nj[2] && part.count(); ++z)
    for (std::int64_t y = 0; y < part.nj[1]; ++y)
      for (std::int64_t x = 0; x < part.nj[0]; ++x) {
        const std::int64_t g[3] = {cut.start[0] + (part.j0[0] + x) * cut.stride[0],
                                   cut.start[1] + (part.j0[1] + y) * cut.stride[1],
                                   cut.start[2] + (part.j0[2] + z) * cut.stride[2]};
        char* m = boxmem + es * std::size_t(box.index(g[0], g[1], g[2]));
        std::memcpy(to_block ? b : m, to_block ? m : b, es);
        b += es;
      }
}

// This rank's checksum terms of its block of the cut's dataset (keyed by the dataset's own
// indices, so a plane's checksum is that of a whole field of its shape).
std::uint64_t part_sum(const Cut& cut, const Part& part, Dtype dtype, const char* block,
                       detail::ChecksumMethod method = detail::kChecksumMethod) {
  if (part.count() == 0) return 0;
  const std::int64_t start[3] = {part.j0[2], part.j0[1], part.j0[0]}, count[3] = {part.nj[2], part.nj[1], part.nj[0]};
  const std::int64_t dims[3] = {cut.count[2], cut.count[1], cut.count[0]};
  return detail::block_checksum(start, count, dims, dtype, block, method);
}

// This rank's block of the cut's dataset, offset and extent per axis (z, y, x): one
// collective transfer (a rank with no point selects none).
void transfer(format::Array& dset, const Part& part, Dtype dtype, char* block, bool writing, const std::string& what) {
  const std::vector<std::int64_t> start{part.j0[2], part.j0[1], part.j0[0]}, count{part.nj[2], part.nj[1], part.nj[0]};
  if (writing) dset.write(start, count, dtype, block, what);
  else dset.read(start, count, dtype, block, what);
}

// The checks every rank of a cut's write or read makes first ("" = none failed).
std::string cut_checks(const std::string& op, const detail::Handle& h, const fft::Plan& plan, Space space,
                       const std::string& field, const std::string& bad_cut, Dtype dtype, std::size_t bytes,
                       bool writing) {
  const auto& d = plan.decomposition();
  const fft::Plan::Shape sh = plan.shape(fft::Direction::Forward);
  const fft::Element el = space == Space::Physical ? sh.in : sh.out;
  const bool dbl = el.precision == fft::Precision::Double;
  const Dtype want = el.real ? (dbl ? Dtype::Float64 : Dtype::Float32) : (dbl ? Dtype::Complex128 : Dtype::Complex64);
  const fft::Box3 box = space == Space::Physical ? plan.in_box() : plan.out_box();
  int rank = 0, size = 0;
  MPI_Comm_rank(h.comm, &rank);
  MPI_Comm_size(h.comm, &size);
  if (!detail::check_field_name(field).empty()) return op + ": " + detail::check_field_name(field);
  if (writing && h.mode == H5File::Mode::Read) return op + ": '" + h.path + "' was opened for reading";
  if (size != d.m1 * d.m2 || rank != d.rank) return op + ": the plan was made on another communicator than the file's";
  if (!bad_cut.empty()) return op + ": " + bad_cut;
  if (dtype != want)
    return op + ": the plan's " + name(space) + " field is " + name(want) + ", the data passed is " + name(dtype);
  if (bytes < std::size_t(box.count()) * size_of(dtype))
    return op + ": the buffer holds " + std::to_string(bytes / size_of(dtype)) + " elements, this rank's box " +
           std::to_string(box.count());
  return "";
}

// What a dataset's attributes say it is: "the plane z = 4", "subsampled by 3,2,4 (x, y, z)",
// "a whole field".
std::string cut_of(const format::Array& dset) {
  const std::string kind = dset.text("kind");
  if (kind == "plane") {
    const auto i = dset.int64s("plane_index", 1);
    return "the plane " + dset.text("plane_axis") + " = " + (i.empty() ? "?" : std::to_string(i[0]));
  }
  if (kind == "subsampled") {
    const auto k = dset.int64s("stride", 3);  // (z, y, x)
    return k.empty() ? "subsampled" : "subsampled by " + std::to_string(k[2]) + "," + std::to_string(k[1]) + "," +
                                          std::to_string(k[0]) + " (x, y, z)";
  }
  return kind.empty() ? "a whole field" : "a '" + kind + "' dataset";
}

void write_cut(H5File::Impl& impl, const fft::Plan& plan, Space space, const std::string& field, std::int64_t step,
               double time, const char* kind, const Cut& cut, const std::string& cut_text, const std::string& bad_cut,
               Axis axis, std::int64_t index, Dtype dtype, const void* data, std::size_t bytes) {
  const detail::Handle h = detail::handle_of(impl);
  const std::string op = std::string("H5File::write_") + (std::strcmp(kind, "plane") == 0 ? "plane" : "subsampled");
  const auto& d = plan.decomposition();
  const fft::Box3 box = space == Space::Physical ? plan.in_box() : plan.out_box();
  std::string bad = cut_checks(op, h, plan, space, field, bad_cut, dtype, bytes, true);
  if (bad.empty() && !detail::check_time(time).empty()) bad = op + ": " + detail::check_time(time);
  detail::agree_entry(h.comm, op.c_str(), "H5File::write",
                      {{"call", op}, {"field", field}, {"step", std::to_string(step)}, {"time", exact(time)},
                       {"space", name(space)}, {"dtype", name(dtype)}, {"cut", cut_text},
                       {"process grid", detail::process_grid(plan)}},
                      bad);

  const Part part = part_of(box, cut);
  const std::size_t es = size_of(dtype);
  local::Bytes staging(std::size_t(std::max<std::int64_t>(1, part.count())) * es, "the I/O staging buffer");
  char* const block = reinterpret_cast<char*>(staging.get());
  move_points(box, cut, part, es, const_cast<char*>(static_cast<const char*>(data)), block, true);
  const std::uint64_t mine = part_sum(cut, part, dtype, block);

  const std::string where = "/" + field + "/" + std::to_string(step);
  format::Array dset;
  agree(h.comm, [&] {
    dset = format::create(h.file, h.path, field, step, {cut.count[2], cut.count[1], cut.count[0]}, dtype, {}, op);
    const auto& o = plan.options();
    dset.put_text("space", name(space));
    dset.put_text("transform", fft::name(o.transform));
    dset.put_text("precision", fft::name(o.precision));
    dset.put_text("norm", fft::name(o.norm));
    dset.put_text("axes", space == Space::Physical ? "z y x" : "kz ky kx");
    dset.put_text("halved_axis", space == Space::Spectral && d.r2c ? "kx" : "none");
    dset.put_text("kinds", fft::kinds_str(o.kinds));
    dset.put_text("padding", fft::padding_str(o.padding));
    dset.put_int64s("grid", {d.n[2], d.n[1], d.n[0]});
    dset.put_int64s("physical_grid", {d.m[2], d.m[1], d.m[0]});
    dset.put_int64s("step", {step});
    dset.put_double("time", time);
    dset.put_text("kind", kind);
    dset.put_int64s("start", {cut.start[2], cut.start[1], cut.start[0]});
    dset.put_int64s("stride", {cut.stride[2], cut.stride[1], cut.stride[0]});
    if (std::strcmp(kind, "plane") == 0) {
      dset.put_text("plane_axis", name(axis));
      dset.put_int64s("plane_index", {index});
    }
  });
  agree(h.comm, [&] { transfer(dset, part, dtype, block, true, op + ": writing " + where + " in '" + h.path + "'"); });
  std::string err = dset.close();
  if (!err.empty()) err = op + ": closing " + where + ": " + err;
  agree_message(h.comm, err, ErrorCode::Io);
  detail::put_checksum(impl, field, step, mine);
  h.series->wrote(detail::RunStamp::of(plan), field, step);
}

void read_cut(const H5File::Impl& impl, const fft::Plan& plan, Space space, const std::string& field,
              std::int64_t step, const char* kind, const Cut& cut, const std::string& cut_text,
              const std::string& cut_name, const std::string& bad_cut, Dtype dtype, void* data, std::size_t bytes) {
  const detail::Handle h = detail::handle_of(impl);
  const std::string op = std::string("H5File::read_") + (std::strcmp(kind, "plane") == 0 ? "plane" : "subsampled");
  const fft::Box3 box = space == Space::Physical ? plan.in_box() : plan.out_box();
  detail::agree_entry(h.comm, op.c_str(), "H5File::read",
             {{"call", op}, {"field", field}, {"step", std::to_string(step)}, {"space", name(space)},
              {"dtype", name(dtype)}, {"cut", cut_text}, {"process grid", detail::process_grid(plan)}},
             cut_checks(op, h, plan, space, field, bad_cut, dtype, bytes, false));
  const std::string where = "/" + field + "/" + std::to_string(step) + " of '" + h.path + "'";
  bool verify = false;
  std::uint64_t stored = 0;
  detail::ChecksumMethod method = detail::kChecksumMethod;
  format::Array dset = agree(h.comm, [&] {
    format::Array ds = format::open(h.file, h.path, field, step, op);
    const std::string s = ds.text("space");
    if (s != name(space))
      throw Error(ErrorCode::InvalidArgument, op + ": " + where + " is " + (s.empty() ? "undescribed" : "a " + s + " dataset") +
                                                  "; asked for a " + name(space) + " one");
    // The dataset is the cut asked for: its kind, and its start, stride and shape (z, y, x).
    const std::vector<std::int64_t> start{cut.start[2], cut.start[1], cut.start[0]},
        stride{cut.stride[2], cut.stride[1], cut.stride[0]};
    const std::vector<std::int64_t> dims = ds.shape(), want{cut.count[2], cut.count[1], cut.count[0]};
    const bool is3 = dims.size() == 3;
    if (ds.text("kind") != kind || ds.int64s("start", 3) != start || ds.int64s("stride", 3) != stride ||
        dims != want)
      throw Error(ErrorCode::InvalidArgument, op + ": " + where + " is " + cut_of(ds) + " of a " +
                                                  (is3 ? std::to_string(dims[0]) + "x" + std::to_string(dims[1]) +
                                                             "x" + std::to_string(dims[2]) + " (z, y, x) array"
                                                       : std::string("non-3-D array")) +
                                                  "; asked for " + cut_name + " (" + shape(cut.count) +
                                                  ") of this plan's " + name(space) + " grid");
    Dtype fd{};
    std::string why;
    if (!ds.dtype(fd, why)) throw Error(ErrorCode::InvalidArgument, op + ": " + where + " has " + why);
    if (fd != dtype)
      throw Error(ErrorCode::InvalidArgument, op + ": " + where + " holds " + name(fd) + ", the plan reads " +
                                                  name(dtype) + " (another precision or transform)");
    const std::string other = detail::spectrum_mismatch(ds, plan, space);
    if (!other.empty()) throw Error(ErrorCode::InvalidArgument, op + ": " + where + other);
    verify = detail::stored_checksum(ds, where, op.c_str(), stored, method);
    return ds;
  });
  const Part part = part_of(box, cut);
  const std::size_t es = size_of(dtype);
  local::Bytes staging(std::size_t(std::max<std::int64_t>(1, part.count())) * es, "the I/O staging buffer");
  char* const block = reinterpret_cast<char*>(staging.get());
  agree(h.comm, [&] { transfer(dset, part, dtype, block, false, op + ": reading " + where); });
  if (verify) detail::verify_checksum(h.comm, part_sum(cut, part, dtype, block, method), stored, where, op.c_str());
  move_points(box, cut, part, es, static_cast<char*>(data), block, false);
}

// The full grid of a space, per axis x, y, z.
std::array<std::int64_t, 3> full_grid(const fft::Plan& plan, Space space) {
  const auto& d = plan.decomposition();
  return space == Space::Physical ? d.m : std::array<std::int64_t, 3>{d.xc, d.n[1], d.n[2]};
}

std::string stride_text(const std::array<std::int64_t, 3>& s) {
  return std::to_string(s[0]) + "," + std::to_string(s[1]) + "," + std::to_string(s[2]);
}

// The plane axis = index of a space's grid, or why it is none.
std::string plane_cut(const fft::Plan& plan, Space space, Axis axis, std::int64_t index, Cut& cut) {
  const std::array<std::int64_t, 3> n = full_grid(plan, space);
  const int a = axis == Axis::X ? 0 : axis == Axis::Y ? 1 : 2;
  cut.count = n;
  cut.start[a] = index;
  cut.count[a] = 1;
  if (index < 0 || index >= n[a])
    return "the plane " + std::string(name(axis)) + " = " + std::to_string(index) + " is outside the " + name(space) +
           " grid " + shape(n) + " (z, y, x): " + name(axis) + " runs 0.." + std::to_string(n[a] - 1);
  return "";
}

// Every stride-th point per axis (x, y, z) of a space's grid, or why the stride is none.
std::string subsample_cut(const fft::Plan& plan, Space space, std::array<std::int64_t, 3> stride, Cut& cut) {
  const std::array<std::int64_t, 3> n = full_grid(plan, space);
  std::string bad;
  for (int a = 0; a < 3; ++a) {
    if (stride[a] < 1) {
      bad = "the stride " + stride_text(stride) + " (x, y, z) must be at least 1 along every axis";
      stride[a] = 1;
    }
    cut.stride[a] = stride[a];
    cut.count[a] = (n[a] + stride[a] - 1) / stride[a];
  }
  return bad;
}

}  // namespace

void H5File::write_plane_bytes(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step,
                               double time, Axis axis, std::int64_t index, Dtype dtype, const void* data,
                               std::size_t bytes) {
  if (!is_open()) throw Error(ErrorCode::InvalidState, "H5File::write_plane: the file is closed");
  Cut cut;
  const std::string bad = plane_cut(plan, space, axis, index, cut);
  write_cut(*impl_, plan, space, field, step, time, "plane", cut, std::string(name(axis)) + "=" + std::to_string(index),
            bad, axis, index, dtype, data, bytes);
}

void H5File::write_subsampled_bytes(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step,
                                    double time, std::array<std::int64_t, 3> stride, Dtype dtype, const void* data,
                                    std::size_t bytes) {
  if (!is_open()) throw Error(ErrorCode::InvalidState, "H5File::write_subsampled: the file is closed");
  Cut cut;
  const std::string bad = subsample_cut(plan, space, stride, cut);
  write_cut(*impl_, plan, space, field, step, time, "subsampled", cut, stride_text(stride), bad, Axis::X, 0, dtype,
            data, bytes);
}

void H5File::read_plane_bytes(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step,
                              Axis axis, std::int64_t index, Dtype dtype, void* data, std::size_t bytes) const {
  if (!is_open()) throw Error(ErrorCode::InvalidState, "H5File::read_plane: the file is closed");
  Cut cut;
  const std::string bad = plane_cut(plan, space, axis, index, cut);
  read_cut(*impl_, plan, space, field, step, "plane", cut, std::string(name(axis)) + "=" + std::to_string(index),
           "the plane " + std::string(name(axis)) + " = " + std::to_string(index), bad, dtype, data, bytes);
}

void H5File::read_subsampled_bytes(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step,
                                   std::array<std::int64_t, 3> stride, Dtype dtype, void* data,
                                   std::size_t bytes) const {
  if (!is_open()) throw Error(ErrorCode::InvalidState, "H5File::read_subsampled: the file is closed");
  Cut cut;
  const std::string bad = subsample_cut(plan, space, stride, cut);
  read_cut(*impl_, plan, space, field, step, "subsampled", cut, stride_text(stride),
           "subsampled by " + stride_text(stride) + " (x, y, z)", bad, dtype, data, bytes);
}

}  // namespace nbfft::io
