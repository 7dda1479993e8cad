/* Device plans from C (docs/gpu.md): the option text "device=emulated" runs the device plan's
 * path on host memory, so its results from C are checked here against the CPU plan's on any
 * machine (one field, nv fields and nv split-phase transforms in flight, forward and backward); "device=cuda" without a usable GPU
 * (or in a build without CUDA) fails on every rank with NBFFT_UNAVAILABLE naming why; with
 * a GPU, a host array handed to it fails naming the array. Collective, any rank count. */
#include <nbfft/nbfft.h>

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"

static nbfft_plan make(const char* text) {
  const int64_t n[3] = {12, 10, 9};
  nbfft_options o = NULL;
  nbfft_plan p = NULL;
  nbfft_options_create(&o);
  CHECK(nbfft_options_parse(o, text) == NBFFT_SUCCESS, "parse '%s': %s", text, nbfft_last_error());
  if (nbfft_plan_create(MPI_COMM_WORLD, n, o, &p) != NBFFT_SUCCESS) p = NULL;
  nbfft_options_destroy(&o);
  return p;
}

/* max |a - b| over every rank */
static double max_diff(const double* a, const double* b, size_t n) {
  double d = 0, all = 0;
  size_t k;
  for (k = 0; k < n; ++k) d = fmax(d, fabs(a[k] - b[k]));
  MPI_Allreduce(&d, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

int main(int argc, char** argv) {
  enum { NV = 3 };
  size_t in_b = 0, out_b = 0, k;
  int v, all = 0;
  double *u[NV], *back[NV], *ref_back;
  double complex *uh[NV], *ref;
  nbfft_plan host, dev, cuda;
  MPI_Init(&argc, &argv);
  host = make("precision=double transform=r2c output_order=natural");
  dev = make("precision=double transform=r2c output_order=natural device=emulated fields_in_flight=2 transport=caller");
  CHECK(host && dev, "plans: %s", nbfft_last_error());
  if (host && dev) {
    nbfft_plan_bytes(dev, &in_b, &out_b, NULL);
    ref = malloc(out_b);
    ref_back = malloc(in_b);
    for (v = 0; v < NV; ++v) {
      u[v] = malloc(in_b);
      back[v] = malloc(in_b);
      uh[v] = malloc(out_b);
      for (k = 0; k < in_b / sizeof(double); ++k) u[v][k] = sin(0.37 * (double)k + v) + 0.1 * v;
    }
    CHECK(nbfft_forward(dev, u[0], in_b, uh[0], out_b) == NBFFT_SUCCESS, "forward: %s", nbfft_last_error());
    CHECK(nbfft_forward(host, u[0], in_b, ref, out_b) == NBFFT_SUCCESS, "forward: %s", nbfft_last_error());
    CHECK(max_diff((double*)uh[0], (double*)ref, out_b / sizeof(double)) < 1e-12, "forward differs from the CPU plan");
    CHECK(nbfft_forward_many(dev, NV, (const void* const*)u, in_b, (void* const*)uh, out_b) == NBFFT_SUCCESS,
          "forward_many: %s", nbfft_last_error());
    CHECK(nbfft_backward_many(dev, NV, (const void* const*)uh, out_b, (void* const*)back, in_b) == NBFFT_SUCCESS,
          "backward_many: %s", nbfft_last_error());
    for (v = 0; v < NV; ++v) {
      CHECK(nbfft_forward(host, u[v], in_b, ref, out_b) == NBFFT_SUCCESS, "forward");
      CHECK(max_diff((double*)uh[v], (double*)ref, out_b / sizeof(double)) < 1e-12, "field %d: forward_many", v);
      CHECK(nbfft_backward(host, ref, out_b, ref_back, in_b) == NBFFT_SUCCESS, "backward");
      CHECK(max_diff(back[v], ref_back, in_b / sizeof(double)) < 1e-12, "field %d: backward_many", v);
      CHECK(max_diff(back[v], u[v], in_b / sizeof(double)) < 1e-12, "field %d: round trip", v);
    }
    /* Split phase: NV forward transforms in flight (the plan's pool), waited in start order,
     * then backward; the caller's work runs in between. */
    {
      nbfft_request r[NV];
      double busy = 0;
      for (v = 0; v < NV; ++v) {
        memset(uh[v], 0, out_b);
        CHECK(nbfft_forward_start(dev, u[v], in_b, uh[v], out_b, &r[v]) == NBFFT_SUCCESS, "forward_start: %s",
              nbfft_last_error());
      }
      for (k = 0; k < 100000; ++k) busy += 1e-9 * (double)k;
      CHECK(nbfft_progress(r[0]) == NBFFT_SUCCESS, "progress: %s", nbfft_last_error());
      for (v = 0; v < NV; ++v) CHECK(nbfft_wait(&r[v]) == NBFFT_SUCCESS, "wait: %s", nbfft_last_error());
      for (v = 0; v < NV; ++v) {
        memset(back[v], 0, in_b);
        CHECK(nbfft_backward_start(dev, uh[v], out_b, back[v], in_b, &r[v]) == NBFFT_SUCCESS, "backward_start: %s",
              nbfft_last_error());
      }
      for (v = 0; v < NV; ++v) CHECK(nbfft_wait(&r[v]) == NBFFT_SUCCESS, "wait: %s", nbfft_last_error());
      for (v = 0; v < NV; ++v) {
        CHECK(nbfft_forward(host, u[v], in_b, ref, out_b) == NBFFT_SUCCESS, "forward");
        CHECK(max_diff((double*)uh[v], (double*)ref, out_b / sizeof(double)) < 1e-12, "field %d: forward_start", v);
        CHECK(max_diff(back[v], u[v], in_b / sizeof(double)) < 1e-12, "field %d: backward_start round trip", v);
      }
      CHECK(busy > 0, "the caller's work ran");
    }
    for (v = 0; v < NV; ++v) {
      free(u[v]);
      free(back[v]);
      free(uh[v]);
    }
    free(ref);
    free(ref_back);
  }
  /* device=cuda: a plan where a GPU is seen, else NBFFT_UNAVAILABLE on every rank naming why. */
  cuda = make("device=cuda");
  if (!cuda) {
    const int unavailable = strstr(nbfft_last_error(), "GPU") != NULL || strstr(nbfft_last_error(), "CUDA") != NULL;
    CHECK(unavailable, "device=cuda without a GPU: '%s' names neither GPU nor CUDA", nbfft_last_error());
  } else {
    double x[4] = {0};
    nbfft_plan_bytes(cuda, &in_b, &out_b, NULL);
    /* a host array: refused on every rank (this rank's arrays are too small only if its box is not empty) */
    CHECK(nbfft_forward(cuda, x, in_b, x, out_b) != NBFFT_SUCCESS, "device=cuda took host arrays");
    nbfft_plan_destroy(&cuda);
  }
  nbfft_plan_destroy(&host);
  nbfft_plan_destroy(&dev);
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return all ? 1 : 0;
}
