/* N-D plans through the C API (nbfft_nd.h): 2-D, 3-D over two axes, 4-D over three, 5-D
 * over two, r2c and c2c, negative axes, a set grid and a non-blocking transport, each
 * forward against a serial DFT of the whole array (numpy's rfftn / fftn over the same axes)
 * and backward to the input; then the errors: a bad option key and value, an axis out of
 * range, one rank's wrong byte count, a stale handle, each on every rank. Every case runs
 * twice: options as key=value text (nbfft_nd_plan_create) and in an options handle
 * (nbfft_options_parse, nbfft_plan_create_nd: the one convention of every plan), with
 * bitwise the same spectrum; then the handle's own errors (a 3-D-only key on an N-D plan, an
 * N-D-only key on a 3-D plan, on one rank only).
 * Exit code 0 when every rank passed every check. */
#include "nd_reference.h"

#include <string.h>

/* 1: cases make their plans from an options handle; 0: from key=value text. */
static int via_handle = 0;
/* The spectrum of each case's first convention, compared bitwise by the second. */
static double* first_spectrum[32];
static int64_t first_count[32];
static int case_index = 0;

static nbfft_status create_plan(int nd, const int64_t* shape, int na, const int* axes, const char* options,
                                nbfft_nd_plan* p) {
  nbfft_options o = NULL;
  nbfft_status st;
  if (!via_handle) return nbfft_nd_plan_create(MPI_COMM_WORLD, nd, shape, na, axes, options, p);
  if (nbfft_options_create(&o) != NBFFT_SUCCESS) return NBFFT_OUT_OF_MEMORY;
  st = options ? nbfft_options_parse(o, options) : NBFFT_SUCCESS;
  if (st == NBFFT_SUCCESS) st = nbfft_plan_create_nd(MPI_COMM_WORLD, nd, shape, na, axes, o, p);
  nbfft_options_destroy(&o);
  return st;
}

