/* capi.threads: option threads=2 through the C API gives bitwise the bytes of threads=1
 * (docs/fft.md "Threads inside each rank"): forward and backward, r2c and c2c, both
 * precisions, the natural output order and two fields in flight, at any rank count; the
 * plan reports the threads it runs with. N-D plans from the same handle (docs/nd.md
 * "Threads inside each rank"): 2-D, 3-D over two axes and a 4-D batch, equal to one
 * thread's to rounding. MPI at the level the options ask for. */
#include <nbfft/nbfft.h>
#include <nbfft/nbfft_nd.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"

/* Values in [-1, 1) of the plan's real type, the same on every run of a case. */
static void fill(unsigned char* b, size_t bytes, int single, unsigned seed) {
  size_t k;
  for (k = 0; k < bytes / (single ? sizeof(float) : sizeof(double)); ++k) {
    double v;
    seed = seed * 1103515245u + 12345u;
    v = (double)(seed >> 8) / (double)(1u << 24) * 2.0 - 1.0;
    if (single) {
      float f = (float)v;
      memcpy(b + k * sizeof f, &f, sizeof f);
    } else {
      memcpy(b + k * sizeof v, &v, sizeof v);
    }
  }
}

/* Forward then backward of two fields (forward_many, backward_many) with `threads`, the
 * spectra and round trips written to spec and back (2 fields each). */
static void run(const char* const* kv, int threads, unsigned char* spec[2], unsigned char* back[2], size_t* out_bytes,
                size_t* in_bytes) {
  nbfft_options o = NULL;
  nbfft_plan p = NULL;
  const int64_t n[3] = {40, 36, 30};  /* planes enough that both lanes take some */
  char t[16], got[16];
  unsigned char* in[2];
  int single = 0, f;
  size_t inb = 0, outb = 0;
  CHECK(nbfft_options_create(&o) == NBFFT_SUCCESS, "options: %s", nbfft_last_error());
  /* The same FFTW algorithms for both thread counts (a measuring planner may pick others). */
  CHECK(nbfft_options_set(o, "effort", "estimate") == NBFFT_SUCCESS, "effort: %s", nbfft_last_error());
  for (; kv[0]; kv += 2) {
    CHECK(nbfft_options_set(o, kv[0], kv[1]) == NBFFT_SUCCESS, "%s=%s: %s", kv[0], kv[1], nbfft_last_error());
    if (strcmp(kv[0], "precision") == 0 && strcmp(kv[1], "single") == 0) single = 1;
  }
  sprintf(t, "%d", threads);
  CHECK(nbfft_options_set(o, "threads", t) == NBFFT_SUCCESS, "threads: %s", nbfft_last_error());
  CHECK(nbfft_plan_create(MPI_COMM_WORLD, n, o, &p) == NBFFT_SUCCESS, "plan: %s", nbfft_last_error());
  CHECK(nbfft_plan_option(p, "threads", got, sizeof got, NULL) == NBFFT_SUCCESS && strcmp(got, t) == 0,
        "the plan runs with threads=%s, asked %s", got, t);
  CHECK(nbfft_plan_bytes(p, &inb, &outb, NULL) == NBFFT_SUCCESS, "bytes");
  for (f = 0; f < 2; ++f) {
    in[f] = malloc(inb + 1);
    spec[f] = malloc(outb + 1);
    back[f] = malloc(inb + 1);
    fill(in[f], inb, single, 7u + (unsigned)f);
  }
  CHECK(nbfft_forward_many(p, 2, (const void* const*)in, inb, (void* const*)spec, outb) == NBFFT_SUCCESS, "forward: %s",
        nbfft_last_error());
  CHECK(nbfft_backward_many(p, 2, (const void* const*)spec, outb, (void* const*)back, inb) == NBFFT_SUCCESS,
        "backward: %s", nbfft_last_error());
  for (f = 0; f < 2; ++f) free(in[f]);
  nbfft_plan_destroy(&p);
  nbfft_options_destroy(&o);
  *out_bytes = outb;
  *in_bytes = inb;
}

