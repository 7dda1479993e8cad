/* Whole arrays and wavenumbers of N-D plans through C (nbfft_nd_gather / _scatter /
 * _wavenumbers): the global input scattered from the last rank, transformed, the spectrum
 * gathered on every rank and compared with a serial DFT of the whole array, the input
 * gathered back on rank 0, the spectrum scattered back bit for bit, and each transformed
 * axis's wavenumbers against numpy's fftfreq / rfftfreq (and the sine/cosine kinds'); 2-D,
 * 3-D over two axes, 4-D over three with a transposed spectrum, 5-D with a batch axis, on
 * uneven shapes. Then the errors, each on every rank: one rank's wrong local size, a wrong
 * global size or a NULL global on the root only, a bad root, a scatter to every rank, a bad
 * layout, and wavenumbers of a wrong count, an untransformed axis, a bad length.
 * Buffers start as NaN, so a call that writes nothing fails. Exit 0 when every rank passed. */
#include "nd_reference.h"

#include <string.h>

/* numpy's integer wavenumber of global index g of n points (rfftfreq's when half). */
static double fftfreq(int64_t g, int64_t n, int half) { return (double)(half || g < (n + 1) / 2 ? g : g - n); }

static void run_case(const char* name, int nd, const int64_t* shape, int na, const int* axes, const char* options) {
  nbfft_nd_plan p = NULL;
  int64_t olo[MAXD], on[MAXD], oshape[MAXD], nin = 0, nout = 0, total, tout, i, bad;
  int cplx = 0, size = 1, me = 0, made = 0, made_axes[MAXD], order[MAXD], d, k, ra;
  const int root = 0;
  double *g0 = NULL, *u, *U, *U2, *Gs, *G, *gin, scale = 1;
  size_t ein, eout;
  char what[200];
  if (nbfft_nd_plan_create(MPI_COMM_WORLD, nd, shape, na, axes, options, &p) != NBFFT_SUCCESS) {
    snprintf(what, sizeof what, "%s: create", name);
    CHECK(what, 0);
    return;
  }
  nbfft_nd_plan_rank(p, &me, &size);
  CHECK("nbfft_nd_plan_rank", me == rank);
  nbfft_nd_plan_elements(p, &cplx);
  nbfft_nd_plan_axes(p, &d, &made, made_axes);
  nbfft_nd_plan_box(p, NBFFT_LAYOUT_OUTPUT, olo, on);
  nbfft_nd_plan_shape(p, NULL, oshape);
  nbfft_nd_plan_out_order(p, order);
  nbfft_nd_plan_counts(p, &nin, &nout);
  ein = cplx ? 2 : 1, eout = 2;
  total = product(nd, shape), tout = product(nd, oshape);
  G = reference_spectrum(nd, shape, made, made_axes, cplx);
  ra = cplx ? -1 : made_axes[made - 1];

  /* The global input (held by the last rank only), scattered: every rank's block is its part. */
  g0 = global_input(total, cplx);
  u = nans(nin * (int64_t)ein);
  snprintf(what, sizeof what, "%s: scatter from the last rank", name);
  CHECK(what, nbfft_nd_scatter(p, NBFFT_LAYOUT_INPUT, rank == size - 1 ? g0 : NULL,
                               rank == size - 1 ? (size_t)total * ein * 8 : 0, u, (size_t)nin * ein * 8,
                               size - 1) == NBFFT_SUCCESS);
  {
    int64_t ilo[MAXD], in_[MAXD], gi;
    nbfft_nd_plan_box(p, NBFFT_LAYOUT_INPUT, ilo, in_);
    for (i = 0, bad = 0; i < nin; ++i) {
      gi = global_index(nd, ilo, in_, shape, i);
      bad += mismatches(u + i * ein, g0 + gi * ein, (int64_t)ein, 0);
    }
    snprintf(what, sizeof what, "%s: the scattered block is this rank's part of the global input", name);
    CHECK(what, bad == 0);
  }

  /* Forward, then the whole spectrum on every rank against the serial DFT. */
  U = nans(nout * 2);
  CHECK(name, nbfft_nd_forward(p, u, (size_t)nin * ein * 8, U, (size_t)nout * eout * 8) == NBFFT_SUCCESS);
  Gs = nans(tout * 2);
  snprintf(what, sizeof what, "%s: gather the spectrum on every rank", name);
  CHECK(what, nbfft_nd_gather(p, NBFFT_LAYOUT_OUTPUT, U, (size_t)nout * 16, Gs, (size_t)tout * 16, NBFFT_EVERY_RANK) ==
                  NBFFT_SUCCESS);
  for (i = 0; i < total * 2; ++i) scale = fmax(scale, fabs(G[i]));
  bad = 0;
  for (i = 0; i < tout; ++i) {
    /* The same point in the untruncated DFT: the same indices, shape's extents. */
    int64_t r = i, idx[MAXD], flat = 0;
    for (d = nd - 1; d >= 0; --d) idx[d] = r % oshape[d], r /= oshape[d];
    for (d = 0; d < nd; ++d) flat = flat * shape[d] + idx[d];
    bad += !(fabs(Gs[2 * i] - G[2 * flat]) + fabs(Gs[2 * i + 1] - G[2 * flat + 1]) <= 1e-11 * scale);
  }
  snprintf(what, sizeof what, "%s: the gathered spectrum is the serial DFT", name);
  CHECK(what, bad == 0);

  /* The input back on rank 0 only (a NULL global elsewhere), bit for bit. */
  gin = rank == root ? nans(total * (int64_t)ein) : NULL;
  snprintf(what, sizeof what, "%s: gather the input on rank 0", name);
  CHECK(what, nbfft_nd_gather(p, NBFFT_LAYOUT_INPUT, u, (size_t)nin * ein * 8, gin,
                              rank == root ? (size_t)total * ein * 8 : 0, root) == NBFFT_SUCCESS);
  snprintf(what, sizeof what, "%s: the gathered input is the global input", name);
  if (rank == root) CHECK(what, mismatches(gin, g0, total * (int64_t)ein, 0) == 0);

  /* The gathered spectrum scattered back from rank 0: each rank's block as forward wrote it
   * (a transposed block too). */
  U2 = nans(nout * 2);
  snprintf(what, sizeof what, "%s: scatter the spectrum back", name);
  CHECK(what, nbfft_nd_scatter(p, NBFFT_LAYOUT_OUTPUT, Gs, (size_t)tout * 16, U2, (size_t)nout * 16, root) ==
                  NBFFT_SUCCESS);
  CHECK(what, mismatches(U2, U, nout * 2, 0) == 0);
  for (i = 0, bad = 0; i < nout * 2; ++i) bad += U[i] != 0;
  CHECK(what, bad > 0 || nout == 0); /* a spectrum, not zeros scattered back as zeros */

  /* Wavenumbers of every transformed axis (length 1.5 + a), none for the others. */
  for (d = 0; d < nd; ++d) {
    const double L = 1.5 + d, pi = 3.14159265358979323846;
    double* kw = nans(on[d]);
    int listed = 0;
    for (k = 0; k < made; ++k) listed |= made_axes[k] == d;
    snprintf(what, sizeof what, "%s: wavenumbers of axis %d", name, d);
    if (!listed) {
      CHECK(what, nbfft_nd_wavenumbers(p, d, L, kw, (size_t)on[d]) == NBFFT_INVALID_ARGUMENT &&
                      strstr(nbfft_last_error(), "not transformed"));
    } else {
      CHECK(what, nbfft_nd_wavenumbers(p, d - nd, L, kw, (size_t)on[d]) == NBFFT_SUCCESS);
      for (i = 0, bad = 0; i < on[d]; ++i)
        bad += !(fabs(kw[i] - 2 * pi / L * fftfreq(olo[d] + i, shape[d], d == ra)) <= 1e-12 * shape[d]);
      CHECK(what, bad == 0);
    }
    free(kw);
  }
  free(g0), free(u), free(U), free(U2), free(Gs), free(G), free(gin);
  nbfft_nd_plan_destroy(&p);
}

