// nd::Plan's multi-field pipeline, split-phase calls and batch axis at any rank count: each
// result bit for bit equal to the one-field calls on the same plan, and against the naive
// transform of the whole array (tests/nd/nd_reference.hpp), on several transports (the
// blocking one, the caller engine, the thread engine), fields in flight, uneven shapes,
// grids with exchanges across other axes and with two exchanges, every element type.
#include "nbfft/error.hpp"
#include "nbfft/nd/plan.hpp"
#include "../fft/fft_test_util.hpp"
#include "nd_reference.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

using nbfft::fft::AxisKind;
using nbfft::fft::test::random_value;
using nbfft::fft::test::world_rank;
using nbfft::fft::test::world_size;
using nbfft::nd::Kind;
using nbfft::nd::Plan;
using nbfft::nd::test::cplx;
using nbfft::nd::test::expect_error;
using nbfft::nd::test::Shape;
using cplxf = std::complex<float>;

const char* kTransports[] = {"blocking", "pairwise:2@caller", "thread"};

struct Case {
  Shape shape;
  std::vector<int> axes;
  Kind kind = Kind::R2C;
  std::vector<int> grid = {};
  std::vector<AxisKind> kinds = {};
  bool single = false;
  nbfft::fft::Norm norm = nbfft::fft::Norm::Backward;
  std::optional<int> batch = std::nullopt;
  nbfft::fft::OutputOrder order = nbfft::fft::OutputOrder::Natural;
};

nbfft::nd::Options options(const Case& c, const std::string& transport, int in_flight) {
  nbfft::nd::Options o;
  o.kind = c.kind;
  o.grid = c.grid;
  o.kinds = c.kinds;
  o.norm = c.norm;
  o.precision = c.single ? nbfft::fft::Precision::Single : nbfft::fft::Precision::Double;
  o.transport = transport;
  o.fields_in_flight = in_flight;
  o.batch_axis = c.batch;
  o.output_order = c.order;
  return o;
}

// Calls f(In{}, Out{}) with the plan's forward element types.
template <typename F>
void with_types(const Plan& p, F&& f) {
  if (p.precision() == nbfft::fft::Precision::Single) {
    if (p.real_spectrum())
      f(float{}, float{});
    else if (p.kind() == Kind::R2C)
      f(float{}, cplxf{});
    else
      f(cplxf{}, cplxf{});
  } else if (p.real_spectrum()) {
    f(double{}, double{});
  } else if (p.kind() == Kind::R2C) {
    f(double{}, cplx{});
  } else {
    f(cplx{}, cplx{});
  }
}

template <typename T>
T value(std::uint64_t seed, std::uint64_t i) {
  if constexpr (std::is_floating_point_v<T>)
    return T(random_value(seed, i));
  else
    return T(typename T::value_type(random_value(seed, i)), typename T::value_type(random_value(seed + 99, i)));
}
template <typename T>
cplx widen(T v) {
  return cplx(std::real(v), std::imag(v));
}

// Field f's input: this rank's block of a random array (seed 10 + f), in a vector one
// element longer than the block, so that an offset of 1 gives a misaligned array.
template <typename In>
std::vector<In> field_input(const Plan& p, int f) {
  std::vector<In> u(p.in_count() + 1);
  const nbfft::nd::Box all = nbfft::nd::test::whole(p.shape());
  nbfft::nd::test::for_each(p.in_box(), [&](const Shape& g, std::int64_t at) {
    u[static_cast<std::size_t>(at)] = value<In>(10 + static_cast<std::uint64_t>(f), static_cast<std::uint64_t>(all.index(g)));
  });
  return u;
}

