/* capi.threads: option threads=2 through the C API gives bitwise the bytes of threads=1
 * (docs/fft.md "Threads inside each rank"): forward and backward, r2c and c2c, both
 * precisions, the natural output order and two fields in flight, at any rank count; the
 * plan reports the threads it runs with. MPI at the level the options ask for. */
#include <nbfft/nbfft.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond, ...)                       \
  do {                                         \
    if (!(cond)) {                             \
      fprintf(stderr, "line %d: ", __LINE__);  \
      fprintf(stderr, __VA_ARGS__);            \
      fprintf(stderr, "\n");                   \
      ++failures;                              \
    }                                          \
  } while (0)

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
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