/* A real spectrum (every axis r2r): the gathered spectrum is the serial dst2 x dct2, and the
 * wavenumbers are pi/L times k+1 (dst2) and k (dct2). */
static void run_kinds(void) {
  const int64_t n[2] = {5, 7};
  int64_t lo[2], bn[2], nin = 0, nout = 0, i, bad = 0;
  nbfft_nd_plan p = NULL;
  double *full, *u, *U, *Gs, *k0, *k1;
  const double pi = 3.14159265358979323846;
  if (nbfft_nd_plan_create(MPI_COMM_WORLD, 2, n, 0, NULL, "kinds=dst2,dct2", &p) != NBFFT_SUCCESS) {
    CHECK("create kinds=dst2,dct2", 0);
    return;
  }
  full = global_input(35, 0);
  nbfft_nd_plan_counts(p, &nin, &nout);
  u = nans(nin), U = nans(nout), Gs = nans(35);
  CHECK("kinds: scatter from rank 0", nbfft_nd_scatter(p, NBFFT_LAYOUT_INPUT, rank == 0 ? full : NULL,
                                                      rank == 0 ? 35 * 8 : 0, u, (size_t)nin * 8, 0) == NBFFT_SUCCESS);
  CHECK("kinds forward", nbfft_nd_forward(p, u, (size_t)nin * 8, U, (size_t)nout * 8) == NBFFT_SUCCESS);
  CHECK("kinds: a complex-sized gather is refused",
        nbfft_nd_gather(p, NBFFT_LAYOUT_OUTPUT, U, (size_t)nout * 16, Gs, 35 * 8, NBFFT_EVERY_RANK) ==
                NBFFT_INVALID_ARGUMENT &&
            strstr(nbfft_last_error(), "8-byte elements"));
  CHECK("kinds gather", nbfft_nd_gather(p, NBFFT_LAYOUT_OUTPUT, U, (size_t)nout * 8, Gs, 35 * 8, NBFFT_EVERY_RANK) ==
                            NBFFT_SUCCESS);
  r2r_axis(full, 2, n, 0, 1);
  r2r_axis(full, 2, n, 1, 0);
  CHECK("kinds: the gathered spectrum is the serial dst2 x dct2", mismatches(Gs, full, 35, 1e-10) == 0);
  nbfft_nd_plan_box(p, NBFFT_LAYOUT_OUTPUT, lo, bn);
  k0 = nans(bn[0]), k1 = nans(bn[1]);
  CHECK("kinds wavenumbers", nbfft_nd_wavenumbers(p, 0, 2.0, k0, (size_t)bn[0]) == NBFFT_SUCCESS &&
                                 nbfft_nd_wavenumbers(p, 1, 3.0, k1, (size_t)bn[1]) == NBFFT_SUCCESS);
  for (i = 0; i < bn[0]; ++i) bad += !(fabs(k0[i] - pi / 2.0 * (double)(lo[0] + i + 1)) <= 1e-12);
  for (i = 0; i < bn[1]; ++i) bad += !(fabs(k1[i] - pi / 3.0 * (double)(lo[1] + i)) <= 1e-12);
  CHECK("kinds: dst2's wavenumbers are pi/L (k+1), dct2's pi/L k", bad == 0);
  free(full), free(u), free(U), free(Gs), free(k0), free(k1);
  nbfft_nd_plan_destroy(&p);
}