// The forward of u (this rank's block) against the naive transform of the gathered array
// (scaled by the norm's forward factor).
template <typename In, typename Out>
void expect_reference(const Plan& p, const std::vector<In>& u, const std::vector<Out>& uh, double tol,
                      nbfft::fft::Norm norm = nbfft::fft::Norm::Backward) {
  std::vector<cplx> mine(p.in_count()), spec(p.out_count());
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = widen(u[i]);
  for (std::size_t i = 0; i < spec.size(); ++i) spec[i] = widen(uh[i]);
  const Shape& shape = p.shape();
  const auto full = nbfft::nd::test::dft(shape, nbfft::nd::test::gather(shape, p.in_box(), mine), p.axes(), p.kinds());
  const Shape out_shape = p.out_shape();
  const auto got = nbfft::nd::test::gather(out_shape, p.out_box(), spec);
  const nbfft::nd::Box all = nbfft::nd::test::whole(shape);
  double n = 1;
  for (std::size_t i = 0; i < p.axes().size(); ++i)
    n *= nbfft::fft::logical_size(p.kinds()[i], shape[static_cast<std::size_t>(p.axes()[i])]);
  const double sf = norm == nbfft::fft::Norm::Forward ? 1 / n : norm == nbfft::fft::Norm::Ortho ? 1 / std::sqrt(n) : 1;
  double err = 0, scale = 1;
  nbfft::nd::test::for_each(nbfft::nd::test::whole(out_shape), [&](const Shape& g, std::int64_t at) {
    err = std::max(err, std::abs(got[static_cast<std::size_t>(at)] - sf * full[static_cast<std::size_t>(all.index(g))]));
    scale = std::max(scale, std::abs(full[static_cast<std::size_t>(all.index(g))]));
  });
  EXPECT_LT(err, tol * scale) << "forward against the naive transform";
}

template <typename T>
bool same_bits(const T* a, const T* b, std::size_t n) {
  return std::memcmp(a, b, n * sizeof(T)) == 0;
}

constexpr int kFields = 3;

// forward_many / backward_many of kFields fields (the second one misaligned by an element)
// against one-field calls, bit for bit; field 0 against the naive transform.
void check_many(const Case& c, const std::string& transport, int in_flight) {
  Plan p(MPI_COMM_WORLD, c.shape, c.axes, options(c, transport, in_flight));
  SCOPED_TRACE(p.describe() + " [" + transport + "]");
  EXPECT_EQ(p.fields_in_flight(), in_flight);
  with_types(p, [&](auto in_tag, auto out_tag) {
    using In = decltype(in_tag);
    using Out = decltype(out_tag);
    const int off[kFields] = {0, 1, 0};
    std::vector<std::vector<In>> u, back(kFields, std::vector<In>(p.in_count() + 1, In(7))), back1 = back;
    std::vector<std::vector<Out>> uh(kFields, std::vector<Out>(p.out_count() + 1, Out(5))), uh1 = uh;
    std::vector<const In*> pin;
    std::vector<Out*> pout;
    std::vector<const Out*> pspec;
    std::vector<In*> pback;
    for (int f = 0; f < kFields; ++f) {
      u.push_back(field_input<In>(p, f));
      pin.push_back(u[f].data() + off[f]);
      if (off[f]) std::copy(u[f].begin(), u[f].end() - 1, u[f].begin() + 1);  // the block moved up by one
      pout.push_back(uh[f].data() + off[f]);
      pspec.push_back(uh[f].data() + off[f]);
      pback.push_back(back[f].data() + off[f]);
      p.forward(pin[f], p.in_count(), uh1[f].data() + off[f], p.out_count());
    }
    p.forward_many(pin, p.in_count(), pout, p.out_count());
    for (int f = 0; f < kFields; ++f)
      EXPECT_TRUE(same_bits(uh[f].data() + off[f], uh1[f].data() + off[f], p.out_count())) << "forward field " << f;
    expect_reference(p, u[0], uh[0], c.single ? 2e-5 : 1e-12, c.norm);
    for (int f = 0; f < kFields; ++f) p.backward(pspec[f], p.out_count(), back1[f].data() + off[f], p.in_count());
    p.backward_many(pspec, p.out_count(), pback, p.in_count());
    for (int f = 0; f < kFields; ++f) {
      EXPECT_TRUE(same_bits(back[f].data() + off[f], back1[f].data() + off[f], p.in_count())) << "backward field " << f;
      double e = 0;  // and the way back (norm backward: the input)
      if (c.norm == nbfft::fft::Norm::Backward)
        for (std::size_t i = 0; i < p.in_count(); ++i) e = std::max(e, std::abs(widen(pback[f][i]) - widen(pin[f][i])));
      EXPECT_LT(e, c.single ? 2e-5 : 1e-12) << "round trip field " << f;
    }
  });
}