/* An N-D plan of `shape` / `axes` with the handle's pairs kv and threads=`threads`: the
 * spectra of two fields (forward_many) into spec, their round trips into back. */
static void run_nd(int ndim, const int64_t* shape, int naxes, const int* axes, const char* const* kv, int threads,
                   double* spec[2], double* back[2], double* in[2], size_t* out_n, size_t* in_n) {
  nbfft_options o = NULL;
  nbfft_nd_plan p = NULL;
  char t[16], text[512];
  int64_t nin = 0, nout = 0;
  int in_complex = 0, out_complex = 0, rb = 0, f;
  size_t k;
  CHECK(nbfft_options_create(&o) == NBFFT_SUCCESS, "options: %s", nbfft_last_error());
  CHECK(nbfft_options_set(o, "effort", "estimate") == NBFFT_SUCCESS, "effort: %s", nbfft_last_error());
  for (; kv[0]; kv += 2)
    CHECK(nbfft_options_set(o, kv[0], kv[1]) == NBFFT_SUCCESS, "%s=%s: %s", kv[0], kv[1], nbfft_last_error());
  sprintf(t, "%d", threads);
  CHECK(nbfft_options_set(o, "threads", t) == NBFFT_SUCCESS, "threads: %s", nbfft_last_error());
  CHECK(nbfft_plan_create_nd(MPI_COMM_WORLD, ndim, shape, naxes, axes, o, &p) == NBFFT_SUCCESS, "nd plan: %s",
        nbfft_last_error());
  nbfft_options_destroy(&o);
  sprintf(t, "threads=%d", threads);
  CHECK(nbfft_nd_plan_options(p, text, sizeof text, NULL) == NBFFT_SUCCESS && strstr(text, t) != NULL,
        "the nd plan's options (%s) do not say %s", text, t);
  nbfft_nd_plan_counts(p, &nin, &nout);
  nbfft_nd_plan_element_types(p, &in_complex, &out_complex, &rb);
  *in_n = (size_t)nin * (in_complex ? 2 : 1);
  *out_n = (size_t)nout * (out_complex ? 2 : 1);
  for (f = 0; f < 2; ++f) {
    in[f] = malloc(sizeof(double) * *in_n + 1);
    spec[f] = malloc(sizeof(double) * *out_n + 1);
    back[f] = malloc(sizeof(double) * *in_n + 1);
    fill((unsigned char*)in[f], sizeof(double) * *in_n, 0, 11u + (unsigned)f);
    for (k = 0; k < *out_n; ++k) spec[f][k] = 0;
  }
  CHECK(nbfft_nd_forward_many(p, 2, (const void* const*)in, sizeof(double) * *in_n, (void* const*)spec,
                              sizeof(double) * *out_n) == NBFFT_SUCCESS, "nd forward: %s", nbfft_last_error());
  CHECK(nbfft_nd_backward_many(p, 2, (const void* const*)spec, sizeof(double) * *out_n, (void* const*)back,
                               sizeof(double) * *in_n) == NBFFT_SUCCESS, "nd backward: %s", nbfft_last_error());
  nbfft_nd_plan_destroy(&p);
}

/* The largest |a - b| over every rank, and the largest |b|. */
static double max_diff(const double* a, const double* b, size_t n, double* scale) {
  double d[2] = {0, 0};
  size_t k;
  for (k = 0; k < n; ++k) {
    if (fabs(a[k] - b[k]) > d[0]) d[0] = fabs(a[k] - b[k]);
    if (fabs(b[k]) > d[1]) d[1] = fabs(b[k]);
  }
  MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  *scale = d[1] > 1 ? d[1] : 1;
  return d[0];
}

