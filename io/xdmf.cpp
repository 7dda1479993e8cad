// The XDMF 2 file beside an nbfft HDF5 file: what ParaView and VisIt open as a time series.
//
// One temporal collection per grid (datasets of the same space, shape and placement share
// one: full physical fields, full spectra, each plane, each subsample; 2-D arrays, an N-D
// plan's or a user's layout's, as one z plane of their own grids); inside it one
// uniform grid per physical time holding every field written at that time as point
// scalars. Grids are 3DCoRectMesh (origin and spacing): physical fields at x = i Lx/mx,
// spectra at kx = i 2 pi/Lx in the file's storage order (the FFT's: negative wavenumbers
// after the positive ones), planes and subsamples at their place in the full grid.
//
// Real data is read through XDMF's HDF items. A complex dataset is HDF5's compound {r, i},
// which XDMF's HDF reader cannot take apart, so it is described by its bytes instead: a
// Binary item at the contiguous dataset's file offset seen as (..., 2) floats, the real and
// imaginary parts hyperslabs of it, the modulus a Function of the two (VTK's XDMF reader,
// the one ParaView uses, reads all three; tests/io/check_xdmf.py checks it). Chunked
// complex datasets (H5Options::chunk) have no such offset and are left out, with a comment.
#include "series.hpp"

#include "nbfft/version.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace nbfft::io::detail {

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

std::string xml(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

std::string dims_text(const std::array<std::int64_t, 3>& d) {
  return std::to_string(d[0]) + " " + std::to_string(d[1]) + " " + std::to_string(d[2]);
}

bool complex_type(Dtype d) { return d == Dtype::Complex128 || d == Dtype::Complex64; }
int precision(Dtype d) { return d == Dtype::Float64 || d == Dtype::Complex128 ? 8 : 4; }

// The geometry key: datasets with the same one share a grid.
std::string geometry_key(const Entry& e) {
  std::ostringstream os;
  os << name(e.space) << ' ' << e.rank << ' ' << e.kind << ' ' << dims_text(e.dims) << ' ' << dims_text(e.start) << ' '
     << dims_text(e.stride);
  if (e.space == Space::Physical) os << ' ' << dims_text(e.physical_grid);
  return os.str();
}

struct Grid {
  std::string name;
  const Entry* first;                                                // its geometry
  std::map<double, std::map<std::string, const Entry*>> at_time;     // time -> field -> dataset
};

void geometry(std::ostringstream& os, const Entry& e, const std::array<double, 3>& L) {
  double origin[3], spacing[3];
  for (int a = 0; a < 3; ++a) {
    const double base = e.space == Space::Physical ? L[a] / double(std::max<std::int64_t>(1, e.physical_grid[a]))
                                                   : kTwoPi / L[a];
    origin[a] = double(e.start[a]) * base;
    spacing[a] = double(e.stride[a]) * base;
  }
  os << "        <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << dims_text(e.dims) << "\"/>\n"
     << "        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
     << "          <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">"
     << num(origin[0]) << ' ' << num(origin[1]) << ' ' << num(origin[2]) << "</DataItem>\n"
     << "          <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">"
     << num(spacing[0]) << ' ' << num(spacing[1]) << ' ' << num(spacing[2]) << "</DataItem>\n"
     << "        </Geometry>\n";
}

// Part c (0 real, 1 imaginary) of a complex dataset: a hyperslab of its bytes seen as
// (nz, ny, nx, 2) floats.
std::string complex_part(const Entry& e, const std::string& h5_name, int c, const std::string& indent) {
  const std::string d = dims_text(e.dims);
  std::ostringstream os;
  os << indent << "<DataItem ItemType=\"HyperSlab\" Dimensions=\"" << d << " 1\" Type=\"HyperSlab\">\n"
     << indent << "  <DataItem Dimensions=\"3 4\" NumberType=\"Int\" Format=\"XML\">0 0 0 " << c << "  1 1 1 1  " << d
     << " 1</DataItem>\n"
     << indent << "  <DataItem Format=\"Binary\" Endian=\"Little\" Seek=\"" << e.offset
     << "\" NumberType=\"Float\" Precision=\"" << precision(e.dtype) << "\" Dimensions=\"" << d << " 2\">"
     << xml(h5_name) << "</DataItem>\n"
     << indent << "</DataItem>\n";
  return os.str();
}

void attributes(std::ostringstream& os, const std::string& field, const Entry& e, const std::string& h5_name) {
  const std::string d = dims_text(e.dims);
  const std::string path = "/" + field + "/" + std::to_string(e.step);
  if (!complex_type(e.dtype)) {
    os << "        <Attribute Name=\"" << xml(field) << "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
       << "          <DataItem Dimensions=\"" << d << "\" NumberType=\"Float\" Precision=\"" << precision(e.dtype)
       << "\" Format=\"HDF\">" << xml(h5_name + ":" + path) << "</DataItem>\n"
       << "        </Attribute>\n";
    return;
  }
  if (!e.contiguous) {
    os << "        <!-- " << xml(path) << " is a chunked complex dataset: XDMF reads complex data only from a "
       << "contiguous one (its bytes), so it is left out -->\n";
    return;
  }
  const std::string in = "          ";
  os << "        <Attribute Name=\"" << xml(field) << "_re\" AttributeType=\"Scalar\" Center=\"Node\">\n"
     << complex_part(e, h5_name, 0, in) << "        </Attribute>\n"
     << "        <Attribute Name=\"" << xml(field) << "_im\" AttributeType=\"Scalar\" Center=\"Node\">\n"
     << complex_part(e, h5_name, 1, in) << "        </Attribute>\n"
     << "        <Attribute Name=\"" << xml(field) << "_abs\" AttributeType=\"Scalar\" Center=\"Node\">\n"
     << in << "<DataItem ItemType=\"Function\" Function=\"sqrt($0*$0 + $1*$1)\" Dimensions=\"" << d << "\">\n"
     << complex_part(e, h5_name, 0, in + "  ") << complex_part(e, h5_name, 1, in + "  ") << in << "</DataItem>\n"
     << "        </Attribute>\n";
}

}  // namespace