std::vector<Case> cases() {
  const int P = world_size();
  std::vector<Case> cs = {
      {{7, 6}, {0, 1}},                                        // 2-D r2c
      {{6, 3, 8}, {2, 0}, Kind::C2C, {P, 1, 1}},               // an exchange across axis 1
      {{7, 5, 6}, {0, 2}, Kind::R2C, {P, 1, 1}},               // a channel, y carried
      {{3, 5, 4, 6}, {1, 2, 3}},                               // 4-D over three, grid chosen
      {{6, 8}, {0, 1}, Kind::C2C, {1, P}},                     // the exchange first
      {{5, 3, 6}, {0, 2}, Kind::R2C, {P, 1, 1}, {}, true},     // single precision
      {{6, 5, 7}, {0, 2}, Kind::R2C, {P, 1, 1}, {AxisKind::Dst1, AxisKind::Dct3}},  // a real spectrum
  };
  Case n{{7, 6}, {0, 1}};
  n.norm = nbfft::fft::Norm::None;
  cs.push_back(n);
  n.norm = nbfft::fft::Norm::Ortho;
  n.kind = Kind::C2C;
  cs.push_back(n);
  if (P == 4) cs.push_back({{4, 6, 5, 3}, {0, 1, 2, 3}, Kind::C2C, {2, 2, 1, 1}});  // two exchanges
  return cs;
}

TEST(NdPipeline, ManyEqualsOneFieldAtATime) {
  for (const auto& c : cases())
    for (const char* t : kTransports)
      for (int f : {1, 2}) check_many(c, t, f);
  check_many({{5, 7, 4}, {0, 1, 2}, Kind::R2C, {}}, "pairwise:2@caller", 3);  // more in flight than needed
}

// With fields in flight on a caller engine each FFT step runs in chunks with progress passes
// between them (the thread engine and a blocking transport: whole); the chunked plan's
// results equal the whole plan's to rounding, and progress_chunks = 1 keeps steps whole.
TEST(NdPipeline, ChunkedStepsGiveProgress) {
  if (world_size() == 1) GTEST_SKIP() << "no exchange at one rank";
  const Case c{{7, 5, 6}, {0, 2}, Kind::R2C, {world_size(), 1, 1}};
  Plan chunked(MPI_COMM_WORLD, c.shape, c.axes, options(c, "pairwise:2@caller", 2));
  EXPECT_NE(chunked.describe().find("chunks with progress passes"), std::string::npos) << chunked.describe();
  for (const char* t : {"thread", "blocking"}) {
    Plan whole(MPI_COMM_WORLD, c.shape, c.axes, options(c, t, 2));
    EXPECT_EQ(whole.describe().find("chunks"), std::string::npos) << whole.describe();
  }
  auto o = options(c, "pairwise:2@caller", 2);
  o.progress_chunks = 1;
  Plan whole(MPI_COMM_WORLD, c.shape, c.axes, o);
  EXPECT_EQ(whole.describe().find("chunks"), std::string::npos) << whole.describe();
  std::vector<double> u = field_input<double>(chunked, 0);
  std::vector<std::complex<double>> a(chunked.out_count()), b(whole.out_count());
  std::vector<double> va(u.size()), vb(u.size());
  chunked.forward(u.data(), u.size(), a.data(), a.size());
  whole.forward(u.data(), u.size(), b.data(), b.size());
  double e = 0;
  for (std::size_t i = 0; i < a.size(); ++i) e = std::max(e, std::abs(a[i] - b[i]));
  EXPECT_LT(e, 1e-12);
  chunked.backward(a.data(), a.size(), va.data(), va.size());
  whole.backward(b.data(), b.size(), vb.data(), vb.size());
  e = 0;
  for (std::size_t i = 0; i < va.size(); ++i) e = std::max(e, std::abs(va[i] - vb[i]) + std::abs(va[i] - u[i]));
  EXPECT_LT(e, 1e-12);
  o.progress_chunks = -1;
  expect_error([&] { Plan bad(MPI_COMM_WORLD, c.shape, c.axes, o); }, nbfft::ErrorCode::InvalidArgument,
               "progress_chunks = -1 must be >= 0");
}