static void run_case(const char* name, int nd, const int64_t* shape, int na, const int* axes, const char* options) {
  nbfft_nd_plan p = NULL;
  int64_t ilo[MAXD], in_[MAXD], olo[MAXD], on[MAXD], oshape[MAXD], nin = 0, nout = 0, total, i;
  int cplx = 0, k, ra, made = 0, made_axes[MAXD], order[MAXD];
  double *G, *u, *U, *v, err = 0, scale = 1, back = 0;
  char what[200];
  const int index = case_index++;
  nbfft_status st = create_plan(nd, shape, na, axes, options, &p);
  snprintf(what, sizeof what, "%s (%s): create", name, via_handle ? "options handle" : "text");
  CHECK(what, st == NBFFT_SUCCESS);
  if (st != NBFFT_SUCCESS) return;
  nbfft_nd_plan_elements(p, &cplx);
  nbfft_nd_plan_box(p, NBFFT_LAYOUT_INPUT, ilo, in_);
  nbfft_nd_plan_box(p, NBFFT_LAYOUT_OUTPUT, olo, on);
  nbfft_nd_plan_shape(p, NULL, oshape);
  nbfft_nd_plan_counts(p, &nin, &nout);
  snprintf(what, sizeof what, "%s: the spectrum's memory order", name);
  CHECK(what, nbfft_nd_plan_out_order(p, order) == NBFFT_SUCCESS);
  for (k = 0, made = 0; k < nd; ++k) made += order[k] != k;
  CHECK(what, made == (options && strstr(options, "output_order=") ? 2 : 0)); /* two axes traded, or none */
  made = 0;
  snprintf(what, sizeof what, "%s: counts are the boxes'", name);
  CHECK(what, nin == product(nd, in_) && nout == product(nd, on));
  /* The reference: the whole array, DFT along every listed axis, then (r2c) the first
   * n/2+1 points of the last listed axis. */
  total = product(nd, shape);
  /* The plan's axes: as given, made non-negative (every axis when none were given). */
  snprintf(what, sizeof what, "%s: axes", name);
  CHECK(what, nbfft_nd_plan_axes(p, &k, &made, made_axes) == NBFFT_SUCCESS && k == nd && (axes ? made == na : made == nd));
  G = reference_spectrum(nd, shape, made, made_axes, cplx);
  ra = made_axes[made - 1];
  snprintf(what, sizeof what, "%s: spectrum shape", name);
  CHECK(what, oshape[ra] == (cplx ? shape[ra] : shape[ra] / 2 + 1));
  u = calloc((size_t)nin * 2 + 2, sizeof(double));
  v = calloc((size_t)nin * 2 + 2, sizeof(double));
  U = calloc((size_t)nout * 2 + 2, sizeof(double));
  for (i = 0; i < nin; ++i) {
    const int64_t gi = global_index(nd, ilo, in_, shape, i);
    if (cplx)
      u[2 * i] = value(gi, 0), u[2 * i + 1] = value(gi, 1);
    else
      u[i] = value(gi, 0);
  }
  CHECK(name, nbfft_nd_forward(p, u, (size_t)nin * (cplx ? 16 : 8), U, (size_t)nout * 16) == NBFFT_SUCCESS);
  for (i = 0; i < total; ++i) scale = fmax(scale, fabs(G[2 * i]));
  for (i = 0; i < nout; ++i) {
    /* The spectrum point's global index in the full (untruncated) DFT array. */
    const int64_t gi = global_index_in(nd, olo, on, order, shape, i);
    err = fmax(err, fabs(U[2 * i] - G[2 * gi]) + fabs(U[2 * i + 1] - G[2 * gi + 1]));
  }
  snprintf(what, sizeof what, "%s: forward against the serial DFT", name);
  CHECK(what, err < 1e-12 * scale * 10);
  CHECK(name, nbfft_nd_backward(p, U, (size_t)nout * 16, v, (size_t)nin * (cplx ? 16 : 8)) == NBFFT_SUCCESS);
  for (i = 0; i < nin * (cplx ? 2 : 1); ++i) back = fmax(back, fabs(v[i] - u[i]));
  snprintf(what, sizeof what, "%s: backward gives the input back", name);
  CHECK(what, back < 1e-12);
  if (err >= 1e-11 * scale || back >= 1e-12) fprintf(stderr, "rank %d %s: err %g back %g\n", rank, name, err, back);
  /* The second convention gives the first one's spectrum bit for bit. */
  if (index < 32 && !via_handle) {
    first_spectrum[index] = U, first_count[index] = nout;
    U = NULL;
  } else if (index < 32) {
    snprintf(what, sizeof what, "%s: the options handle's plan gives the text's spectrum bit for bit", name);
    CHECK(what, first_spectrum[index] && first_count[index] == nout &&
                    memcmp(first_spectrum[index], U, (size_t)nout * 16) == 0);
    free(first_spectrum[index]);
    first_spectrum[index] = NULL;
  }
  free(G), free(u), free(v), free(U);
  CHECK(name, nbfft_nd_plan_destroy(&p) == NBFFT_SUCCESS && p == NULL);
}

/* The lean workspace through the options: nbfft_nd_plan_memory says it was made and how large
 * the in-place array must be; in place it gives the default plan's results bit for bit, and a
 * call out of place fails on every rank. */
