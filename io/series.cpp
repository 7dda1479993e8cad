// The run's attributes and the dataset catalog behind the XDMF file (io/series.hpp).
//
// Every HDF5 call here is made identically on every rank (the file's metadata operations
// are collective); the XDMF text, built from the same catalog everywhere, is written by
// rank 0 alone, atomically, and its outcome agreed.
#include "series.hpp"

#include "h5util.hpp"
#include "nbfft/agree.hpp"
#include "nbfft/atomic_file.hpp"

#include <cmath>
#include <sstream>

namespace nbfft::io::detail {

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

std::vector<std::string> children(hid_t group) {
  H5G_info_t gi;
  h5::check(H5Gget_info(group, &gi), "H5Gget_info");
  std::vector<std::string> names;
  for (hsize_t k = 0; k < gi.nlinks; ++k) {
    const ssize_t len =
        h5::check(H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, k, nullptr, 0, H5P_DEFAULT), "H5Lget_name");
    std::string n(std::size_t(len) + 1, '\0');
    h5::check(H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, k, n.data(), n.size(), H5P_DEFAULT),
              "H5Lget_name");
    n.resize(std::size_t(len));
    names.push_back(n);
  }
  return names;
}

bool is_step_name(const std::string& s, std::int64_t& out) {
  if (s.empty() || s.size() > 19) return false;
  for (std::size_t k = s[0] == '-' ? 1 : 0; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return false;
  try {
    out = std::stoll(s);
  } catch (...) {
    return false;
  }
  return std::to_string(out) == s;
}

// Whether the object `name` in `group` is of `type` (the same calls in HDF5 1.10 and 1.12).
bool is_a(hid_t group, const std::string& name, H5I_type_t type) {
  h5::Id o = h5::make(H5Oopen(group, name.c_str(), H5P_DEFAULT), H5Oclose, "opening " + name);
  return H5Iget_type(o) == type;
}

std::array<std::int64_t, 3> three(const std::vector<std::int64_t>& v, std::array<std::int64_t, 3> otherwise) {
  return v.size() == 3 ? std::array<std::int64_t, 3>{v[0], v[1], v[2]} : otherwise;
}

// (Lz, Ly, Lx) as users give them: "Lx, Ly, Lz".
std::string lengths_text(const std::array<double, 3>& l) {
  std::ostringstream os;
  os.precision(17);
  os << l[2] << ", " << l[1] << ", " << l[0];
  return os.str();
}

}  // namespace

std::string xdmf_path_for(const std::string& h5_path) {
  const std::size_t slash = h5_path.find_last_of('/');
  const std::size_t dot = h5_path.find_last_of('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) {
    const std::string ext = h5_path.substr(dot);
    if (ext == ".h5" || ext == ".hdf5" || ext == ".hdf" || ext == ".he5") return h5_path.substr(0, dot) + ".xmf";
  }
  return h5_path + ".xmf";
}

Series::Series(MPI_Comm comm, hid_t file, const std::string& path, H5File::Mode mode, const H5Options& options)
    : comm_(comm), file_(file), path_(path), mode_(mode), xdmf_(options.xdmf && mode != H5File::Mode::Read), sync_(options.sync) {
  const auto& L = options.box_lengths;  // x, y, z
  std::string bad;
  for (int a = 0; a < 3; ++a)
    if (!(std::isfinite(L[a]) && L[a] >= 0))
      bad = "H5File: H5Options::box_lengths must be positive (0 = the default), not " + lengths_text({L[2], L[1], L[0]}) +
            " (x, y, z)";
  agree_message(comm_, bad);
  check_same(comm_, "H5File", {{"box_lengths", lengths_text({L[2], L[1], L[0]})}});
  const bool given = L[0] > 0 || L[1] > 0 || L[2] > 0;
  agree_message(comm_, given && !(L[0] > 0 && L[1] > 0 && L[2] > 0)
                           ? "H5File: H5Options::box_lengths gives some axes and not others; give all three (x, y, z) "
                             "or none (2*pi each)"
                           : "");
  const std::array<double, 3> want = given ? std::array<double, 3>{L[2], L[1], L[0]}
                                           : std::array<double, 3>{kTwoPi, kTwoPi, kTwoPi};
  agree(comm_, [&] {
    const std::vector<double> have = h5::get_doubles(file_, "box_lengths", 3);
    if (have.size() == 3) {
      lengths_ = {have[0], have[1], have[2]};
      if (given && lengths_ != want)
        throw Error(ErrorCode::InvalidArgument, "H5File: '" + path_ + "' holds a run with box lengths " +
                                                    lengths_text(lengths_) + " (x, y, z); H5Options::box_lengths gives " +
                                                    lengths_text(want));
    } else {
      lengths_ = want;
      if (mode_ != H5File::Mode::Read) h5::put_doubles(file_, "box_lengths", {want[0], want[1], want[2]});
    }
    run_stamped_ = h5::has_attr(file_, "grid");
    if (mode_ != H5File::Mode::Append || !xdmf_) return;
    for (const auto& f : children(file_)) {
      if (!is_a(file_, f, H5I_GROUP)) continue;
      h5::Id g = h5::make(H5Gopen2(file_, f.c_str(), H5P_DEFAULT), H5Gclose, "opening /" + f);
      for (const auto& s : children(g)) {
        std::int64_t step = 0;
        if (is_step_name(s, step)) catalog(f, step);
      }
    }
  });
}