// A transposed spectrum (the two slowest transformed axes traded in memory): every case on
// a non-blocking transport and on the thread engine, two fields in flight.
TEST(NdPipeline, TransposedOutputOrder) {
  for (auto c : cases()) {
    c.order = nbfft::fft::OutputOrder::Transposed;
    for (const char* t : {"pairwise:2@caller", "thread"}) check_many(c, t, 2);
  }
}

// forward_start / backward_start against the plain calls: two in flight with a plain call
// between them, and a Pending completed by its destructor.
void check_split(const Case& c, const std::string& transport) {
  Plan p(MPI_COMM_WORLD, c.shape, c.axes, options(c, transport, 2));
  SCOPED_TRACE(p.describe() + " [" + transport + "]");
  with_types(p, [&](auto in_tag, auto out_tag) {
    using In = decltype(in_tag);
    using Out = decltype(out_tag);
    const auto u0 = field_input<In>(p, 0), u1 = field_input<In>(p, 1), u2 = field_input<In>(p, 2);
    std::vector<Out> want0(p.out_count()), want1(p.out_count()), want2(p.out_count());
    std::vector<Out> got0(p.out_count()), got1(p.out_count()), got2(p.out_count());
    p.forward(u0.data(), p.in_count(), want0.data(), want0.size());
    p.forward(u1.data(), p.in_count(), want1.data(), want1.size());
    p.forward(u2.data(), p.in_count(), want2.data(), want2.size());
    Plan::Pending a = p.forward_start(u0.data(), p.in_count(), got0.data(), got0.size());
    Plan::Pending b = p.forward_start(u1.data(), p.in_count(), got1.data(), got1.size());
    EXPECT_TRUE(a.active());
    for (int i = 0; i < 3; ++i) {
      a.progress();
      (void)b.test();
    }
    p.forward(u2.data(), p.in_count(), got2.data(), got2.size());  // on the plan's arrays meanwhile
    a.wait();
    b.wait();
    EXPECT_FALSE(a.active());
    EXPECT_TRUE(same_bits(got0.data(), want0.data(), got0.size()));
    EXPECT_TRUE(same_bits(got1.data(), want1.data(), got1.size()));
    EXPECT_TRUE(same_bits(got2.data(), want2.data(), got2.size()));
    expect_reference(p, u0, got0, c.single ? 2e-5 : 1e-12);
    // Backward, completed by the Pending's destructor.
    std::vector<In> back(p.in_count()), want(p.in_count());
    p.backward(want0.data(), want0.size(), want.data(), want.size());
    { Plan::Pending d = p.backward_start(want0.data(), want0.size(), back.data(), back.size()); }
    EXPECT_TRUE(same_bits(back.data(), want.data(), back.size()));
    EXPECT_THROW(a.wait(), nbfft::Error);  // waited for already
  });
}

TEST(NdPipeline, SplitPhase) {
  const int P = world_size();
  for (const char* t : kTransports) {
    check_split({{7, 6}, {0, 1}}, t);
    check_split({{6, 3, 8}, {2, 0}, Kind::C2C, {P, 1, 1}}, t);
    if (P == 4) check_split({{4, 6, 5, 3}, {0, 1, 2, 3}, Kind::C2C, {2, 2, 1, 1}}, t);
  }
  Case c{{6, 3, 8}, {0, 2}, Kind::R2C, {P, 1, 1}};  // a transposed spectrum
  c.order = nbfft::fft::OutputOrder::Transposed;
  check_split(c, "pairwise:2@caller");
  Case s{{5, 3, 6}, {0, 2}, Kind::R2C, {P, 1, 1}};
  s.single = true;
  check_split(s, "pairwise:2@caller");
}