static void run_lean(void) {
  const int64_t shape[2] = {8, 12};
  nbfft_nd_plan p = NULL, lean = NULL;
  int64_t nin = 0, nout = 0, i;
  size_t inplace = 0, work = 0, work_lean = 0, bytes;
  int is_lean = -1;
  double *u, *U, *v, *w;
  void* raw;
  CHECK("lean: create", nbfft_nd_plan_create(MPI_COMM_WORLD, 2, shape, 0, NULL, "output_order=transposed", &p) ==
                            NBFFT_SUCCESS &&
                            nbfft_nd_plan_create(MPI_COMM_WORLD, 2, shape, 0, NULL,
                                                 "output_order=transposed lean_workspace=true", &lean) == NBFFT_SUCCESS);
  if (!p || !lean) return;
  nbfft_nd_plan_counts(p, &nin, &nout);
  CHECK("lean: memory", nbfft_nd_plan_memory(p, NULL, &work, &is_lean) == NBFFT_SUCCESS && is_lean == 0 &&
                            nbfft_nd_plan_memory(lean, &inplace, &work_lean, &is_lean) == NBFFT_SUCCESS && is_lean == 1 &&
                            work_lean < work && inplace >= (size_t)nin * 8 && inplace >= (size_t)nout * 16);
  bytes = (inplace + 63) / 64 * 64;
  u = calloc((size_t)nin + 1, sizeof(double));
  v = calloc((size_t)nin + 1, sizeof(double));
  U = calloc((size_t)nout * 2 + 2, sizeof(double));
  raw = malloc(bytes + 64); /* w 64-byte aligned, as FFTW's SIMD needs */
  w = (double*)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
  for (i = 0; i < nin; ++i) u[i] = sin(0.1 * (double)(i + 100 * rank));
  nbfft_nd_forward(p, u, (size_t)nin * 8, U, (size_t)nout * 16);
  nbfft_nd_backward(p, U, (size_t)nout * 16, v, (size_t)nin * 8);
  memcpy(w, u, (size_t)nin * 8);
  CHECK("lean: forward in place", nbfft_nd_forward(lean, w, bytes, w, bytes) == NBFFT_SUCCESS &&
                                      memcmp(w, U, (size_t)nout * 16) == 0);
  CHECK("lean: backward in place", nbfft_nd_backward(lean, w, bytes, w, bytes) == NBFFT_SUCCESS &&
                                       memcmp(w, v, (size_t)nin * 8) == 0);
  /* Split phase and a list of one field, in place with the in-place size. */
  {
    nbfft_nd_pending t = NULL;
    void* lw[1];
    lw[0] = w;
    memcpy(w, u, (size_t)nin * 8);
    CHECK("lean: forward_start in place", nbfft_nd_forward_start(lean, w, bytes, w, bytes, &t) == NBFFT_SUCCESS &&
                                              nbfft_nd_wait(&t) == NBFFT_SUCCESS && memcmp(w, U, (size_t)nout * 16) == 0);
    CHECK("lean: backward_many in place", nbfft_nd_backward_many(lean, 1, (const void* const*)lw, bytes, lw, bytes) ==
                                              NBFFT_SUCCESS && memcmp(w, v, (size_t)nin * 8) == 0);
  }
  CHECK("lean: out of place fails on every rank",
        nbfft_nd_forward(lean, u, (size_t)nin * 8, U, (size_t)nout * 16) == NBFFT_INVALID_ARGUMENT &&
            strstr(nbfft_last_error(), "in place only") != NULL);
  free(u), free(v), free(U), free(raw);
  nbfft_nd_plan_destroy(&p);
  nbfft_nd_plan_destroy(&lean);
}

/* Sine/cosine kinds through the C API: a real spectrum (8-byte elements both ways), each
 * rank's box against the serial transform, and back. */
static void run_kinds(void) {
  const int64_t n[2] = {5, 7};
  int64_t lo[2], bn[2], nin = 0, nout = 0, i, g[2];
  nbfft_nd_plan p = NULL;
  double *full, *u, *U, *v, err = 0, back = 0;
  if (nbfft_nd_plan_create(MPI_COMM_WORLD, 2, n, 0, NULL, "kinds=dst2,dct2", &p) != NBFFT_SUCCESS) {
    CHECK("create kinds=dst2,dct2", 0);
    return;
  }
  full = global_input(35, 0);
  nbfft_nd_plan_counts(p, &nin, &nout);
  u = malloc((size_t)(nin + 1) * sizeof(double));
  U = malloc((size_t)(nout + 1) * sizeof(double));
  v = malloc((size_t)(nin + 1) * sizeof(double));
  nbfft_nd_plan_box(p, NBFFT_LAYOUT_INPUT, lo, bn);
  for (i = 0; i < nin; ++i) u[i] = full[(lo[0] + i / bn[1]) * 7 + lo[1] + i % bn[1]];
  CHECK("kinds: a complex-sized spectrum is refused",
        nbfft_nd_forward(p, u, (size_t)nin * 8, U, (size_t)nout * 16) == NBFFT_INVALID_ARGUMENT &&
            strstr(nbfft_last_error(), "(double)"));
  CHECK("kinds forward", nbfft_nd_forward(p, u, (size_t)nin * 8, U, (size_t)nout * 8) == NBFFT_SUCCESS);
  r2r_axis(full, 2, n, 0, 1);
  r2r_axis(full, 2, n, 1, 0);
  nbfft_nd_plan_box(p, NBFFT_LAYOUT_OUTPUT, lo, bn);
  for (i = 0; i < nout; ++i) {
    g[0] = lo[0] + i / bn[1], g[1] = lo[1] + i % bn[1];
    err = fmax(err, fabs(U[i] - full[g[0] * 7 + g[1]]));
  }
  CHECK("kinds forward against the serial dst2 x dct2", err < 1e-10);
  CHECK("kinds backward", nbfft_nd_backward(p, U, (size_t)nout * 8, v, (size_t)nin * 8) == NBFFT_SUCCESS);
  for (i = 0; i < nin; ++i) back = fmax(back, fabs(v[i] - u[i]));
  CHECK("kinds round trip", back < 1e-12);
  free(full), free(u), free(U), free(v);
  nbfft_nd_plan_destroy(&p);
}

