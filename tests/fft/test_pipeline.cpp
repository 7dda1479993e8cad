// The overlapped variants of the transform against the plain one: the multi-field
// pipeline (seed 000 Fig. 4) over nv = 1..5 fields and every transport, the plane-pipelined
// COL exchange (seed 001 §5) with several chunk sizes, and the five COL kernels of seed
// 002 — on every process grid of the communicator size, on even and uneven grids. Each
// variant must give the plain transform's result to 1e-12 (double), forward and backward.
#include "nbfft/coll/transport.hpp"
#include "nbfft/fft/fft.hpp"
#include "fft_test_util.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>

namespace nbfft::fft::test {
namespace {

using Grid = std::array<std::int64_t, 3>;

// NBFFT_FFT_TEST_SMALL=1 (set for MPICH, which busy-polls when ranks outnumber cores and
// runs these ~5x slower) keeps the uneven and the tiny grid and fewer transports.
bool small() { return std::getenv("NBFFT_FFT_TEST_SMALL") != nullptr; }
std::vector<Grid> grids() {
  if (small()) return {{17, 13, 11}, {5, 3, 2}};
  return {{17, 13, 11}, {16, 12, 10}, {5, 3, 2}};
}

// max |a - b| over max |b|, over every rank.
template <typename X>
double rel_diff(const std::vector<X>& a, const std::vector<X>& b) {
  double d = 0, r = 0;
  for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
    d = std::max(d, static_cast<double>(std::abs(a[k] - b[k])));
    r = std::max(r, static_cast<double>(std::abs(b[k])));
  }
  double in[2] = {d, r}, out[2];
  MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out[1] > 0 ? out[0] / out[1] : out[0];
}

// rel_diff of every field pair in one allreduce: under MPICH's busy-polling on 2 cores each
// synchronization costs scheduler slices, so a field's check must not add one of its own.
template <typename X>
std::vector<double> rel_diffs(const std::vector<std::vector<X>>& a, const std::vector<std::vector<X>>& b) {
  std::vector<double> in(2 * a.size(), 0.0), out(in.size());
  for (std::size_t v = 0; v < a.size(); ++v)
    for (std::size_t k = 0; k < std::min(a[v].size(), b[v].size()); ++k) {
      in[2 * v] = std::max(in[2 * v], static_cast<double>(std::abs(a[v][k] - b[v][k])));
      in[2 * v + 1] = std::max(in[2 * v + 1], static_cast<double>(std::abs(b[v][k])));
    }
  MPI_Allreduce(in.data(), out.data(), static_cast<int>(in.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  std::vector<double> rel(a.size());
  for (std::size_t v = 0; v < a.size(); ++v) rel[v] = out[2 * v + 1] > 0 ? out[2 * v] / out[2 * v + 1] : out[2 * v];
  return rel;
}

// Cases rotate over the process grids instead of running the full product (the product
// took ~3 min at 4 ranks under MPICH): case i of grid g runs on factorization (i + g) mod
// their count, so over the grids each case meets several process grids and each process
// grid several cases.
bool runs_on(std::size_t i, std::size_t g, std::size_t j, std::size_t nf) { return (i + g) % nf == j; }

Options base_options(int m1, int m2, TransformKind tk = TransformKind::R2C, Precision p = Precision::Double) {
  Options o = test_options(m1, m2, tk, p);
  o.fields_in_flight = 2;  // seed 000 Fig. 4's two-field pipeline (the default, 1, runs fields in turn)
  return o;
}

// Random real (r2c) or complex (c2c) fields of the plan's input box, one seed each.
template <typename In>
std::vector<std::vector<In>> make_fields(const Plan& plan, const Grid& n, int nv) {
  constexpr bool real = std::is_floating_point<In>::value;
  std::vector<std::vector<In>> f(nv);
  for (int v = 0; v < nv; ++v) {
    auto d = random_box(plan.in_box(), n, real ? 1 : 2, 1000 + v);
    f[v].resize(plan.in_count());
    for (std::size_t k = 0; k < f[v].size(); ++k) {
      if constexpr (real)
        f[v][k] = static_cast<In>(d[k]);
      else
        f[v][k] = In(d[2 * k], d[2 * k + 1]);
    }
  }
  return f;
}

// Runs `plan` (the variant) and `ref` (the plain transform) on nv fields, forward with
// forward_many and backward with backward_many, and compares every field.
template <typename In, typename Out>
void compare(const Plan& plan, const Plan& ref, const Grid& n, int nv, const std::string& what, double tol = 1e-12) {
  auto in = make_fields<In>(plan, n, nv);
  std::vector<std::vector<Out>> spec(nv, std::vector<Out>(plan.out_count()));
  std::vector<std::vector<Out>> spec_ref(nv, std::vector<Out>(plan.out_count()));
  plan.forward_many(in, spec);
  for (int v = 0; v < nv; ++v) ref.forward(in[v], spec_ref[v]);
  const auto fwd = rel_diffs(spec, spec_ref);
  for (int v = 0; v < nv; ++v) EXPECT_LE(fwd[v], tol) << what << ": forward, field " << v << " of " << nv;
  std::vector<std::vector<In>> back(nv, std::vector<In>(plan.in_count())), back_ref = back;
  plan.backward_many(spec_ref, back);
  for (int v = 0; v < nv; ++v) ref.backward(spec_ref[v], back_ref[v]);
  const auto bwd = rel_diffs(back, back_ref);
  for (int v = 0; v < nv; ++v) EXPECT_LE(bwd[v], tol) << what << ": backward, field " << v << " of " << nv;
}

std::string grid_str(const Grid& n, int m1, int m2) {
  std::ostringstream os;
  os << n[0] << "x" << n[1] << "x" << n[2] << " on " << m1 << "x" << m2;
  return os.str();
}

// Seed 000 Fig. 4 pipeline: every transport with nv = 5 (a pipeline that wraps, with a short
// last round for 2 and 3 in flight) and one of nv = 1..4 in turn, each transport on one
// process grid per grid (runs_on), so on 4 ranks each meets two of 1x4, 2x2 and 4x1.
TEST(Pipeline, MultiFieldMatchesPlainForEveryTransport) {
  const int P = world_size();
  std::vector<std::string> transports = {"blocking", "caller", "thread", "native", "rma", "pairwise:1@caller"};
  if (small()) transports = {"blocking", "caller", "thread", "native"};
  const auto fs = factorizations(P);
  const auto gs = grids();
  for (std::size_t g = 0; g < gs.size(); ++g)
    for (std::size_t j = 0; j < fs.size(); ++j) {
      const auto& n = gs[g];
      const auto& f = fs[j];
      const Plan ref(MPI_COMM_WORLD, n, base_options(f[0], f[1]));
      for (std::size_t t = 0; t < transports.size(); ++t) {
        const std::string& tr = transports[t];
        // rma on pencil grids: see test_transform.cpp (Open MPI 4.1 window creation on
        // disjoint sub-communicators is flaky); slabs exercise it, so rma takes every slab.
        const bool pencil = f[0] > 1 && f[1] > 1;
        if (tr == "rma" ? pencil : !runs_on(t, g, j, fs.size())) continue;
        Options o = base_options(f[0], f[1]);
        o.col_transport = coll::Transport::parse(tr);
        o.progress_chunks = 3;
        o.fields_in_flight = 1 + static_cast<int>(t + g) % 3;  // in turn, two-field pipeline, three in flight
        const Plan plan(MPI_COMM_WORLD, n, o);
        for (int nv : {1 + static_cast<int>(t + 2 * g) % 4, 5})
          compare<double, std::complex<double>>(plan, ref, n, nv, grid_str(n, f[0], f[1]) + " col " + tr + " in flight " + std::to_string(o.fields_in_flight));
      }
    }
}

// Pencils with the ROW exchange pipelined across fields too (Options::pipeline_row), both
// exchanges on each engine, on every pencil process grid, two or three fields in flight in
// turn over the grids; on slabs and M2 = 1 the option changes nothing, so where the rank
// count has no pencils each engine runs on one slab.
TEST(Pipeline, RowPipelineMatchesPlain) {
  const int P = world_size();
  std::vector<std::array<int, 2>> fs;
  for (const auto& f : factorizations(P))
    if (f[0] > 1 && f[1] > 1) fs.push_back(f);
  const bool pencils = !fs.empty();
  if (!pencils) fs = factorizations(P);
  const auto gs = grids();
  const std::vector<std::string> transports = {"blocking", "caller", "thread"};
  for (std::size_t g = 0; g < gs.size(); ++g)
    for (std::size_t j = 0; j < fs.size(); ++j) {
      const auto& n = gs[g];
      const auto& f = fs[j];
      const Plan ref(MPI_COMM_WORLD, n, base_options(f[0], f[1]));
      for (std::size_t t = 0; t < transports.size(); ++t) {
        if (!pencils && !runs_on(t, g, j, fs.size())) continue;
        // Two and three in flight in turn over the grids (each transport meets both; both on
        // every grid took a third of fft.pipeline at 4 ranks under MPICH).
        for (int k : {2, 3}) {
          if (static_cast<std::size_t>(k) % 2 != g % 2) continue;
          Options o = base_options(f[0], f[1]);
          o.transport(transports[t]);
          o.progress_chunks = 3;
          o.fields_in_flight = k;
          o.pipeline_row = true;
          const Plan plan(MPI_COMM_WORLD, n, o);
          // nv = 4 (more fields than in flight) and one of 1..3 in turn (fewer, as many).
          for (int nv : {1 + static_cast<int>(t + g + k) % 3, 4})
            compare<double, std::complex<double>>(plan, ref, n, nv, grid_str(n, f[0], f[1]) + " row+col " +
                                                                        transports[t] + " in flight " + std::to_string(k));
        }
      }
    }
}

// Both exchanges non-blocking, c2c and single precision, and the ROW exchange on the
// thread engine while the COL one is on the caller engine.
TEST(Pipeline, MultiFieldC2CSingleAndMixedEngines) {
  const int P = world_size();
  const Grid n{12, 10, 9};
  for (const auto& f : factorizations(P)) {
    {
      const Plan ref(MPI_COMM_WORLD, n, base_options(f[0], f[1], TransformKind::C2C));
      Options o = base_options(f[0], f[1], TransformKind::C2C);
      o.row_transport = coll::Transport::parse("thread");
      o.col_transport = coll::Transport::parse("caller");
      const Plan plan(MPI_COMM_WORLD, n, o);
      compare<std::complex<double>, std::complex<double>>(plan, ref, n, 4, grid_str(n, f[0], f[1]) + " c2c thread/caller");
    }
    {
      const Plan ref(MPI_COMM_WORLD, n, base_options(f[0], f[1], TransformKind::R2C, Precision::Single));
      Options o = base_options(f[0], f[1], TransformKind::R2C, Precision::Single);
      o.transport("caller");
      const Plan plan(MPI_COMM_WORLD, n, o);
      compare<float, std::complex<float>>(plan, ref, n, 3, grid_str(n, f[0], f[1]) + " single caller", 1e-6);
    }
  }
}

// In place per field, through the pointer API.
TEST(Pipeline, MultiFieldInPlace) {
  const int P = world_size();
  const Grid n{17, 13, 11};
  for (const auto& f : factorizations(P)) {
    const Plan ref(MPI_COMM_WORLD, n, base_options(f[0], f[1]));
    Options o = base_options(f[0], f[1]);
    o.transport("thread");
    const Plan plan(MPI_COMM_WORLD, n, o);
    const int nv = 3;
    auto in = make_fields<double>(plan, n, nv);
    const std::size_t cap = (plan.inplace_bytes() + 15) / 16;
    std::vector<std::vector<std::complex<double>>> buf(nv, std::vector<std::complex<double>>(cap));
    std::vector<double*> rin;
    std::vector<std::complex<double>*> cout;
    for (int v = 0; v < nv; ++v) {
      std::copy(in[v].begin(), in[v].end(), reinterpret_cast<double*>(buf[v].data()));
      rin.push_back(reinterpret_cast<double*>(buf[v].data()));
      cout.push_back(buf[v].data());
    }
    plan.forward_many(rin, 2 * cap, cout, cap);
    for (int v = 0; v < nv; ++v) {
      std::vector<std::complex<double>> r(plan.out_count()), got(buf[v].begin(), buf[v].begin() + plan.out_count());
      ref.forward(in[v], r);
      EXPECT_LE(rel_diff(got, r), 1e-12) << grid_str(n, f[0], f[1]) << " in-place field " << v;
    }
    plan.backward_many(cout, cap, rin, 2 * cap);
    for (int v = 0; v < nv; ++v) {  // the default norm (backward) makes the round trip the identity
      std::vector<double> got(rin[v], rin[v] + plan.in_count()), want(in[v]);
      EXPECT_LE(rel_diff(got, want), 1e-12) << grid_str(n, f[0], f[1]) << " in-place round trip " << v;
    }
  }
}

// Seed 001 §5: the COL exchange in chunks of planes, each started when its planes are done;
// each chunk size on one process grid per grid (runs_on), the transports in turn.
TEST(Pipeline, PlanePipelineMatchesPlain) {
  const int P = world_size();
  const char* transports[] = {"blocking", "caller", "thread", "native"};
  const auto fs = factorizations(P);
  const auto gs = grids();
  int rot = 0;
  for (std::size_t g = 0; g < gs.size(); ++g)
    for (std::size_t j = 0; j < fs.size(); ++j) {
      const auto& n = gs[g];
      const auto& f = fs[j];
      const Plan ref(MPI_COMM_WORLD, n, base_options(f[0], f[1]));
      const int chunks[] = {1, 2, 3, 100};
      for (std::size_t c = 0; c < std::size(chunks); ++c) {
        if (!runs_on(c, g, j, fs.size())) continue;
        const int cp = chunks[c];
        const char* tr = transports[rot++ % 4];
        Options o = base_options(f[0], f[1]);
        o.col_transport = coll::Transport::parse(tr);
        o.col_chunk_planes = cp;
        const Plan plan(MPI_COMM_WORLD, n, o);
        // nv = 2: multi-field calls with a chunked COL run the fields one after the other.
        compare<double, std::complex<double>>(plan, ref, n, cp == 2 ? 2 : 1,
                                              grid_str(n, f[0], f[1]) + " chunk " + std::to_string(cp) + " " + tr);
      }
    }
}

// Seed 002 §3: the five redistribution kernels (per-plane ones with 1 and 2 planes a chunk,
// in turn over the grids), each kernel on one process grid per grid (runs_on).
TEST(Pipeline, RedistributionKernelsMatchPlain) {
  const int P = world_size();
  const auto fs = factorizations(P);
  const auto gs = grids();
  const auto& kernels = col_kernels();
  for (std::size_t g = 0; g < gs.size(); ++g)
    for (std::size_t j = 0; j < fs.size(); ++j) {
      const auto& n = gs[g];
      const auto& f = fs[j];
      const Plan ref(MPI_COMM_WORLD, n, base_options(f[0], f[1]));
      for (std::size_t ki = 0; ki < kernels.size(); ++ki) {
        if (!runs_on(ki, g, j, fs.size())) continue;
        const ColKernel& k = kernels[ki];
        for (int cp : {0, 2}) {
          if (!k.per_plane && cp) continue;
          // A per-plane kernel takes 1 and 2 planes a chunk in turn over the grids (by grid
          // alone: runs_on already ties the process grid to ki + g).
          if (k.per_plane && static_cast<std::size_t>(cp / 2) != g % 2) continue;
          Options o = base_options(f[0], f[1]);
          o.col_chunk_planes = cp;
          o.col_kernel(k.name);
          const Plan plan(MPI_COMM_WORLD, n, o);
          compare<double, std::complex<double>>(plan, ref, n, 1,
                                                grid_str(n, f[0], f[1]) + " kernel " + k.name + " chunk " + std::to_string(cp));
        }
      }
    }
}

TEST(Pipeline, KernelsInSinglePrecisionC2C) {
  const int P = world_size();
  const Grid n{9, 7, 6};
  const Plan ref(MPI_COMM_WORLD, n, base_options(1, P, TransformKind::C2C, Precision::Single));
  for (const ColKernel& k : col_kernels()) {
    Options o = base_options(1, P, TransformKind::C2C, Precision::Single);
    o.col_kernel(k.name);
    const Plan plan(MPI_COMM_WORLD, n, o);
    compare<std::complex<float>, std::complex<float>>(plan, ref, n, 1, std::string("c2c single kernel ") + k.name, 1e-6);
  }
}

TEST(Pipeline, MultiFieldErrors) {
  const int P = world_size();
  Options o = base_options(1, P);
  const Grid n{8, 8, 8};
  const Plan plan(MPI_COMM_WORLD, n, o);
  std::vector<std::vector<double>> in(2, std::vector<double>(plan.in_count()));
  std::vector<std::vector<std::complex<double>>> out(3, std::vector<std::complex<double>>(plan.out_count()));
  try {
    plan.forward_many(in, out);
    FAIL() << "no error for 2 inputs and 3 outputs";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("2 input fields but 3 output fields"), std::string::npos) << e.what();
  }
  // Two fields sharing an output buffer.
  std::vector<const double*> ip = {in[0].data(), in[1].data()};
  std::vector<std::complex<double>*> op = {out[0].data(), out[0].data()};
  try {
    plan.forward_many(ip, plan.in_count(), op, plan.out_count());
    FAIL() << "no error for fields sharing memory";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("share memory"), std::string::npos) << e.what();
  }
  // Short buffers name the field.
  std::vector<std::complex<double>*> op2 = {out[0].data(), out[1].data()};
  try {
    plan.forward_many(ip, plan.in_count(), op2, plan.out_count() - 1);
    if (plan.out_count() > 1) FAIL() << "no error for short output buffers";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(field 0)"), std::string::npos) << e.what();
  }
  // Wrong precision.
  std::vector<const float*> fin = {nullptr};
  std::vector<std::complex<float>*> fout = {nullptr};
  EXPECT_THROW(plan.forward_many(fin, 0, fout, 0), Error);
  // Ranks disagreeing on the field count.
  if (P > 1) {
    const int nv = world_rank() == 0 ? 1 : 2;
    std::vector<const double*> a(ip.begin(), ip.begin() + nv);
    std::vector<std::complex<double>*> b(op2.begin(), op2.begin() + nv);
    try {
      plan.forward_many(a, plan.in_count(), b, plan.out_count());
      FAIL() << "no error for ranks with different field counts";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("disagree on the number of fields"), std::string::npos) << e.what();
    }
  }
  // Zero fields: nothing to do, no error.
  std::vector<const double*> none_in;
  std::vector<std::complex<double>*> none_out;
  EXPECT_NO_THROW(plan.forward_many(none_in, 0, none_out, 0));
  // Bad options.
  Options bad = o;
  bad.col_chunk_planes = -1;
  EXPECT_THROW(Plan(MPI_COMM_WORLD, n, bad), Error);
  EXPECT_THROW(find_col_kernel("sideways"), Error);
  EXPECT_STREQ(find_col_kernel("Oneplane").name, "oneplane");
}

}  // namespace
}  // namespace nbfft::fft::test