// A batch axis: the plan against the naive transform of the whole array (the batch axis
// untransformed), each slice bit for bit equal to a one-field plan of the field's shape and
// grid, and forward_many of two batches; split phase on a batch.
void check_batch(const Case& c, const std::string& transport, int in_flight) {
  Plan p(MPI_COMM_WORLD, c.shape, c.axes, options(c, transport, in_flight));
  SCOPED_TRACE(p.describe() + " [" + transport + "]");
  const int b = *p.batch_axis();
  const std::int64_t B = c.shape[static_cast<std::size_t>(b)];
  EXPECT_EQ(p.batch(), B);
  EXPECT_EQ(p.grid()[static_cast<std::size_t>(b)], 1);
  EXPECT_EQ(p.in_box().lo[static_cast<std::size_t>(b)], 0);
  EXPECT_EQ(p.in_box().n[static_cast<std::size_t>(b)], B);
  EXPECT_EQ(p.out_box().n[static_cast<std::size_t>(b)], B);
  // The one-field plan: the batch axis taken out of shape, axes and grid.
  Case one = c;
  one.batch.reset();
  one.shape.erase(one.shape.begin() + b);
  for (int& a : one.axes) a = a > b ? a - 1 : a;
  one.grid = p.grid();
  one.grid.erase(one.grid.begin() + b);
  // A batch runs nd's own steps on each field; so does q (a 3-D field over all its axes
  // would otherwise run on the 3-D plan, whose results differ in the last bits).
  nbfft::nd::Options qo = options(one, transport, 1);
  qo.use_3d_plan = false;
  Plan q(MPI_COMM_WORLD, one.shape, one.axes, qo);
  EXPECT_FALSE(p.uses_3d_plan());
  with_types(p, [&](auto in_tag, auto out_tag) {
    using In = decltype(in_tag);
    using Out = decltype(out_tag);
    const auto u = field_input<In>(p, 0), v = field_input<In>(p, 1);
    std::vector<Out> uh(p.out_count()), vh(p.out_count()), uh2(p.out_count());
    p.forward(u.data(), p.in_count(), uh.data(), uh.size());
    expect_reference(p, u, uh, c.single ? 2e-5 : 1e-12);
    // Slice j of the batch through q.
    // Calls f(offset in the batch's block, offset in slice j's block) along the slice.
    const auto slice = [&](const nbfft::nd::Box& box, std::int64_t j, auto&& f) {
      std::int64_t at = 0;
      nbfft::nd::test::for_each(box, [&](const Shape& g, std::int64_t i) {
        if (g[static_cast<std::size_t>(b)] == j) f(static_cast<std::size_t>(i), static_cast<std::size_t>(at++));
      });
    };
    std::vector<In> fu(q.in_count());
    std::vector<Out> fh(q.out_count());
    std::vector<Out> assembled(p.out_count());
    for (std::int64_t j = 0; j < B; ++j) {
      slice(p.in_box(), j, [&](std::size_t i, std::size_t k) { fu[k] = u[i]; });
      q.forward(fu.data(), fu.size(), fh.data(), fh.size());
      slice(p.out_box(), j, [&](std::size_t i, std::size_t k) { assembled[i] = fh[k]; });
    }
    EXPECT_TRUE(same_bits(assembled.data(), uh.data(), uh.size())) << "the batch against one field at a time";
    // Two batches in one call; split phase.
    p.forward_many(std::vector<const In*>{u.data(), v.data()}, p.in_count(), std::vector<Out*>{uh2.data(), vh.data()},
                   p.out_count());
    EXPECT_TRUE(same_bits(uh2.data(), uh.data(), uh.size()));
    std::vector<Out> vh1(p.out_count());
    p.forward(v.data(), p.in_count(), vh1.data(), vh1.size());
    EXPECT_TRUE(same_bits(vh.data(), vh1.data(), vh.size()));
    std::vector<In> back(p.in_count()), back1(p.in_count());
    auto pend = p.backward_start(uh.data(), uh.size(), back.data(), back.size());
    pend.wait();
    p.backward(uh.data(), uh.size(), back1.data(), back1.size());
    EXPECT_TRUE(same_bits(back.data(), back1.data(), back.size()));
    double e = 0;
    for (std::size_t i = 0; i < back.size(); ++i) e = std::max(e, std::abs(widen(back[i]) - widen(u[i])));
    EXPECT_LT(e, c.single ? 2e-5 : 1e-12) << "round trip";
  });
}