/* Single precision through the C API: 4- and 8-byte elements, the same spectrum as the
 * double plan to single precision. */
static void run_single(void) {
  const int64_t n[3] = {5, 4, 6};
  const int axes[2] = {0, 2};
  int64_t nin = 0, nout = 0, i;
  nbfft_nd_plan pd = NULL, ps = NULL;
  double *ud, *Ud, err = 0, scale = 0;
  float *us, *Us, *vs;
  if (nbfft_nd_plan_create(MPI_COMM_WORLD, 3, n, 2, axes, NULL, &pd) != NBFFT_SUCCESS ||
      nbfft_nd_plan_create(MPI_COMM_WORLD, 3, n, 2, axes, "precision=single", &ps) != NBFFT_SUCCESS) {
    CHECK("create precision=single", 0);
    nbfft_nd_plan_destroy(&pd);
    return;
  }
  nbfft_nd_plan_counts(ps, &nin, &nout);
  ud = malloc((size_t)(nin + 1) * sizeof(double));
  Ud = malloc((size_t)(nout + 1) * 2 * sizeof(double));
  us = malloc((size_t)(nin + 1) * sizeof(float));
  vs = malloc((size_t)(nin + 1) * sizeof(float));
  Us = malloc((size_t)(nout + 1) * 2 * sizeof(float));
  for (i = 0; i < nin; ++i) ud[i] = value(i + 31 * rank, 0), us[i] = (float)ud[i];
  CHECK("single: double-sized input is refused",
        nbfft_nd_forward(ps, ud, (size_t)nin * 8, Us, (size_t)nout * 8) == NBFFT_INVALID_ARGUMENT &&
            strstr(nbfft_last_error(), "(float)"));
  CHECK("double forward", nbfft_nd_forward(pd, ud, (size_t)nin * 8, Ud, (size_t)nout * 16) == NBFFT_SUCCESS);
  CHECK("single forward", nbfft_nd_forward(ps, us, (size_t)nin * 4, Us, (size_t)nout * 8) == NBFFT_SUCCESS);
  for (i = 0; i < 2 * nout; ++i) err = fmax(err, fabs((double)Us[i] - Ud[i])), scale = fmax(scale, fabs(Ud[i]));
  CHECK("single spectrum against double", err <= 1e-5 * (scale > 1 ? scale : 1));
  CHECK("single backward", nbfft_nd_backward(ps, Us, (size_t)nout * 8, vs, (size_t)nin * 4) == NBFFT_SUCCESS);
  err = 0;
  for (i = 0; i < nin; ++i) err = fmax(err, fabs((double)vs[i] - (double)us[i]));
  CHECK("single round trip", err < 1e-5);
  free(ud), free(Ud), free(us), free(vs), free(Us);
  nbfft_nd_plan_destroy(&pd);
  nbfft_nd_plan_destroy(&ps);
}

/* User boxes: the input in slabs of the last axis, the spectrum in slabs of axis 1 (rank r
 * holds rows [r*n/P, (r+1)*n/P)), against a serial DFT of the whole array; then the errors. */