static void nd_cases(void) {
  static const int64_t two[2] = {36, 40}, three[3] = {12, 7, 20}, four[4] = {3, 12, 10, 16};
  static const int ax2[2] = {0, 1}, ax02[2] = {0, 2}, ax123[3] = {1, 2, 3};
  static const char* const plain[] = {NULL};
  static const char* const c2c_transposed[] = {"transform", "c2c", "output_order", "transposed", NULL};
  static const char* const batch[] = {"batch_axis", "0", "transport", "pairwise@caller", "fields_in_flight", "2", NULL};
  struct {
    int ndim, naxes;
    const int64_t* shape;
    const int* axes;
    const char* const* kv;
  } cases[3];
  int c, f;
  cases[0].ndim = 2, cases[0].naxes = 2, cases[0].shape = two, cases[0].axes = ax2, cases[0].kv = plain;
  cases[1].ndim = 3, cases[1].naxes = 2, cases[1].shape = three, cases[1].axes = ax02, cases[1].kv = c2c_transposed;
  cases[2].ndim = 4, cases[2].naxes = 3, cases[2].shape = four, cases[2].axes = ax123, cases[2].kv = batch;
  for (c = 0; c < 3; ++c) {
    double *s1[2], *b1[2], *i1[2], *s2[2], *b2[2], *i2[2], scale = 1;
    size_t out_n = 0, in_n = 0;
    run_nd(cases[c].ndim, cases[c].shape, cases[c].naxes, cases[c].axes, cases[c].kv, 1, s1, b1, i1, &out_n, &in_n);
    run_nd(cases[c].ndim, cases[c].shape, cases[c].naxes, cases[c].axes, cases[c].kv, 2, s2, b2, i2, &out_n, &in_n);
    for (f = 0; f < 2; ++f) {
      const double ds = max_diff(s2[f], s1[f], out_n, &scale);
      CHECK(ds <= 1e-12 * scale, "nd case %d field %d: the 2-thread spectrum is %g off the 1-thread one", c, f, ds);
      const double db = max_diff(b2[f], i2[f], in_n, &scale);
      CHECK(db <= 1e-12 * scale, "nd case %d field %d: the 2-thread round trip is %g off the input", c, f, db);
      free(s1[f]), free(b1[f]), free(i1[f]), free(s2[f]), free(b2[f]), free(i2[f]);
    }
  }
}

int main(int argc, char** argv) {
  /* Each case: key, value, ..., NULL. */
  static const char* const cases[][9] = {
      {NULL},
      {"transform", "c2c", "precision", "single", NULL},
      {"output_order", "natural", NULL},
      {"transform", "c2c", "fields_in_flight", "2", "transport", "caller", NULL},
  };
  int provided = 0, level = 0, all = 0, c, f;
  nbfft_options o = NULL;
  nbfft_options_create(&o);
  nbfft_options_set(o, "threads", "2");
  nbfft_required_thread_level(o, &level);
  nbfft_options_destroy(&o);
  MPI_Init_thread(&argc, &argv, level, &provided);
  CHECK(provided >= MPI_THREAD_FUNNELED, "threads=2 needs MPI_THREAD_FUNNELED, got %d", provided);
  for (c = 0; c < (int)(sizeof cases / sizeof cases[0]); ++c) {
    unsigned char *s1[2], *b1[2], *s2[2], *b2[2];
    size_t outb = 0, inb = 0;
    run(cases[c], 1, s1, b1, &outb, &inb);
    run(cases[c], 2, s2, b2, &outb, &inb);
    for (f = 0; f < 2; ++f) {
      CHECK(memcmp(s1[f], s2[f], outb) == 0, "case %d field %d: the 2-thread spectrum differs from the 1-thread one", c,
            f);
      CHECK(memcmp(b1[f], b2[f], inb) == 0, "case %d field %d: the 2-thread round trip differs from the 1-thread one",
            c, f);
      free(s1[f]);
      free(b1[f]);
      free(s2[f]);
      free(b2[f]);
    }
  }
  nd_cases();
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
