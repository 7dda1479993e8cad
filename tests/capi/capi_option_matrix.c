/* capi.option_matrix: every row of the option table (nbfft_options_key) on every shape, from
 * C: the 3-D plan (nbfft_plan_create) and N-D plans (nbfft_plan_create_nd) over 3-D, 2-D,
 * 3-D over two axes and a 4-D batch, from one options handle. A row that applies is set to a
 * value other than its default, and the plan's forward, gathered, is the naive DFT (the r2r
 * axis by its definition, the norm applied) and its backward returns the input; a row that
 * does not apply is refused on every rank naming the key. Python's test_option_matrix.py is
 * the same matrix against numpy. MPI at MPI_THREAD_MULTIPLE (threads, the thread engine). */
#define _POSIX_C_SOURCE 200809L /* getpid, unlink */
#include <nbfft/nbfft.h>
#include <nbfft/nbfft_nd.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nd_reference.h"

typedef struct {
  const char* name;
  int nd;  /* 0: the 3-D plan */
  int ndim, naxes, batch;
  int64_t shape[4];
  int axes[4];
} Shape;

static const Shape kShapes[] = {
    {"3-D plan", 0, 3, 3, -1, {11, 10, 12, 0}, {0, 1, 2, 0}},
    {"N-D over 3-D", 1, 3, 3, -1, {11, 10, 12, 0}, {0, 1, 2, 0}},
    {"N-D 2-D", 1, 2, 2, -1, {16, 12, 0, 0}, {0, 1, 0, 0}},
    {"N-D 3-D over 0, 2", 1, 3, 2, -1, {8, 6, 10, 0}, {0, 2, 0, 0}},
    {"N-D 4-D batch", 1, 4, 3, 0, {3, 8, 6, 10}, {1, 2, 3, 0}},
};

static int P = 1;
static char wisdom[64];

/* The value a cell sets `key` to (not its default) into v; tune: the key needs tune=quick. */
static void value_for(const char* key, int i, const Shape* s, int naxes, char* v, size_t size, int* tune) {
  int a;
  *tune = strcmp(key, "tune_budget") == 0 || strcmp(key, "tune_fields") == 0 || strcmp(key, "tune_wisdom") == 0 ||
          strcmp(key, "tune_log") == 0;
  v[0] = '\0';
  if (strcmp(key, "kinds") == 0) {
    if (!s->nd) {
      snprintf(v, size, "periodic,periodic,dct2"); /* x, y, z: z (numpy axis 0) a DCT-II */
    } else {
      snprintf(v, size, "dct2");
      for (a = 1; a < naxes; ++a) strncat(v, ",periodic", size - strlen(v) - 1);
    }
  } else if (strcmp(key, "norm") == 0) {
    snprintf(v, size, "ortho");
  } else if (strcmp(key, "proc_grid") == 0) {
    const int on = s->batch == 0 ? 1 : 0;
    for (a = 0; a < s->ndim; ++a) {
      char part[16];
      snprintf(part, sizeof part, "%s%d", a ? "x" : "", a == on ? P : 1);
      strncat(v, part, size - strlen(v) - 1);
    }
  } else if (strcmp(key, "backend") == 0) {
    snprintf(v, size, "fftw");
  } else if (strcmp(key, "output_order") == 0) {
    snprintf(v, size, s->nd ? "transposed" : "natural");
  } else if (strcmp(key, "tune") == 0) {
    snprintf(v, size, "quick");
  } else if (strcmp(key, "tune_budget") == 0) {
    snprintf(v, size, "0.3");
  } else if (strcmp(key, "tune_wisdom") == 0) {
    snprintf(v, size, "%s", wisdom);
  } else if (strcmp(key, "allow_empty") == 0) {
    snprintf(v, size, "false");
  } else if (strcmp(key, "batch_axis") == 0) {
    snprintf(v, size, "%d", s->batch >= 0 ? s->batch : (s->naxes == s->ndim ? 0 : 1));
  } else if (strcmp(key, "padding") == 0 && s->nd) { /* one ratio per listed axis: 3/2, none, 2, ... */
    static const char* const ratios[3] = {"1.5", "1", "2"};
    for (a = 0; a < naxes; ++a) {
      strncat(v, a ? "," : "", size - strlen(v) - 1);
      strncat(v, ratios[a % 3], size - strlen(v) - 1);
    }
  } else {
    snprintf(v, size, "%s", nbfft_options_example(i));
  }
}