static void run_user_boxes(int size) {
  const int64_t shape[3] = {5, 6, 8}, oshape[3] = {5, 6, 5};
  const int axes[3] = {0, 1, 2};
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int64_t in_lo[3] = {0, 0, 0}, in_n[3] = {5, 6, 8}, out_lo[3] = {0, 0, 0}, out_n[3] = {5, 6, 5};
  in_lo[2] = 8 * rank / size;
  in_n[2] = 8 * (rank + 1) / size - in_lo[2];
  out_lo[1] = 6 * rank / size;
  out_n[1] = 6 * (rank + 1) / size - out_lo[1];
  nbfft_nd_plan p = NULL;
  CHECK("create_boxes", nbfft_nd_plan_create_boxes(MPI_COMM_WORLD, 3, shape, 3, axes, in_lo, in_n, out_lo, out_n,
                                                   "transport=pairwise:2@caller", &p) == NBFFT_SUCCESS);
  if (!p) return;
  int64_t lo[3], n[3], nin = 0, nout = 0;
  CHECK("boxes: the caller's input block", nbfft_nd_plan_box(p, NBFFT_LAYOUT_INPUT, lo, n) == NBFFT_SUCCESS &&
                                               lo[2] == in_lo[2] && n[2] == in_n[2] && n[0] == 5);
  CHECK("boxes: the caller's spectrum block", nbfft_nd_plan_box(p, NBFFT_LAYOUT_OUTPUT, lo, n) == NBFFT_SUCCESS &&
                                                  lo[1] == out_lo[1] && n[1] == out_n[1] && n[2] == 5);
  nbfft_nd_plan_counts(p, &nin, &nout);
  CHECK("boxes: counts", nin == in_n[0] * in_n[1] * in_n[2] && nout == out_n[0] * out_n[1] * out_n[2]);
  double* u = calloc((size_t)nin + 1, sizeof(double));
  double* v = calloc((size_t)nin + 1, sizeof(double));
  double* U = calloc((size_t)nout * 2 + 2, sizeof(double));
  for (int64_t k = 0; k < nin; ++k) {
    const int64_t x = in_lo[2] + k % in_n[2], y = (k / in_n[2]) % 6, z = k / (in_n[2] * 6);
    u[k] = sin(1.0 + z + 0.3 * y + 0.07 * x * x);
  }
  CHECK("boxes forward", nbfft_nd_forward(p, u, (size_t)nin * 8, U, (size_t)nout * 16) == NBFFT_SUCCESS);
  double err = 0;
  for (int64_t k = 0; k < nout; ++k) { /* the serial DFT at this point of the caller's spectrum block */
    const int64_t kx = k % 5, ky = out_lo[1] + (k / 5) % out_n[1], kz = k / (5 * out_n[1]);
    double re = 0, im = 0;
    for (int z = 0; z < 5; ++z)
      for (int y = 0; y < 6; ++y)
        for (int x = 0; x < 8; ++x) {
          const double f = sin(1.0 + z + 0.3 * y + 0.07 * x * x);
          const double t = -2 * 3.14159265358979323846 * ((double)(kz * z) / 5 + (double)(ky * y) / 6 + (double)(kx * x) / 8);
          re += f * cos(t);
          im += f * sin(t);
        }
    const double d = hypot(U[2 * k] - re, U[2 * k + 1] - im);
    if (d > err) err = d;
  }
  CHECK("boxes forward against the serial DFT", err < 1e-10);
  CHECK("boxes backward", nbfft_nd_backward(p, U, (size_t)nout * 16, v, (size_t)nin * 8) == NBFFT_SUCCESS);
  err = 0;
  for (int64_t k = 0; k < nin; ++k)
    if (fabs(v[k] - u[k]) > err) err = fabs(v[k] - u[k]);
  CHECK("boxes round trip", err < 1e-12);
  nbfft_nd_plan_destroy(&p);
  free(u);
  free(v);
  free(U);
  /* Errors, on every rank: a lo without n; every rank the whole array (overlap beyond one rank). */
  CHECK("boxes: in_lo without in_n", nbfft_nd_plan_create_boxes(MPI_COMM_WORLD, 3, shape, 3, axes, in_lo, NULL, NULL,
                                                                NULL, NULL, &p) == NBFFT_INVALID_ARGUMENT && p == NULL);
  if (size > 1) {
    const int64_t zero[3] = {0, 0, 0};
    CHECK("boxes: overlapping blocks", nbfft_nd_plan_create_boxes(MPI_COMM_WORLD, 3, shape, 3, axes, NULL, NULL, zero,
                                                                  oshape, NULL, &p) == NBFFT_INVALID_ARGUMENT &&
                                           strstr(nbfft_last_error(), "overlap"));
  }
}