/* Each error on every rank, with a message naming it. */
static void errors(int size) {
  const int64_t n[3] = {5, 4, 6};
  const int axes[2] = {0, 2};
  int64_t nin = 0, nout = 0, lo[3], bn[3];
  nbfft_nd_plan p = NULL;
  double *u, *g, *k;
  const size_t gb = 5 * 4 * 6 * 8;
  if (nbfft_nd_plan_create(MPI_COMM_WORLD, 3, n, 2, axes, NULL, &p) != NBFFT_SUCCESS) {
    CHECK("errors: create", 0);
    return;
  }
  nbfft_nd_plan_counts(p, &nin, &nout);
  u = nans(nin + 1), g = nans(5 * 4 * 6);
#define FAILS(what, call, text) \
  CHECK(what, (call) == NBFFT_INVALID_ARGUMENT && strstr(nbfft_last_error(), text) != NULL)
  FAILS("one rank's short local fails every rank",
        nbfft_nd_gather(p, NBFFT_LAYOUT_INPUT, u, (size_t)nin * 8 - (rank == size - 1 ? 8 : 0), g, gb, 0),
        "nbfft_nd_gather: nd gather: local_bytes is");
  FAILS("a larger local is refused too",
        nbfft_nd_scatter(p, NBFFT_LAYOUT_INPUT, g, gb, u, (size_t)nin * 8 + 8, 0), "local_bytes is");
  FAILS("a wrong global size on the root only",
        nbfft_nd_gather(p, NBFFT_LAYOUT_INPUT, u, (size_t)nin * 8, g, rank == size - 1 ? gb - 8 : 0, size - 1),
        "global_bytes is");
  FAILS("a NULL global on the root",
        nbfft_nd_scatter(p, NBFFT_LAYOUT_INPUT, NULL, gb, u, (size_t)nin * 8, 0), "global is NULL");
  FAILS("a NULL global on any rank when gathering to every rank",
        nbfft_nd_gather(p, NBFFT_LAYOUT_INPUT, u, (size_t)nin * 8, rank == size - 1 ? NULL : g, gb, NBFFT_EVERY_RANK),
        "global is NULL");
  FAILS("a root out of range", nbfft_nd_gather(p, NBFFT_LAYOUT_INPUT, u, (size_t)nin * 8, g, gb, size), "root");
  /* Roots that differ between ranks, each valid on its own (every rank waited for messages
     another root never sent), or not: every rank fails, naming the root. */
  if (size > 1) {
    CHECK("ranks passing different roots (one out of range)",
          nbfft_nd_gather(p, NBFFT_LAYOUT_INPUT, u, (size_t)nin * 8, g, gb, rank == 0 ? -2 : 0) == NBFFT_RANKS_DISAGREE &&
              strstr(nbfft_last_error(), "ranks disagree on the root") != NULL);
    CHECK("a gather whose root differs between ranks",
          nbfft_nd_gather(p, NBFFT_LAYOUT_INPUT, u, (size_t)nin * 8, g, gb, rank == 0 ? 0 : 1) == NBFFT_RANKS_DISAGREE &&
              strstr(nbfft_last_error(), "rank 0 has '0', rank 1 has '1'") != NULL);
    CHECK("a scatter whose root differs between ranks",
          nbfft_nd_scatter(p, NBFFT_LAYOUT_INPUT, g, gb, u, (size_t)nin * 8, rank == size - 1 ? 0 : size - 1) ==
                  NBFFT_RANKS_DISAGREE &&
              strstr(nbfft_last_error(), "nbfft_nd_scatter: nd scatter: ranks disagree on the root") != NULL);
    CHECK("a gather whose layout differs between ranks",
          nbfft_nd_gather(p, rank == 0 ? NBFFT_LAYOUT_INPUT : NBFFT_LAYOUT_OUTPUT, u, (size_t)nin * 8, g, gb, 0) ==
                  NBFFT_RANKS_DISAGREE &&
              strstr(nbfft_last_error(), "ranks disagree on the layout") != NULL);
  }
  FAILS("a scatter to every rank",
        nbfft_nd_scatter(p, NBFFT_LAYOUT_INPUT, g, gb, u, (size_t)nin * 8, NBFFT_EVERY_RANK), "every rank");
  FAILS("a bad layout", nbfft_nd_gather(p, (nbfft_layout)7, u, (size_t)nin * 8, g, gb, 0), "layout 7");
  CHECK("a NULL plan", nbfft_nd_gather(NULL, NBFFT_LAYOUT_INPUT, u, 8, g, 8, 0) == NBFFT_INVALID_STATE);
  nbfft_nd_plan_box(p, NBFFT_LAYOUT_OUTPUT, lo, bn);
  k = nans(bn[2] + 1);
  FAILS("wavenumbers of a wrong count", nbfft_nd_wavenumbers(p, 2, 1.0, k, (size_t)bn[2] + 1), "count is");
  FAILS("wavenumbers of the untransformed axis", nbfft_nd_wavenumbers(p, 1, 1.0, k, (size_t)bn[1]), "not transformed");
  FAILS("wavenumbers of a zero length", nbfft_nd_wavenumbers(p, 0, 0.0, k, (size_t)bn[0]), "length");
  FAILS("wavenumbers of an axis out of range", nbfft_nd_wavenumbers(p, 3, 1.0, k, 1), "axis 3");
  if (bn[2] > 0) FAILS("wavenumbers into NULL", nbfft_nd_wavenumbers(p, 2, 1.0, NULL, (size_t)bn[2]), "k is NULL");
#undef FAILS
  free(u), free(g), free(k);
  nbfft_nd_plan_destroy(&p);
}

int main(int argc, char** argv) {
  const int size = begin_test(&argc, &argv);
  {
    const int64_t s2[2] = {7, 6}, s3[3] = {5, 4, 6}, s4[4] = {3, 5, 4, 6}, s5[5] = {2, 3, 4, 3, 5};
    const int a3[2] = {0, 2}, a4[3] = {1, 2, 3}, a5[2] = {1, 3}, a2[2] = {1, 0};
    run_case("2-D r2c", 2, s2, 0, NULL, NULL);
    run_case("2-D c2c, axes (1, 0)", 2, s2, 2, a2, "kind=c2c");
    run_case("3-D r2c over (0, 2), a channel", 3, s3, 2, a3, "transport=pairwise:2@caller");
    run_case("4-D c2c over (1, 2, 3), transposed", 4, s4, 3, a4, "kind=c2c output_order=transposed");
    run_case("4-D r2c over (1, 2, 3), transposed", 4, s4, 3, a4, "output_order=transposed");
    run_case("5-D r2c over (1, 3), batch axis 0", 5, s5, 2, a5, "batch_axis=0");
    run_kinds();
    errors(size);
  }
  return end_test("capi_nd_fields");
}