TEST(NdPipeline, BatchAxis) {
  const int P = world_size();
  for (const char* t : kTransports) {
    Case c{{3, 7, 6}, {1, 2}};  // three 2-D fields, the batch slowest (each field contiguous)
    c.batch = 0;
    check_batch(c, t, 2);
    c = {{5, 3, 6}, {0, 2}, Kind::C2C};  // the batch in the middle: strided slices
    c.batch = 1;
    check_batch(c, t, 2);
  }
  Case c{{6, 8, 4}, {0, 1}, Kind::R2C, {P, 1, 1}};  // the batch fastest, an exchange
  c.batch = -1;
  check_batch(c, "pairwise:2@caller", 3);
  c = {{2, 4, 5, 6}, {1, 2, 3}};  // a batch of 3-D fields
  c.batch = 0;
  check_batch(c, "thread", 1);
  c = {{5, 4, 6, 3}, {0, 2, 3}, Kind::C2C, {P, 1, 1, 1}};  // a transposed spectrum round the batch
  c.batch = 1;
  c.order = nbfft::fft::OutputOrder::Transposed;
  check_batch(c, "pairwise:2@caller", 2);
  c = {{4, 5, 3, 6}, {0, 1, 3}, Kind::R2C};  // mixed kinds, single precision, batch axis 2
  c.kinds = {AxisKind::Dst2, AxisKind::Periodic, AxisKind::Periodic};
  c.single = true;
  c.batch = 2;
  check_batch(c, "blocking", 2);
}

TEST(NdPipeline, Errors) {
  using nbfft::ErrorCode;
  nbfft::nd::Options o;
  o.batch_axis = 1;
  expect_error([&] { Plan(MPI_COMM_WORLD, {4, 3, 5}, {0, 1}, o); }, ErrorCode::InvalidArgument,
               "axis 1 is the batch axis");
  o.batch_axis = 3;
  expect_error([&] { Plan(MPI_COMM_WORLD, {4, 3, 5}, {0, 2}, o); }, ErrorCode::InvalidArgument,
               "batch_axis 3 is out of range");
  o.batch_axis = 0;
  expect_error([&] { Plan(MPI_COMM_WORLD, {4}, {0}, o); }, ErrorCode::InvalidArgument, "at least 2 axes");
  if (world_size() > 1) {
    o.grid = {world_size(), 1, 1};
    expect_error([&] { Plan(MPI_COMM_WORLD, {4, 8, 5}, {1, 2}, o); }, ErrorCode::InvalidArgument,
                 "splits the batch axis 0");
  }
  nbfft::nd::Options f;
  f.fields_in_flight = 0;
  expect_error([&] { Plan(MPI_COMM_WORLD, {4, 5}, {0, 1}, f); }, ErrorCode::InvalidArgument, "fields_in_flight");
  Plan p(MPI_COMM_WORLD, {6, 8});
  std::vector<double> a(p.in_count()), b(p.in_count());
  std::vector<cplx> z(p.out_count()), y(p.out_count());
  expect_error([&] { p.forward_many(std::vector<const double*>{a.data(), b.data()}, a.size(), std::vector<cplx*>{z.data()}, z.size()); },
               ErrorCode::InvalidArgument, "2 input fields but 1 output fields");
  expect_error([&] { p.forward_many(std::vector<const double*>{a.data(), b.data()}, a.size(), std::vector<cplx*>{z.data(), z.data()}, z.size()); },
               ErrorCode::InvalidArgument, "write the same array");
  expect_error([&] { p.forward_many(std::vector<const double*>{a.data(), b.data()}, a.size(), std::vector<cplx*>{z.data(), y.data()}, world_rank() == 0 ? z.size() - 1 : z.size()); },
               ErrorCode::InvalidArgument, "output (field 0) array");
  expect_error([&] { p.forward_many(std::vector<const cplx*>{z.data()}, z.size(), std::vector<cplx*>{y.data()}, y.size()); },
               ErrorCode::InvalidArgument, "c2c arrays on a r2c plan");
  expect_error([&] { p.forward_many(std::vector<const cplx*>{z.data()}, z.size(), std::vector<double*>{a.data()}, a.size()); },
               ErrorCode::InvalidArgument, "complex input and a real spectrum");
  Plan::Pending none;
  EXPECT_FALSE(none.active());
  expect_error([&] { none.wait(); }, ErrorCode::InvalidState, "not active");
}

}  // namespace