/* One options handle for every plan: a key of the other kind of plan fails that plan's
 * creation on every rank, naming the key, even when only one rank's handle has it. */
static void run_handle_errors(int size) {
  const int64_t s2[2] = {6, 8}, n3[3] = {8, 6, 4};
  nbfft_options o = NULL;
  nbfft_nd_plan p = NULL;
  nbfft_plan q = NULL;
  char value[64];
  CHECK("handle: create", nbfft_options_create(&o) == NBFFT_SUCCESS);
  /* pipeline_row is the 3-D plan's: kept by the handle, refused by an N-D plan. */
  CHECK("handle: pipeline_row set", nbfft_options_set(o, "pipeline_row", "true") == NBFFT_SUCCESS);
  CHECK("handle: pipeline_row refused by an N-D plan",
        nbfft_plan_create_nd(MPI_COMM_WORLD, 2, s2, 0, NULL, o, &p) == NBFFT_INVALID_ARGUMENT && p == NULL &&
            strstr(nbfft_last_error(), "pipeline_row") && strstr(nbfft_last_error(), "3-D plan only"));
  CHECK("handle: pipeline_row taken by a 3-D plan", nbfft_plan_create(MPI_COMM_WORLD, n3, o, &q) == NBFFT_SUCCESS);
  nbfft_plan_destroy(&q);
  nbfft_options_destroy(&o);
  /* padding is every plan's: an N-D plan's input then lives on the padded grid. */
  nbfft_options_create(&o);
  CHECK("handle: padding set", nbfft_options_set(o, "padding", "1.5") == NBFFT_SUCCESS);
  CHECK("handle: padding taken by an N-D plan", nbfft_plan_create_nd(MPI_COMM_WORLD, 2, s2, 0, NULL, o, &p) == NBFFT_SUCCESS);
  {
    int64_t in_shape[2] = {0, 0}, out_shape[2] = {0, 0};
    nbfft_nd_plan_shape(p, in_shape, out_shape);
    CHECK("handle: a padded N-D plan's input grid", in_shape[0] == (int64_t)(1.5 * (double)s2[0]) &&
                                                        in_shape[1] == (int64_t)(1.5 * (double)s2[1]) &&
                                                        out_shape[0] == s2[0] && out_shape[1] == s2[1] / 2 + 1);
  }
  nbfft_nd_plan_destroy(&p);
  CHECK("handle: padding taken by a 3-D plan", nbfft_plan_create(MPI_COMM_WORLD, n3, o, &q) == NBFFT_SUCCESS);
  nbfft_plan_destroy(&q);
  nbfft_options_destroy(&o);
  /* batch_axis is N-D plans': read back as set, refused by the 3-D plan. */
  nbfft_options_create(&o);
  CHECK("handle: batch_axis set", nbfft_options_set(o, "batch_axis", "0") == NBFFT_SUCCESS &&
                                      nbfft_options_get(o, "batch_axis", value, sizeof value, NULL) == NBFFT_SUCCESS &&
                                      strcmp(value, "0") == 0);
  CHECK("handle: batch_axis refused by a 3-D plan",
        nbfft_plan_create(MPI_COMM_WORLD, n3, o, &q) == NBFFT_INVALID_ARGUMENT && q == NULL &&
            strstr(nbfft_last_error(), "batch_axis") && strstr(nbfft_last_error(), "N-D plans only"));
  nbfft_options_destroy(&o);
  /* kinds for two axes: an N-D plan's value, not the 3-D plan's (x,y,z). */
  nbfft_options_create(&o);
  CHECK("handle: kinds for two axes set", nbfft_options_set(o, "kinds", "dct2,dst2") == NBFFT_SUCCESS);
  CHECK("handle: kinds for two axes make a 2-D plan",
        nbfft_plan_create_nd(MPI_COMM_WORLD, 2, s2, 0, NULL, o, &p) == NBFFT_SUCCESS);
  nbfft_nd_plan_destroy(&p);
  CHECK("handle: kinds for two axes refused by a 3-D plan",
        nbfft_plan_create(MPI_COMM_WORLD, n3, o, &q) == NBFFT_INVALID_ARGUMENT && strstr(nbfft_last_error(), "kinds"));
  /* A value no plan takes fails at once and leaves the handle as it was. */
  CHECK("handle: a value no plan takes", nbfft_options_set(o, "kinds", "sideways") == NBFFT_INVALID_ARGUMENT &&
                                             strstr(nbfft_last_error(), "kinds"));
  CHECK("handle: parse is all or nothing",
        nbfft_options_parse(o, "transform=c2c norm=sideways") == NBFFT_INVALID_ARGUMENT &&
            nbfft_options_get(o, "transform", value, sizeof value, NULL) == NBFFT_SUCCESS && strcmp(value, "r2c") == 0);
  CHECK("handle: a pair without '='", nbfft_options_parse(o, "transform") == NBFFT_INVALID_ARGUMENT &&
                                          strstr(nbfft_last_error(), "key=value"));
  CHECK("handle: the scope of each key", nbfft_options_scope(0) && nbfft_options_scope(-1) == NULL);
  nbfft_options_destroy(&o);
  /* One rank's handle has a 3-D-only key: every rank fails, none hangs. */
  if (size > 1) {
    nbfft_options_create(&o);
    if (rank == size - 1) nbfft_options_set(o, "pipeline_row", "true");
    CHECK("handle: one rank's 3-D-only key fails every rank",
          nbfft_plan_create_nd(MPI_COMM_WORLD, 2, s2, 0, NULL, o, &p) == NBFFT_INVALID_ARGUMENT && p == NULL);
    nbfft_options_destroy(&o);
  }
  /* NULL: the defaults, as nbfft_plan_create takes NULL. */
  CHECK("handle: NULL options", nbfft_plan_create_nd(MPI_COMM_WORLD, 2, s2, 0, NULL, NULL, &p) == NBFFT_SUCCESS);
  nbfft_nd_plan_destroy(&p);
}