std::string xdmf_text(const std::vector<Entry>& entries, const std::string& h5_name,
                      const std::array<double, 3>& lengths) {
  std::vector<const Entry*> sorted;
  for (const auto& e : entries) sorted.push_back(&e);
  // By step: a field written twice at one time shows its later step.
  std::stable_sort(sorted.begin(), sorted.end(), [](const Entry* a, const Entry* b) { return a->step < b->step; });

  std::vector<Grid> grids;
  std::map<std::string, std::size_t> by_key;
  for (const Entry* e : sorted) {
    const std::string key = geometry_key(*e);
    auto it = by_key.find(key);
    if (it == by_key.end()) {
      it = by_key.emplace(key, grids.size()).first;
      grids.push_back({"", e, {}});
    }
    grids[it->second].at_time[e->time][e->field] = e;
  }
  // Names: the space for whole fields, the fields' names for planes and subsamples.
  std::map<std::string, int> used;
  for (auto& g : grids) {
    std::string n = std::string(name(g.first->space)) + (g.first->rank == 2 ? " 2-D" : "");
    if (g.first->kind != "field") {
      std::map<std::string, bool> fields;
      for (const auto& [t, fs] : g.at_time)
        for (const auto& f : fs) fields[f.first] = true;
      n.clear();
      for (const auto& f : fields) n += (n.empty() ? "" : "+") + f.first;
      n += " (" + g.first->kind + ")";
    }
    const int k = ++used[n];
    g.name = k == 1 ? n : n + " " + std::to_string(k);
  }

  std::ostringstream os;
  os << "<?xml version=\"1.0\" ?>\n"
     << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
     << "<!-- The fields of " << xml(h5_name) << " as time series, written by nbfft " << NBFFT_VERSION_STRING
     << " (docs/io.md). Open this file in ParaView (XDMF Reader) or VisIt. -->\n"
     << "<Xdmf Version=\"2.0\">\n"
     << "  <Domain>\n";
  for (const auto& g : grids) {
    os << "    <Grid Name=\"" << xml(g.name) << "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
    for (const auto& [t, fields] : g.at_time) {
      os << "      <Grid Name=\"" << xml(g.name) << " t=" << num(t) << "\" GridType=\"Uniform\">\n"
         << "        <Time Value=\"" << num(t) << "\"/>\n";
      geometry(os, *g.first, lengths);
      for (const auto& [f, e] : fields) attributes(os, f, *e, h5_name);
      os << "      </Grid>\n";
    }
    os << "    </Grid>\n";
  }
  os << "  </Domain>\n"
     << "</Xdmf>\n";
  return os.str();
}

}  // namespace nbfft::io::detail