void Series::catalog(const std::string& field, std::int64_t step) {
  const std::string where = "/" + field + "/" + std::to_string(step);
  h5::Id g = h5::make(H5Gopen2(file_, field.c_str(), H5P_DEFAULT), H5Gclose, "opening /" + field);
  if (!is_a(g, std::to_string(step), H5I_DATASET)) return;
  h5::Id d = h5::make(H5Dopen2(g, std::to_string(step).c_str(), H5P_DEFAULT), H5Dclose, "opening " + where);
  Entry e;
  e.field = field;
  e.step = step;
  const std::string space = h5::get_string(d, "space");
  if (space != "physical" && space != "spectral") return;  // not nbfft's description: left out
  e.space = space == "physical" ? Space::Physical : Space::Spectral;
  const std::vector<double> t = h5::get_doubles(d, "time", 1);
  e.time = t.empty() ? double(step) : t[0];
  const std::string kind = h5::get_string(d, "kind");
  if (!kind.empty()) e.kind = kind;
  h5::Id fs = h5::make(H5Dget_space(d), H5Sclose, "H5Dget_space");
  // XDMF's co-rectilinear meshes are 2-D or 3-D; a 2-D array (an N-D plan's, a user's
  // layout's) is one plane of thickness 1 along z, its axes y and x. Other ranks are left out.
  e.rank = H5Sget_simple_extent_ndims(fs);
  if (e.rank != 2 && e.rank != 3) return;
  hsize_t dims[3] = {1, 1, 1};
  H5Sget_simple_extent_dims(fs, dims + (3 - e.rank), nullptr);
  e.dims = {std::int64_t(dims[0]), std::int64_t(dims[1]), std::int64_t(dims[2])};
  e.start = three(h5::get_int64s(d, "start", 3), {0, 0, 0});
  e.stride = three(h5::get_int64s(d, "stride", 3), {1, 1, 1});
  e.physical_grid = three(h5::get_int64s(d, "physical_grid", 3), e.dims);
  h5::Id ft = h5::make(H5Dget_type(d), H5Tclose, "H5Dget_type");
  const H5T_class_t c = H5Tget_class(ft);
  if (c == H5T_FLOAT) {
    e.dtype = H5Tget_size(ft) == 8 ? Dtype::Float64 : Dtype::Float32;
  } else if (c == H5T_COMPOUND && H5Tget_nmembers(ft) == 2) {
    e.dtype = H5Tget_size(ft) == 16 ? Dtype::Complex128 : Dtype::Complex64;
  } else {
    return;
  }
  h5::Id dcpl = h5::make(H5Dget_create_plist(d), H5Pclose, "H5Dget_create_plist");
  const haddr_t off = H5Dget_offset(d);
  e.contiguous = H5Pget_layout(dcpl) == H5D_CONTIGUOUS && off != HADDR_UNDEF;
  e.offset = e.contiguous ? std::uint64_t(off) : 0;
  H5Eclear2(H5E_DEFAULT);  // H5Dget_offset of a chunked dataset leaves an error behind
  entries_.push_back(e);
}

RunStamp RunStamp::of(const fft::Plan& plan) { return of(Layout::of(plan, Space::Physical)); }

RunStamp RunStamp::of(const Layout& l) {
  RunStamp r;
  if (l.run_grid.size() != 3 || l.run_physical_grid.size() != 3 || l.run_options.empty()) return r;
  r.grid = {l.run_grid[0], l.run_grid[1], l.run_grid[2]};
  r.physical_grid = {l.run_physical_grid[0], l.run_physical_grid[1], l.run_physical_grid[2]};
  r.plan_options = l.run_options;
  return r;
}

void Series::wrote(const RunStamp& run, const std::string& field, std::int64_t step) {
  agree(comm_, [&] {
    if (!run_stamped_ && !run.empty()) {  // the run: the 3-D plan of the file's first write
      h5::put_int64s(file_, "grid", {run.grid[0], run.grid[1], run.grid[2]});
      h5::put_int64s(file_, "physical_grid", {run.physical_grid[0], run.physical_grid[1], run.physical_grid[2]});
      h5::put_string(file_, "plan_options", run.plan_options);
      run_stamped_ = true;
    }
    if (xdmf_) catalog(field, step);
  });
  if (mode_ == H5File::Mode::Append) publish();
}

void Series::closed() {
  if (mode_ != H5File::Mode::Read) publish();
}

void Series::publish() {
  if (!xdmf_) return;
  const std::string target = xdmf_path_for(path_);
  const std::size_t slash = path_.find_last_of('/');
  const std::string h5_name = slash == std::string::npos ? path_ : path_.substr(slash + 1);
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  agree(comm_, [&] {
    if (rank != 0) return;
    try {
      write_file_atomic(target, xdmf_text(entries_, h5_name, lengths_), sync_);
    } catch (const Error& e) {
      // The data is safe: say so, so that a full disk here is not mistaken for a lost field.
      throw Error(e.code(), "H5File: writing the XDMF beside '" + path_ + "' (the HDF5 file itself is complete; "
                            "H5Options::xdmf = false leaves the XDMF out): " + e.message());
    }
  });
}

}  // namespace nbfft::io::detail

namespace nbfft::io {

std::array<double, 3> H5File::box_lengths() const {
  if (!is_open()) throw Error(ErrorCode::InvalidState, "H5File::box_lengths: the file is closed");
  return detail::handle_of(*impl_).series->lengths_xyz();
}

std::string H5File::xdmf_path() const {
  if (!impl_) throw Error(ErrorCode::InvalidState, "H5File: used after being moved from");
  const detail::Handle h = detail::handle_of(*impl_);
  return h.series ? h.series->xdmf_path() : "";
}

}  // namespace nbfft::io