int main(int argc, char** argv) {
  const int size = begin_test(&argc, &argv);
  char grid[64], grid_made[64], buf[1024];
  size_t needed = 0;
  nbfft_nd_plan p = NULL, stale;
  int64_t nin = 0, nout = 0;
  double *u, *U;
  {
    const int64_t s2[2] = {7, 6}, s3[3] = {5, 4, 6}, s4[4] = {3, 5, 4, 6}, s5[5] = {2, 3, 4, 3, 5}, s3b[3] = {6, 1, 7};
    const int a3[2] = {0, 2}, a4[3] = {1, 2, 3}, a5[2] = {1, 3}, a3b[2] = {-1, 0}, a2[2] = {1, 0};
    for (via_handle = 0; via_handle < 2; ++via_handle) {
      case_index = 0;
      run_case("2-D r2c, every axis", 2, s2, 0, NULL, NULL);
      run_case("2-D c2c, axes (1, 0)", 2, s2, 2, a2, "kind=c2c norm=backward");
      run_case("3-D r2c over (0, 2)", 3, s3, 2, a3, "effort=estimate");
      run_case("3-D c2c over (0, 2), pairwise", 3, s3, 2, a3, "kind=c2c transport=pairwise:2@caller");
      run_case("3-D r2c over (-1, 0), y too short", 3, s3b, 2, a3b, "transport=caller");
      run_case("4-D r2c over (1, 2, 3)", 4, s4, 3, a4, "");
      run_case("4-D c2c over (1, 2, 3)", 4, s4, 3, a4, "kind=c2c");
      run_case("5-D r2c over (1, 3)", 5, s5, 2, a5, NULL);
      run_case("5-D c2c over (1, 3)", 5, s5, 2, a5, "kind=c2c\ttransport=blocking");
      snprintf(grid, sizeof grid, "grid=%dx1x1 kind=c2c", size);
      snprintf(grid_made, sizeof grid_made, "grid=%dx1x1", size);
      run_case("3-D c2c over (0, 2), grid Px1x1", 3, s3, 2, a3, grid);
      /* A batch axis through the options: every slice a field, whole on every rank. */
      run_case("4-D r2c over (1, 2, 3), batch axis 0", 4, s4, 3, a4, "batch_axis=0 transport=pairwise:2@caller");
      run_case("3-D c2c over (0, 2), batch axis 1", 3, s3, 2, a3, "kind=c2c batch_axis=-2 fields_in_flight=3 transport=caller");
      run_case("2-D r2c transposed", 2, s2, 0, NULL, "output_order=transposed");
      run_case("4-D c2c over (1, 2, 3) transposed", 4, s4, 3, a4, "kind=c2c output_order=Transposed transport=caller");
      run_case("5-D r2c over (1, 3) transposed, batch axis 0", 5, s5, 2, a5,
               "output_order=transposed batch_axis=0 transport=pairwise:2@caller");
      /* Tuned through the options: the plan made with the tuner's choice, verified as any other. */
    }
    via_handle = 0;
    run_handle_errors(size);
    run_case("3-D r2c over (0, 2), tuned", 3, s3, 2, a3, "tune=quick tune_budget=60 tune_fields=2");
    run_kinds();
    run_single();
    run_user_boxes(size);
    run_lean();

    /* Options as made: the grid as chosen. */
    if (nbfft_nd_plan_create(MPI_COMM_WORLD, 3, s3, 2, a3, grid, &p) == NBFFT_SUCCESS) {
      CHECK("options text", nbfft_nd_plan_options(p, buf, sizeof buf, &needed) == NBFFT_SUCCESS &&
                                strstr(buf, "transform=c2c") && strstr(buf, grid) == NULL && strstr(buf, grid_made) &&
                                needed == strlen(buf) + 1);
      CHECK("describe", nbfft_nd_plan_describe(p, buf, sizeof buf, NULL) == NBFFT_SUCCESS && strstr(buf, "axes (0, 2)"));
      nbfft_nd_plan_counts(p, &nin, &nout);
      u = calloc((size_t)nin * 2 + 2, sizeof(double));
      U = calloc((size_t)nout * 2 + 2, sizeof(double));
      /* One rank's wrong byte count fails every rank before anything moves. */
      CHECK("wrong in_bytes on rank 0 fails every rank",
            nbfft_nd_forward(p, u, (size_t)nin * 16 + (rank == 0 ? 8 : 0), U, (size_t)nout * 16) ==
                    NBFFT_INVALID_ARGUMENT &&
                strstr(nbfft_last_error(), "nbfft_nd_forward: in_bytes"));
      CHECK("a double array to a c2c plan",
            nbfft_nd_forward(p, u, (size_t)nin * 8, U, (size_t)nout * 16) == NBFFT_INVALID_ARGUMENT);
      free(u), free(U);
      stale = p;
      nbfft_nd_plan_destroy(&p);
      CHECK("a destroyed handle", nbfft_nd_plan_counts(stale, &nin, &nout) == NBFFT_INVALID_STATE);
    }
    CHECK("unknown key", nbfft_nd_plan_create(MPI_COMM_WORLD, 2, s2, 0, NULL, "knd=c2c", &p) == NBFFT_INVALID_ARGUMENT &&
                             strstr(nbfft_last_error(), "unknown key 'knd'") && p == NULL);
    CHECK("bad value", nbfft_nd_plan_create(MPI_COMM_WORLD, 2, s2, 0, NULL, "norm=sideways", &p) ==
                               NBFFT_INVALID_ARGUMENT &&
                           strstr(nbfft_last_error(), "norm='sideways'"));
    CHECK("not key=value",
          nbfft_nd_plan_create(MPI_COMM_WORLD, 2, s2, 0, NULL, "c2c", &p) == NBFFT_INVALID_ARGUMENT);
    CHECK("bad option on one rank fails every rank",
          nbfft_nd_plan_create(MPI_COMM_WORLD, 2, s2, 0, NULL, rank == size - 1 ? "grid=0x1" : NULL, &p) ==
              NBFFT_INVALID_ARGUMENT);
    CHECK("axis out of range", nbfft_nd_plan_create(MPI_COMM_WORLD, 3, s3, 2, a4 + 1, NULL, &p) ==
                                   NBFFT_INVALID_ARGUMENT);
    if (size > 1)
      CHECK("ranks disagree on the shape",
            nbfft_nd_plan_create(MPI_COMM_WORLD, rank == 0 ? 2 : 3, s3, 0, NULL, NULL, &p) != NBFFT_SUCCESS);
    CHECK("NULL plan", nbfft_nd_forward(NULL, NULL, 0, NULL, 0) == NBFFT_INVALID_STATE);
  }
  return end_test("capi_nd");
}
