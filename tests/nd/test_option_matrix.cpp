// Every row of the option table on every N-D shape, from C++ (nd::set_option on nd::Options):
// 3-D over all axes on the 3-D plan and on nd's own steps (use_3d_plan = false, which the
// front ends do not reach), 2-D, 3-D over two axes and a 4-D batch, at 1-4 ranks. A row that
// applies is set to a value other than its default and the plan's forward, gathered, is the
// naive DFT (nd_reference.hpp: the r2r axis by its definition, the norm applied), its
// backward the input; a row of the 3-D plan only is refused naming the key. The C, Fortran
// and Python matrices run the same rows from their front ends.
#include "nbfft/error.hpp"
#include "nbfft/fft/option_table.hpp"
#include "nbfft/nd/options_text.hpp"
#include "nbfft/nd/plan.hpp"
#include "nbfft/nd/tune.hpp"
#include "../fft/fft_test_util.hpp"
#include "nd_reference.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using nbfft::fft::AxisKind;
using nbfft::fft::test::random_value;
using nbfft::fft::test::world_rank;
using nbfft::fft::test::world_size;
using nbfft::nd::Box;
using nbfft::nd::Options;
using nbfft::nd::Plan;
using nbfft::nd::test::cplx;
using nbfft::nd::test::Shape;

struct Case {
  const char* name;
  Shape shape;
  std::vector<int> axes;
  int batch;  // -1: none
  bool own_steps;
};

const Case kCases[] = {
    {"3-D on the 3-D plan", {11, 10, 12}, {0, 1, 2}, -1, false},
    {"3-D on nd's own steps", {11, 10, 12}, {0, 1, 2}, -1, true},
    {"2-D", {16, 12}, {0, 1}, -1, false},
    {"3-D over 0, 2", {8, 6, 10}, {0, 2}, -1, false},
    {"4-D batch", {3, 8, 6, 10}, {1, 2, 3}, 0, false},
};

// The same file name on every rank (rank 0's pid). Collective the first time.
std::string wisdom_path() {
  static const std::string p = [] {
    int pid = world_rank() == 0 ? static_cast<int>(getpid()) : 0;
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return "/tmp/nbfft-nd-matrix-" + std::to_string(pid) + ".txt";
  }();
  return p;
}

// The value a cell sets (not the default), as the C and Python matrices choose it.
std::string value_for(const nbfft::fft::OptionRow& r, const Case& c, const std::vector<int>& axes) {
  const std::string k = r.key;
  if (k == "kinds") {
    std::string v = "dct2";
    for (std::size_t a = 1; a < axes.size(); ++a) v += ",periodic";
    return v;
  }
  if (k == "norm") return "ortho";
  if (k == "proc_grid") {
    std::string v;
    for (std::size_t a = 0; a < c.shape.size(); ++a)
      v += (a ? "x" : "") + std::to_string(static_cast<int>(a) == (c.batch == 0 ? 1 : 0) ? world_size() : 1);
    return v;
  }
  if (k == "backend") return "fftw";
  if (k == "output_order") return "transposed";
  if (k == "tune") return "quick";
  if (k == "tune_budget") return "0.3";
  if (k == "tune_wisdom") return wisdom_path();
  if (k == "allow_empty") return "false";
  if (k == "batch_axis") return std::to_string(c.batch >= 0 ? c.batch : (axes.size() == c.shape.size() ? 0 : 1));
  if (k == "padding") {  // one ratio per listed axis: 3/2, none, 2, ...
    const char* ratios[] = {"1.5", "1", "2"};
    std::string v;
    for (std::size_t a = 0; a < axes.size(); ++a) v += (a ? "," : "") + std::string(ratios[a % 3]);
    return v;
  }
  return r.example;
}

