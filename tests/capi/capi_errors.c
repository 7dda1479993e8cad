/* The C API's statuses, each provoked at least once through the C API itself, plus a
 * forward/backward/batch/gather round trip. Collective failures must give the same status
 * on every rank, including when only one rank is wrong or ranks disagree. NBFFT_INTERNAL
 * (a bug) cannot be provoked from C; tests/capi/field_test.cpp covers its mapping.
 * Exit code: 0 when every rank saw every expected status. */
#include <nbfft/nbfft.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank = -1, size = 0, failures = 0;
static int seen[9];

#define EXPECT(call, want)                                                                                  \
  do {                                                                                                      \
    nbfft_status st_ = (call);                                                                              \
    if (st_ != (want)) {                                                                                    \
      fprintf(stderr, "rank %d: line %d: %s gave %d (%s), expected %d: %s\n", rank, __LINE__, #call, (int)st_, \
              nbfft_status_string(st_), (int)(want), nbfft_last_error());                                   \
      ++failures;                                                                                           \
    } else if (st_ >= 0 && st_ <= 8) {                                                                      \
      seen[st_] = 1;                                                                                        \
    }                                                                                                       \
  } while (0)

int main(int argc, char** argv) {
  int64_t n[3] = {8, 6, 5}, bad_n[3] = {8, 6, 5}, lo[3], cnt[3];
  int order[3], provided = 0, level = -1, found = -1, i, total;
  nbfft_plan plan = NULL, none = NULL;
  nbfft_options opts = NULL, thread_opts = NULL;
  size_t in_b, out_b, inplace_b, k;
  double *u, *v, *batch_in, *batch_out, *single, *global = NULL;
  char line[512];

  /* Before MPI_Init: no plan can be made. */
  EXPECT(nbfft_plan_create(MPI_COMM_WORLD, n, NULL, &plan), NBFFT_INVALID_STATE);
  /* Options: the CLI's words, and clear errors for anything else. */
  EXPECT(nbfft_options_create(&opts), NBFFT_SUCCESS);
  EXPECT(nbfft_options_set(opts, "effort", "estimate"), NBFFT_SUCCESS);
  EXPECT(nbfft_options_set(opts, "precision", "quad"), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_options_set(opts, "no_such_key", "1"), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_options_set(opts, "proc_grid", "2y2"), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_options_set(opts, "transport", "nosuch@thread"), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_options_set(opts, "progress_chunks", "-1"), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_options_set(opts, "allow_empty", "maybe"), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_options_set(opts, "norm", "ortho"), NBFFT_SUCCESS);
  EXPECT(nbfft_options_set(opts, "col_chunk_planes", "0"), NBFFT_SUCCESS);
  EXPECT(nbfft_options_set(NULL, "norm", "none"), NBFFT_INVALID_STATE);
  EXPECT(nbfft_options_string(opts, line, sizeof line, NULL), NBFFT_SUCCESS);
  if (!strstr(line, "norm=ortho")) fprintf(stderr, "options string lacks norm=ortho: %s\n", line), ++failures;
  EXPECT(nbfft_options_create(&thread_opts), NBFFT_SUCCESS);
  EXPECT(nbfft_options_set(thread_opts, "transport", "pairwise:2@thread"), NBFFT_SUCCESS);
  EXPECT(nbfft_required_thread_level(thread_opts, &level), NBFFT_SUCCESS);
  if (level != MPI_THREAD_MULTIPLE) fprintf(stderr, "thread transport: level %d\n", level), ++failures;
  EXPECT(nbfft_required_thread_level(opts, &level), NBFFT_SUCCESS);
  if (level != MPI_THREAD_SINGLE) fprintf(stderr, "default transport: level %d\n", level), ++failures;

  /* Less than MPI_THREAD_MULTIPLE, so the thread engine is unavailable. */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  if (size > 1 && provided < MPI_THREAD_MULTIPLE) /* one rank has no exchange to run */
    EXPECT(nbfft_plan_create(MPI_COMM_WORLD, n, thread_opts, &plan), NBFFT_UNAVAILABLE);
  if (size > 1) { /* rank 1 asks for another grid: every rank hears of it */
    bad_n[2] = rank == 1 ? 7 : 5;
    EXPECT(nbfft_plan_create(MPI_COMM_WORLD, bad_n, opts, &plan), NBFFT_RANKS_DISAGREE);
  }
  EXPECT(nbfft_plan_create(MPI_COMM_WORLD, n, opts, NULL), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_plan_create(MPI_COMM_NULL, n, opts, &plan), NBFFT_INVALID_ARGUMENT);
  /* A Fortran handle that names no communicator: MPI's conversion / validation fails. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  EXPECT(nbfft_plan_create_f((MPI_Fint)12345, n, opts, &plan), NBFFT_MPI_ERROR);

  EXPECT(nbfft_plan_create_f(MPI_Comm_c2f(MPI_COMM_WORLD), n, opts, &plan), NBFFT_SUCCESS);
  EXPECT(nbfft_plan_bytes(plan, &in_b, &out_b, &inplace_b), NBFFT_SUCCESS);
  EXPECT(nbfft_plan_box(plan, NBFFT_LAYOUT_OUTPUT, lo, cnt, order), NBFFT_SUCCESS);
  if (order[0] != 0 || order[1] != 2 || order[2] != 1) fprintf(stderr, "output order\n"), ++failures;
  EXPECT(nbfft_plan_box(plan, (nbfft_layout)7, lo, cnt, order), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_plan_box_of(plan, NBFFT_LAYOUT_INPUT, size, lo, cnt, order), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_plan_box(none, NBFFT_LAYOUT_INPUT, lo, cnt, order), NBFFT_INVALID_STATE);
  EXPECT(nbfft_forward(none, NULL, 0, NULL, 0), NBFFT_INVALID_STATE);

  u = calloc(in_b / sizeof(double) + 1, sizeof(double));
  v = calloc(in_b / sizeof(double) + 1, sizeof(double));
  for (k = 0; k < in_b / sizeof(double); ++k) u[k] = (double)((k * 7 + (size_t)rank * 13) % 11) - 5.0;
  batch_in = calloc(3 * in_b / sizeof(double) + 1, sizeof(double));
  batch_out = calloc(3 * out_b / sizeof(double) + 1, sizeof(double));
  single = calloc(3 * out_b / sizeof(double) + 1, sizeof(double));

  /* Only rank 0 passes a short output buffer: every rank fails together. */
  EXPECT(nbfft_forward(plan, u, in_b, single, rank == 0 ? out_b - 1 : out_b), NBFFT_INVALID_ARGUMENT);
  /* Round trip (ortho norm): backward(forward(u)) == u. */
  EXPECT(nbfft_forward(plan, u, in_b, single, out_b), NBFFT_SUCCESS);
  EXPECT(nbfft_backward(plan, single, out_b, v, in_b), NBFFT_SUCCESS);
  for (k = 0; k < in_b / sizeof(double); ++k)
    if (u[k] - v[k] > 1e-12 || v[k] - u[k] > 1e-12) {
      fprintf(stderr, "rank %d: round trip differs at %zu\n", rank, k), ++failures;
      break;
    }

  /* Batch of 3 = 3 single calls; many with disagreeing field counts; an unaddressable batch. */
  for (i = 0; i < 3; ++i) {
    for (k = 0; k < in_b / sizeof(double); ++k) batch_in[i * (in_b / sizeof(double)) + k] = u[k] * (i + 1);
    EXPECT(nbfft_forward(plan, (char*)batch_in + i * in_b, in_b, (char*)single + i * out_b, out_b), NBFFT_SUCCESS);
  }
  EXPECT(nbfft_forward_batch(plan, 3, batch_in, 3 * in_b, batch_out, 3 * out_b), NBFFT_SUCCESS);
  if (memcmp(batch_out, single, 3 * out_b) != 0) fprintf(stderr, "rank %d: batch != single\n", rank), ++failures;
  EXPECT(nbfft_forward_batch(plan, (size_t)-1 / 2, batch_in, 3 * in_b, batch_out, 3 * out_b), NBFFT_OUT_OF_MEMORY);
  {
    const void* ins[2] = {batch_in, (char*)batch_in + in_b};
    void* outs[2] = {batch_out, (char*)batch_out + out_b};
    EXPECT(nbfft_forward_many(plan, 2, ins, in_b, outs, out_b), NBFFT_SUCCESS);
    if (memcmp(batch_out, single, 2 * out_b) != 0) fprintf(stderr, "rank %d: many != single\n", rank), ++failures;
    if (size > 1) EXPECT(nbfft_forward_many(plan, rank == 1 ? 1 : 2, ins, in_b, outs, out_b), NBFFT_RANKS_DISAGREE);
    /* No fields on one rank: its size checks (collective where fields are given) must not
     * leave the others waiting. */
    if (size > 1) EXPECT(nbfft_forward_many(plan, rank == 1 ? 0 : 2, ins, in_b, outs, out_b), NBFFT_RANKS_DISAGREE);
    EXPECT(nbfft_forward_many(plan, 0, NULL, 0, NULL, 0), NBFFT_SUCCESS); /* nothing, everywhere */
  }

  /* Gather to the last rank, scatter back. */
  if (rank == size - 1) global = calloc(8 * 6 * 5, sizeof(double));
  EXPECT(nbfft_gather(plan, NBFFT_LAYOUT_INPUT, u, in_b, global, global ? 8 * 6 * 5 * sizeof(double) : 0, size - 1),
         NBFFT_SUCCESS);
  EXPECT(nbfft_scatter(plan, NBFFT_LAYOUT_INPUT, global, global ? 8 * 6 * 5 * sizeof(double) : 0, v, in_b, size - 1),
         NBFFT_SUCCESS);
  if (memcmp(u, v, in_b) != 0) fprintf(stderr, "rank %d: gather/scatter round trip differs\n", rank), ++failures;
  EXPECT(nbfft_gather(plan, NBFFT_LAYOUT_INPUT, u, in_b, global, 0, size - 1), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_gather(plan, NBFFT_LAYOUT_INPUT, u, in_b, global, 0, -1), NBFFT_INVALID_ARGUMENT);

  /* A padded plan (the padding key): 8x6x5 modes on a 12x9x7 grid. Forward of any field, then
   * backward and forward again, returns the same spectrum; gather takes the padded grid. */
  EXPECT(nbfft_options_set(opts, "padding", "0.9"), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_options_set(opts, "padding", "1.5"), NBFFT_SUCCESS);
  {
    nbfft_plan pp = NULL;
    size_t pin, pout, pinplace;
    double *f, *F1, *F2, *w, *g = NULL, most = 0, diff = 0;
    const size_t whole = 12 * 9 * 7 * sizeof(double);
    EXPECT(nbfft_plan_create(MPI_COMM_WORLD, n, opts, &pp), NBFFT_SUCCESS);
    EXPECT(nbfft_plan_bytes(pp, &pin, &pout, &pinplace), NBFFT_SUCCESS);
    f = calloc(pin / sizeof(double) + 1, sizeof(double));
    w = calloc(pin / sizeof(double) + 1, sizeof(double));
    F1 = calloc(pout / sizeof(double) + 1, sizeof(double));
    F2 = calloc(pout / sizeof(double) + 1, sizeof(double));
    for (k = 0; k < pin / sizeof(double); ++k) f[k] = (double)((k * 5 + (size_t)rank * 3) % 13) - 6.0;
    EXPECT(nbfft_forward(pp, f, pin, F1, pout), NBFFT_SUCCESS);
    EXPECT(nbfft_backward(pp, F1, pout, w, pin), NBFFT_SUCCESS);
    EXPECT(nbfft_forward(pp, w, pin, F2, pout), NBFFT_SUCCESS);
    for (k = 0; k < pout / sizeof(double); ++k) {
      double d = F1[k] - F2[k], a = F1[k] < 0 ? -F1[k] : F1[k];
      if (d < 0) d = -d;
      if (d > diff) diff = d;
      if (a > most) most = a;
    }
    if (diff > 1e-12 * (most > 1 ? most : 1)) fprintf(stderr, "rank %d: padded round trip off by %g\n", rank, diff), ++failures;
    if (rank == 0) g = calloc(whole / sizeof(double), sizeof(double));
    EXPECT(nbfft_gather(pp, NBFFT_LAYOUT_INPUT, w, pin, g, g ? whole : 0, 0), NBFFT_SUCCESS);
    EXPECT(nbfft_gather(pp, NBFFT_LAYOUT_INPUT, w, pin, g, g ? 8 * 6 * 5 * sizeof(double) : 0, 0),
           NBFFT_INVALID_ARGUMENT);
    EXPECT(nbfft_plan_destroy(&pp), NBFFT_SUCCESS);
    free(f), free(w), free(F1), free(F2), free(g);
  }

  /* Wisdom: a missing file is no error; a file that is not wisdom is an I/O error. */
  snprintf(line, sizeof line, "capi_errors_np%d.not-wisdom", size);
  if (rank == 0) {
    FILE* f = fopen(line, "w");
    if (f) fputs("this is not FFTW wisdom\n", f), fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT(nbfft_wisdom_load(MPI_COMM_WORLD, "capi_errors_no_such_file", &found), NBFFT_SUCCESS);
  if (found != 0) fprintf(stderr, "missing wisdom file found\n"), ++failures;
  EXPECT(nbfft_wisdom_load(MPI_COMM_WORLD, line, &found), NBFFT_IO_ERROR);
  if (rank == 0) remove(line);

  EXPECT(nbfft_plan_destroy(&plan), NBFFT_SUCCESS);
  if (plan != NULL) fprintf(stderr, "destroy left the handle\n"), ++failures;
  EXPECT(nbfft_plan_counts(plan, NULL, NULL), NBFFT_INVALID_STATE);
  EXPECT(nbfft_plan_destroy(&plan), NBFFT_SUCCESS); /* destroying NULL is fine */
  EXPECT(nbfft_options_destroy(&opts), NBFFT_SUCCESS);
  EXPECT(nbfft_options_destroy(&thread_opts), NBFFT_SUCCESS);

  for (i = 0; i <= 7; ++i) /* every status but NBFFT_INTERNAL */
    if (!seen[i] && !(size == 1 && (i == NBFFT_RANKS_DISAGREE || i == NBFFT_UNAVAILABLE)))
      fprintf(stderr, "rank %d: status %d (%s) never seen\n", rank, i, nbfft_status_string((nbfft_status)i)), ++failures;
  free(u), free(v), free(batch_in), free(batch_out), free(single), free(global);
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("capi_errors: %d ranks, %d failures\n", size, total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