/* The element at flat index k of an array of `rb`-byte reals as a double. */
static double at(const unsigned char* p, int rb, int64_t k) {
  if (rb == 4) {
    float f;
    memcpy(&f, p + 4 * k, 4);
    return f;
  }
  {
    double d;
    memcpy(&d, p + 8 * k, 8);
    return d;
  }
}

static void put(unsigned char* p, int rb, int64_t k, double v) {
  if (rb == 4) {
    const float f = (float)v;
    memcpy(p + 4 * k, &f, 4);
  } else {
    memcpy(p + 8 * k, &v, 8);
  }
}

static void cell(const Shape* s, int row) {
  const char* key = nbfft_options_key(row);
  const char* scope = nbfft_options_scope(row);
  const int applies = strcmp(scope, "all") == 0 || strcmp(scope, s->nd ? "N-D" : "3-D") == 0;
  char value[128], what[256], text[64];
  int tune = 0, naxes = s->naxes, axes[4], a, status, in_c = 0, out_c = 0, rb = 8, lean = 0, batch = s->batch;
  int64_t in_shape[4], out_shape[4], nin = 0, nout = 0, k, total_in = 1, total_out = 1;
  size_t inb, outb, inplace = 0;
  nbfft_options o = NULL;
  nbfft_plan p3 = NULL;
  nbfft_nd_plan pn = NULL;
  unsigned char *G, *u, *U, *v, *GU;
  double *ref, norm = 1, scale, err = 0, back = 0, ratio[4] = {1, 1, 1, 1}, fscale = 1;
  int64_t spec_shape[4], ref_shape[4];
  const int padded = strcmp(key, "padding") == 0;
  int kinds_dct = -1; /* the numpy axis of the DCT-II */
  memcpy(axes, s->axes, sizeof axes);
  value_for(key, row, s, naxes, value, sizeof value, &tune);
  snprintf(what, sizeof what, "%s: %s=%s", s->name, key, value);
  nbfft_options_create(&o);
  nbfft_options_set(o, "effort", "estimate");
  if (tune) nbfft_options_parse(o, "tune=quick tune_budget=0.3");
  if (s->nd && batch >= 0) {
    snprintf(text, sizeof text, "%d", batch);
    nbfft_options_set(o, "batch_axis", text);
  }
  CHECK(what, nbfft_options_set(o, key, value) == NBFFT_SUCCESS);
  if (padded) { /* each numpy axis's ratio: an N-D plan's per listed axis, the 3-D plan's x, y, z */
    double r[3] = {1, 1, 1};
    if (sscanf(value, "%lf,%lf,%lf", &r[0], &r[1], &r[2]) < 1) r[0] = 1;
    for (a = 0; a < (s->nd ? naxes : 3); ++a) ratio[s->nd ? axes[a] : 2 - a] = r[a];
  }
  if (s->nd && strcmp(key, "batch_axis") == 0 && batch < 0) { /* a shape without one: its axis leaves the axes */
    int b = atoi(value), m = 0;
    for (a = 0; a < s->naxes; ++a)
      if (s->axes[a] != b) axes[m++] = s->axes[a];
    naxes = m;
    batch = b;
  }
  status = s->nd ? nbfft_plan_create_nd(MPI_COMM_WORLD, s->ndim, s->shape, naxes, axes, o, &pn)
                 : nbfft_plan_create(MPI_COMM_WORLD, (int64_t[3]){s->shape[2], s->shape[1], s->shape[0]}, o, &p3);
  nbfft_options_destroy(&o);
  if (!applies) {
    CHECK(what, status == NBFFT_INVALID_ARGUMENT && strstr(nbfft_last_error(), key) != NULL);
    return;
  }
  if (s->nd && naxes == 1 && P > 1) { /* a batch of 1-D r2c fields: no axis can take the ranks */
    CHECK(what, status == NBFFT_INVALID_ARGUMENT && strstr(nbfft_last_error(), "r2c axis") != NULL);
    return;
  }
  CHECK(what, status == NBFFT_SUCCESS);
  if (status != NBFFT_SUCCESS) return;
  /* The element types and sizes, the global shapes (numpy order). */
  if (s->nd) {
    nbfft_nd_plan_element_types(pn, &in_c, &out_c, &rb);
    nbfft_nd_plan_counts(pn, &nin, &nout);
    nbfft_nd_plan_shape(pn, in_shape, out_shape);
    nbfft_nd_plan_memory(pn, &inplace, NULL, &lean);
    for (a = 0; a < s->ndim; ++a) spec_shape[a] = s->shape[a];
  } else {
    int64_t n[3];
    nbfft_plan_elements(p3, &in_c, &out_c, &rb);
    nbfft_plan_counts(p3, &nin, &nout);
    nbfft_plan_bytes(p3, &inb, &outb, &inplace);
    nbfft_plan_grid(p3, n, NULL, NULL);
    spec_shape[0] = n[2], spec_shape[1] = n[1], spec_shape[2] = n[0];
    for (a = 0; a < 3; ++a) in_shape[a] = (int64_t)floor((double)spec_shape[a] * ratio[a]); /* the physical grid */
    /* x is the r2c axis of real input: its kind is periodic in every cell */
    out_shape[0] = n[2], out_shape[1] = n[1], out_shape[2] = in_c ? n[0] : n[0] / 2 + 1;
    lean = strcmp(key, "lean_workspace") == 0;
  }
  for (a = 0; a < s->ndim; ++a) total_in *= in_shape[a], total_out *= out_shape[a];
  inb = (size_t)nin * (size_t)rb * (in_c ? 2u : 1u);
  outb = (size_t)nout * (size_t)rb * (out_c ? 2u : 1u);
  if (inplace < inb) inplace = inb;
  if (inplace < outb) inplace = outb;
  /* The input: the reference's values (global_input), as the plan's precision holds them. */
  {
    double* g = global_input(total_in, in_c);
    G = malloc((size_t)total_in * (size_t)rb * (in_c ? 2u : 1u) + 1);
    for (k = 0; k < total_in * (in_c ? 2 : 1); ++k) put(G, rb, k, g[k]);
    free(g);
  }
  u = malloc(inplace + 1);
  U = malloc(inplace + 1);
  v = malloc(inplace + 1);
  GU = malloc((size_t)total_out * (size_t)rb * 2u + 1);
  status = s->nd ? nbfft_nd_scatter(pn, NBFFT_LAYOUT_INPUT, G, (size_t)total_in * (size_t)rb * (in_c ? 2u : 1u), u,
                                    inb, 0)
                 : nbfft_scatter(p3, NBFFT_LAYOUT_INPUT, G, (size_t)total_in * (size_t)rb * (in_c ? 2u : 1u), u, inb, 0);
  CHECK(what, status == NBFFT_SUCCESS);
  memcpy(U, u, inb);
  if (lean) { /* in place: the only way a lean plan runs */
    status = s->nd ? nbfft_nd_forward(pn, U, inplace, U, inplace) : nbfft_forward(p3, U, inplace, U, inplace);
  } else {
    status = s->nd ? nbfft_nd_forward(pn, u, inb, U, outb) : nbfft_forward(p3, u, inb, U, outb);
  }
  CHECK(what, status == NBFFT_SUCCESS);
  status = s->nd ? nbfft_nd_gather(pn, NBFFT_LAYOUT_OUTPUT, U, outb, GU, (size_t)total_out * (size_t)rb * 2u,
                                   NBFFT_EVERY_RANK)
                 : nbfft_gather(p3, NBFFT_LAYOUT_OUTPUT, U, outb, GU, (size_t)total_out * (size_t)rb * 2u, 0);
  CHECK(what, status == NBFFT_SUCCESS);
  if (!s->nd) MPI_Bcast(GU, (int)(total_out * rb * 2), MPI_BYTE, 0, MPI_COMM_WORLD);
  /* The reference: the DCT-II axis first (on the real input), then the DFT of the others. */
  if (strcmp(key, "kinds") == 0) kinds_dct = axes[0];
  {
    double* g = global_input(total_in, in_c);
    if (kinds_dct >= 0) r2r_axis(g, s->ndim, in_shape, kinds_dct, 0);
    ref = calloc((size_t)total_in * 2, sizeof(double));
    for (k = 0; k < total_in; ++k) ref[2 * k] = in_c ? g[2 * k] : g[k], ref[2 * k + 1] = in_c ? g[2 * k + 1] : 0;
    free(g);
    for (a = 0; a < naxes; ++a)
      if (axes[a] != kinds_dct) {
        dft_axis(ref, s->ndim, in_shape, axes[a]);
        norm *= (double)in_shape[axes[a]];
      }
    if (kinds_dct >= 0) norm *= 2.0 * (double)in_shape[kinds_dct];
  }
  /* Padded: the spectrum truncated to the given grid's modes, scaled by N/M. */
  memcpy(ref_shape, in_shape, sizeof ref_shape);
  for (a = 0; padded && a < naxes; ++a)
    if (ref_shape[axes[a]] != spec_shape[axes[a]]) {
      double* t = truncate_axis(ref, s->ndim, ref_shape, axes[a], spec_shape[axes[a]]);
      fscale *= (double)spec_shape[axes[a]] / (double)in_shape[axes[a]];
      free(ref);
      ref = t;
    }
  scale = strcmp(key, "norm") == 0 ? 1 / sqrt(norm) : fscale;
  {
    double most = 0;
    for (k = 0; k < total_out; ++k) { /* the spectrum's point k in the whole (untruncated) array */
      int64_t idx[4], r = k, flat = 0;
      for (a = s->ndim - 1; a >= 0; --a) idx[a] = r % out_shape[a], r /= out_shape[a];
      for (a = 0; a < s->ndim; ++a) flat = flat * ref_shape[a] + idx[a];
      {
        const double dr = at(GU, rb, 2 * k) - scale * ref[2 * flat], di = at(GU, rb, 2 * k + 1) - scale * ref[2 * flat + 1];
        if (sqrt(dr * dr + di * di) > err) err = sqrt(dr * dr + di * di);
        if (fabs(scale * ref[2 * flat]) > most) most = fabs(scale * ref[2 * flat]);
        if (fabs(scale * ref[2 * flat + 1]) > most) most = fabs(scale * ref[2 * flat + 1]);
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    snprintf(text, sizeof text, " (forward off by %.3g)", err / (most > 1 ? most : 1));
    strncat(what, text, sizeof what - strlen(what) - 1);
    CHECK(what, err <= (rb == 4 ? 2e-4 : 1e-10) * (most > 1 ? most : 1));
  }
  /* Backward: the input again (padded: the spectrum kept in u, which is free now). */
  if (padded) memcpy(u, U, outb);
  if (lean) {
    status = s->nd ? nbfft_nd_backward(pn, U, inplace, U, inplace) : nbfft_backward(p3, U, inplace, U, inplace);
    memcpy(v, U, inb);
  } else {
    status = s->nd ? nbfft_nd_backward(pn, U, outb, v, inb) : nbfft_backward(p3, U, outb, v, inb);
  }
  CHECK(what, status == NBFFT_SUCCESS);
  if (padded) { /* backward pads and forward truncates: forward(backward(U)) is U */
    unsigned char* again = malloc(inplace + 1);
    status = s->nd ? nbfft_nd_forward(pn, v, inb, again, outb) : nbfft_forward(p3, v, inb, again, outb);
    CHECK(what, status == NBFFT_SUCCESS);
    for (k = 0; k < nout * 2; ++k)
      if (fabs(at(again, rb, k) - at(u, rb, k)) > back) back = fabs(at(again, rb, k) - at(u, rb, k));
    free(again);
  } else {
    for (k = 0; k < nin * (in_c ? 2 : 1); ++k)
      if (fabs(at(v, rb, k) - at(u, rb, k)) > back) back = fabs(at(v, rb, k) - at(u, rb, k));
  }
  MPI_Allreduce(MPI_IN_PLACE, &back, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  CHECK(what, back <= (rb == 4 ? 1e-4 : 1e-10) * 2); /* the input's values lie in [-1.25, 1.25] */
  free(G), free(u), free(U), free(v), free(GU), free(ref);
  if (s->nd) nbfft_nd_plan_destroy(&pn);
  else nbfft_plan_destroy(&p3);
}

int main(int argc, char** argv) {
  int provided, row, c, cells = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  snprintf(wisdom, sizeof wisdom, "/tmp/nbfft-capi-matrix-%d.txt", (int)getpid());
  MPI_Bcast(wisdom, sizeof wisdom, MPI_CHAR, 0, MPI_COMM_WORLD);
  for (c = 0; c < (int)(sizeof kShapes / sizeof kShapes[0]); ++c)
    for (row = 0; nbfft_options_key(row); ++row) {
      cell(&kShapes[c], row);
      ++cells;
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) unlink(wisdom);
    }
  if (rank == 0) printf("capi_option_matrix: %d cells\n", cells);
  return end_test("capi_option_matrix");
}