void cell(const Case& c, const nbfft::fft::OptionRow& r) {
  const std::string key = r.key;
  std::vector<int> axes = c.axes;
  const std::string value = value_for(r, c, axes);
  SCOPED_TRACE(std::string(c.name) + ": " + key + "=" + value);
  Options o;
  o.effort = nbfft::fft::Effort::Estimate;
  o.use_3d_plan = !c.own_steps;
  if (c.batch >= 0) o.batch_axis = c.batch;
  if (key == "tune_budget" || key == "tune_fields" || key == "tune_wisdom" || key == "tune_log")
    nbfft::nd::apply_options(o, "tune=quick tune_budget=0.3");
  if (!nbfft::fft::applies_to_nd(r.scope)) {
    nbfft::nd::test::expect_error([&] { nbfft::nd::set_option(o, key, value); }, nbfft::ErrorCode::InvalidArgument,
                                  key);
    return;
  }
  nbfft::nd::set_option(o, key, value);
  if (key == "tune") nbfft::nd::apply_options(o, "tune_budget=0.3");
  int batch = c.batch;
  if (key == "batch_axis" && batch < 0) {  // a shape without one: its axis leaves the axes
    batch = std::stoi(value);
    const auto at = std::find(axes.begin(), axes.end(), batch);
    if (at != axes.end()) axes.erase(at);
  }
  if (axes.size() == 1 && world_size() > 1) {  // a batch of 1-D r2c fields: no axis can take the ranks
    nbfft::nd::test::expect_error([&] { Plan(MPI_COMM_WORLD, c.shape, axes, o); }, nbfft::ErrorCode::InvalidArgument,
                                  "the r2c axis");
    return;
  }
  const Plan p(MPI_COMM_WORLD, c.shape, axes, o);
  SCOPED_TRACE(p.describe());
  if (c.own_steps) {
    EXPECT_FALSE(p.uses_3d_plan());
  }
  const bool single = o.precision == nbfft::fft::Precision::Single, complex_in = o.kind == nbfft::nd::Kind::C2C;
  // A padded plan's input is on the physical grid (shape()); its spectrum keeps c.shape's modes.
  const bool padded = key == "padding";
  const Shape shape = padded ? p.shape() : c.shape;
  const Box whole = nbfft::nd::test::whole(shape);
  // The input (rounded to the plan's precision) as the reference sees it.
  std::vector<cplx> g(static_cast<std::size_t>(nbfft::nd::test::volume(shape)));
  for (std::size_t i = 0; i < g.size(); ++i) {
    g[i] = cplx(random_value(7, i), complex_in ? random_value(8, i) : 0.0);
    if (single) g[i] = cplx(float(g[i].real()), float(g[i].imag()));
  }
  std::vector<AxisKind> kinds;
  for (std::size_t i = 0; i < axes.size(); ++i) kinds.push_back(key == "kinds" && i == 0 ? AxisKind::Dct2 : AxisKind::Periodic);
  std::vector<cplx> want = nbfft::nd::test::dft(shape, g, axes, kinds);
  double n = 1;
  for (std::size_t i = 0; i < axes.size(); ++i) n *= double(kinds[i] == AxisKind::Dct2 ? 2 * shape[axes[i]] : shape[axes[i]]);
  if (key == "norm")
    for (auto& w : want) w /= std::sqrt(n);
  // Padded: the spectrum truncated to c.shape's modes and scaled by N/M (the spectrum is the n
  // grid's); backward pads it and inverts on the physical grid, scaled by 1/N: the band-limited
  // part of the input, not the input.
  std::vector<cplx> want_back;
  Shape want_shape = shape;
  if (padded) {
    double M = 1;
    for (int a : axes) {
      M *= double(shape[a]);
      want = nbfft::nd::test::resize_axis(want_shape, want, a, c.shape[a]);
    }
    double N = 1;
    for (int a : axes) N *= double(c.shape[a]);
    for (auto& w : want) w *= N / M;
    Shape s = want_shape;
    want_back = want;
    for (int a : axes) want_back = nbfft::nd::test::resize_axis(s, want_back, a, shape[a]);
    want_back = nbfft::nd::test::idft(shape, want_back, axes);
    for (auto& w : want_back) w /= N;
  }
  const Box want_whole = nbfft::nd::test::whole(want_shape);
  // Through the plan, in double or single, real or complex input; in place when lean.
  std::vector<cplx> local_in(p.in_count()), local_out(p.out_count()), back(p.in_count());
  nbfft::nd::test::for_each(p.in_box(), [&](const Shape& x, std::int64_t at) {
    local_in[static_cast<std::size_t>(at)] = g[static_cast<std::size_t>(whole.index(x))];
  });
  nbfft::nd::test::round_trip(p, local_in, local_out, back);
  const std::vector<cplx> got = nbfft::nd::test::gather(p.out_shape(), p.out_box(), local_out);
  double err = 0, most = 1, bk = 0;
  const Box out_whole = nbfft::nd::test::whole(p.out_shape());
  nbfft::nd::test::for_each(out_whole, [&](const Shape& x, std::int64_t at) {
    const cplx w = want[static_cast<std::size_t>(want_whole.index(x))];  // r2c: the full array's first half
    err = std::max(err, std::abs(got[static_cast<std::size_t>(at)] - w));
    most = std::max(most, std::abs(w));
  });
  std::vector<cplx> back_want = local_in;
  if (padded)
    nbfft::nd::test::for_each(p.in_box(), [&](const Shape& x, std::int64_t at) {
      const cplx w = want_back[static_cast<std::size_t>(whole.index(x))];
      back_want[static_cast<std::size_t>(at)] = complex_in ? w : cplx(w.real(), 0);
    });
  for (std::size_t i = 0; i < back.size(); ++i) bk = std::max(bk, std::abs(back[i] - back_want[i]));
  MPI_Allreduce(MPI_IN_PLACE, &bk, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double tol = single ? 2e-4 : 1e-10;
  EXPECT_LE(err, tol * most) << "forward";
  EXPECT_LE(bk, tol * 2) << "backward";
}

TEST(OptionMatrix, EveryRowOnEveryNdShape) {
  const std::string wisdom = wisdom_path();  // collective: every rank, before any cell
  int cells = 0;
  for (const Case& c : kCases)
    for (const auto& r : nbfft::fft::option_rows()) {
      cell(c, r);
      ++cells;
      nbfft::nd::forget_tuning();
      MPI_Barrier(MPI_COMM_WORLD);
      if (world_rank() == 0) std::remove(wisdom.c_str());
    }
  EXPECT_EQ(cells, 5 * static_cast<int>(nbfft::fft::option_rows().size()));
}

}  // namespace
