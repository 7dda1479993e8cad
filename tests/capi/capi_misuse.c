/* The C API misused, one case at a time (issue 16's bad-input campaign): NULL, stale and
 * fabricated handles, byte counts that are short, long or of the other precision, bad
 * option words, gather/scatter sizes, wisdom files. Each CASE checks, on every rank, the
 * status AND that nbfft_last_error() names the problem; collective calls must fail on
 * every rank together even when one rank alone is wrong. The transforms that succeed are
 * checked against each other (in place = out of place, lean = default, single ~ double).
 * Exit code 0 when every rank passed every case; rank 0 prints the number of cases. */
#include <nbfft/nbfft.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank = -1, size = 0, failures = 0, cases = 0;

/* call must return `want` and the message must contain `needle` ("" = any). */
#define CASE(name, call, want, needle)                                                                         \
  do {                                                                                                         \
    nbfft_status st_ = (call);                                                                                 \
    ++cases;                                                                                                   \
    if (st_ != (want)) {                                                                                       \
      fprintf(stderr, "FAIL rank %d: %s: %s gave %d (%s), expected %d: %s\n", rank, name, #call, (int)st_,     \
              nbfft_status_string(st_), (int)(want), nbfft_last_error());                                      \
      ++failures;                                                                                              \
    } else if ((want) != NBFFT_SUCCESS && !strstr(nbfft_last_error(), needle)) {                              \
      fprintf(stderr, "FAIL rank %d: %s: message '%s' lacks '%s'\n", rank, name, nbfft_last_error(), needle); \
      ++failures;                                                                                              \
    }                                                                                                          \
  } while (0)

#define CHECK(what, cond)                                                  \
  do {                                                                     \
    if (!(cond)) fprintf(stderr, "FAIL rank %d: %s\n", rank, what), ++failures; \
  } while (0)

static double max_diff(const double* a, const double* b, size_t n) {
  double m = 0;
  size_t k;
  for (k = 0; k < n; ++k)
    if (fabs(a[k] - b[k]) > m) m = fabs(a[k] - b[k]);
  return m;
}

static void fill(double* u, size_t n, int seed) {
  size_t k;
  for (k = 0; k < n; ++k) u[k] = (double)((k * 7 + (size_t)seed * 13 + (size_t)rank * 5) % 17) - 8.0;
}

static nbfft_options make_options(const char* k1, const char* v1, const char* k2, const char* v2) {
  nbfft_options o = NULL;
  nbfft_options_create(&o);
  nbfft_options_set(o, "effort", "estimate");
  nbfft_options_set(o, "norm", "backward"); /* explicit: the default may change */
  if (k1) nbfft_options_set(o, k1, v1);
  if (k2) nbfft_options_set(o, k2, v2);
  return o;
}

int main(int argc, char** argv) {
  int64_t n[3] = {12, 10, 9}, bad[3];
  nbfft_plan plan = NULL, copy = NULL, sp = NULL, lean = NULL, fake = (nbfft_plan)(uintptr_t)0x1234;
  nbfft_options o, ocopy, sopt, lopt;
  size_t in_b, out_b, ip_b, nin, nout, nip, k, need = 0;
  size_t sin_b, sout_b;
  double *u, *U, *V, *W, *big, *g = NULL;
  char line[256];
  int provided, total, allcases, level, found = -1;
  double kx[64];

  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* ---- handles: NULL, stale (destroyed through another copy), fabricated ---- */
  o = make_options(NULL, NULL, NULL, NULL);
  CASE("plan_create ok", nbfft_plan_create(MPI_COMM_WORLD, n, o, &plan), NBFFT_SUCCESS, "");
  copy = plan;
  CASE("forward on a NULL plan", nbfft_forward(NULL, NULL, 0, NULL, 0), NBFFT_INVALID_STATE, "NULL");
  CASE("bytes of a fabricated handle", nbfft_plan_bytes(fake, &in_b, NULL, NULL), NBFFT_INVALID_STATE,
       "not a live handle");
  CASE("destroy a fabricated handle", nbfft_plan_destroy(&fake), NBFFT_INVALID_STATE, "not a live handle");
  CASE("destroy through one copy", nbfft_plan_destroy(&plan), NBFFT_SUCCESS, "");
  CHECK("destroy sets the handle to NULL", plan == NULL);
  CASE("stale copy: bytes", nbfft_plan_bytes(copy, &in_b, NULL, NULL), NBFFT_INVALID_STATE, "not a live handle");
  CASE("stale copy: forward", nbfft_forward(copy, NULL, 0, NULL, 0), NBFFT_INVALID_STATE, "not a live handle");
  CASE("stale copy: box", nbfft_plan_box(copy, NBFFT_LAYOUT_INPUT, NULL, NULL, NULL), NBFFT_INVALID_STATE,
       "not a live handle");
  CASE("stale copy: destroyed again", nbfft_plan_destroy(&copy), NBFFT_INVALID_STATE, "not a live handle");
  /* A new plan may reuse the old address in memory; the stale copy must still not reach it. */
  CASE("plan_create again", nbfft_plan_create(MPI_COMM_WORLD, n, o, &plan), NBFFT_SUCCESS, "");
  CASE("stale copy after a new plan", nbfft_plan_grid(copy, NULL, NULL, NULL), NBFFT_INVALID_STATE,
       "not a live handle");
  ocopy = make_options(NULL, NULL, NULL, NULL);
  sopt = ocopy;
  CASE("options destroy", nbfft_options_destroy(&ocopy), NBFFT_SUCCESS, "");
  CASE("stale options: set", nbfft_options_set(sopt, "norm", "none"), NBFFT_INVALID_STATE, "not a live handle");
  CASE("stale options: string", nbfft_options_string(sopt, line, sizeof line, NULL), NBFFT_INVALID_STATE,
       "not a live handle");
  CASE("stale options: thread level", nbfft_required_thread_level(sopt, &level), NBFFT_INVALID_STATE,
       "not a live handle");
  CASE("stale options: destroy", nbfft_options_destroy(&sopt), NBFFT_INVALID_STATE, "not a live handle");
  /* Only the last rank passes the stale options: every rank fails (nobody waits in the plan). */
  sopt = make_options(NULL, NULL, NULL, NULL);
  ocopy = sopt;
  if (rank == size - 1) nbfft_options_destroy(&ocopy);
  CASE("stale options on one rank: plan_create",
       nbfft_plan_create(MPI_COMM_WORLD, n, rank == size - 1 ? sopt : o, &copy), NBFFT_INVALID_STATE,
       "not a live handle");
  if (rank != size - 1) nbfft_options_destroy(&sopt);
  CASE("options_destroy(NULL pointer)", nbfft_options_destroy(NULL), NBFFT_INVALID_ARGUMENT, "NULL");
  CASE("plan_destroy(NULL pointer)", nbfft_plan_destroy(NULL), NBFFT_INVALID_ARGUMENT, "NULL");

  /* ---- option words and ranges ---- */
  CASE("set: key NULL", nbfft_options_set(o, NULL, "x"), NBFFT_INVALID_ARGUMENT, "key is NULL");
  CASE("set: value NULL", nbfft_options_set(o, "norm", NULL), NBFFT_INVALID_ARGUMENT, "value is NULL");
  CASE("set: norm empty", nbfft_options_set(o, "norm", ""), NBFFT_INVALID_ARGUMENT, "norm");
  CASE("set: effort fast", nbfft_options_set(o, "effort", "fast"), NBFFT_INVALID_ARGUMENT, "fast");
  CASE("set: transform r2r", nbfft_options_set(o, "transform", "r2r"), NBFFT_INVALID_ARGUMENT, "r2r");
  CASE("set: col_depth beyond int", nbfft_options_set(o, "col_depth", "99999999999"), NBFFT_INVALID_ARGUMENT,
       "col_depth");
  CASE("set: fields_in_flight abc", nbfft_options_set(o, "fields_in_flight", "abc"), NBFFT_INVALID_ARGUMENT,
       "fields_in_flight");
  CASE("set: col_chunk_planes 3x", nbfft_options_set(o, "col_chunk_planes", "3x"), NBFFT_INVALID_ARGUMENT,
       "col_chunk_planes");
  CASE("set: lean_workspace 2", nbfft_options_set(o, "lean_workspace", "2"), NBFFT_INVALID_ARGUMENT,
       "lean_workspace");
  CASE("set: pipeline_row maybe", nbfft_options_set(o, "pipeline_row", "maybe"), NBFFT_INVALID_ARGUMENT,
       "pipeline_row");
  CASE("set: proc_grid -1x2", nbfft_options_set(o, "proc_grid", "-1x2"), NBFFT_INVALID_ARGUMENT, "");
  CASE("set: col_kernel fastest", nbfft_options_set(o, "col_kernel", "fastest"), NBFFT_INVALID_ARGUMENT, "fastest");
  CASE("set: row_transport pairwise:0", nbfft_options_set(o, "row_transport", "pairwise:0@caller"),
       NBFFT_INVALID_ARGUMENT, "window");
  CASE("options_string: NULL buffer with a size", nbfft_options_string(o, NULL, 10, NULL), NBFFT_INVALID_ARGUMENT,
       "buffer is NULL");
  CASE("options_string: 8 bytes is cut, not an error", nbfft_options_string(o, line, 8, &need), NBFFT_SUCCESS, "");
  CHECK("options_string: cut to 7 characters", strlen(line) == 7 && need > 8);
  /* The option table knows fields_in_flight's range, so the value fails when it is set. */
  CASE("set: fields_in_flight 0", nbfft_options_set(o, "fields_in_flight", "0"), NBFFT_INVALID_ARGUMENT,
       "fields_in_flight: '0' is not an integer in [1, 64]");
  CASE("set: fields_in_flight 65", nbfft_options_set(o, "fields_in_flight", "65"), NBFFT_INVALID_ARGUMENT,
       "[1, 64]");
  sopt = make_options("proc_grid", "3x7", NULL, NULL);
  CASE("plan: process grid of another size", nbfft_plan_create(MPI_COMM_WORLD, n, sopt, &copy),
       NBFFT_INVALID_ARGUMENT, "communicator size");
  nbfft_options_destroy(&sopt);
  memcpy(bad, n, sizeof bad), bad[1] = 0;
  CASE("plan: ny = 0", nbfft_plan_create(MPI_COMM_WORLD, bad, o, &copy), NBFFT_INVALID_ARGUMENT, "ny = 0");
  bad[1] = -4;
  CASE("plan: ny < 0", nbfft_plan_create(MPI_COMM_WORLD, bad, o, &copy), NBFFT_INVALID_ARGUMENT, "ny = -4");
  bad[0] = bad[1] = bad[2] = (int64_t)1 << 40;
  CASE("plan: beyond the address space", nbfft_plan_create(MPI_COMM_WORLD, bad, o, &copy), NBFFT_OUT_OF_MEMORY,
       "cannot be addressed");
  CASE("plan: n NULL", nbfft_plan_create(MPI_COMM_WORLD, NULL, o, &copy), NBFFT_INVALID_ARGUMENT, "n is NULL");
  CHECK("failed creates leave no plan", copy == NULL);

  /* ---- byte counts: exactly the plan's, on every rank together ---- */
  nbfft_plan_bytes(plan, &in_b, &out_b, &ip_b);
  nin = in_b / sizeof(double), nout = out_b / sizeof(double), nip = ip_b / sizeof(double);
  u = calloc(nip + 4, sizeof(double)), U = calloc(2 * nip + 8, sizeof(double));
  V = calloc(2 * nip + 8, sizeof(double)), W = calloc(2 * nip + 8, sizeof(double));
  big = calloc(4 * nip + 8, sizeof(double));
  fill(u, nin, 1);
  CASE("forward: reference", nbfft_forward(plan, u, in_b, U, out_b), NBFFT_SUCCESS, "");
  CASE("forward: in_bytes one short", nbfft_forward(plan, u, in_b - 1, V, out_b), NBFFT_INVALID_ARGUMENT,
       "needs exactly");
  CASE("forward: in_bytes one long", nbfft_forward(plan, u, in_b + 1, V, out_b), NBFFT_INVALID_ARGUMENT,
       "needs exactly");
  CASE("forward: out_bytes doubled", nbfft_forward(plan, u, in_b, V, 2 * out_b), NBFFT_INVALID_ARGUMENT,
       "out_bytes");
  CASE("forward: float-sized buffers to a double plan", nbfft_forward(plan, u, in_b / 2, V, out_b / 2),
       NBFFT_INVALID_ARGUMENT, "double precision");
  CASE("forward: only the last rank's count is long",
       nbfft_forward(plan, u, in_b, V, rank == size - 1 ? out_b + 16 : out_b), NBFFT_INVALID_ARGUMENT,
       "needs exactly");
  if (size > 1)
    CASE("forward: the failing rank is named",
         nbfft_forward(plan, u, in_b, V, rank == size - 1 ? out_b + 16 : out_b), NBFFT_INVALID_ARGUMENT,
         "[rank");
  CASE("forward: NULL input", nbfft_forward(plan, NULL, in_b, V, out_b), NBFFT_INVALID_ARGUMENT, "null buffer");
  CASE("forward: NULL output", nbfft_forward(plan, u, in_b, NULL, out_b), NBFFT_INVALID_ARGUMENT, "null buffer");
  CASE("forward: overlapping input and output", nbfft_forward(plan, big, in_b, big + 1, out_b),
       NBFFT_INVALID_ARGUMENT, "overlap");
  CASE("backward: forward's sizes (swapped)", nbfft_backward(plan, U, in_b, V, out_b), NBFFT_INVALID_ARGUMENT,
       "needs exactly");
  memcpy(big, u, in_b);
  CASE("in place: the input box's bytes only", nbfft_forward(plan, big, in_b, big, in_b), NBFFT_INVALID_ARGUMENT,
       "in-place");
  CASE("in place: inplace_bytes", nbfft_forward(plan, big, ip_b, big, ip_b), NBFFT_SUCCESS, "");
  CHECK("in place = out of place", max_diff(big, U, nout) < 1e-12);
  CASE("backward: ok", nbfft_backward(plan, U, out_b, V, in_b), NBFFT_SUCCESS, "");
  CHECK("round trip (backward norm)", max_diff(V, u, nin) < 1e-12);

  /* ---- many and batch ---- */
  {
    const void* ins[2];
    void* outs[2];
    memcpy(big, u, in_b);
    ins[0] = u, ins[1] = big, outs[0] = V, outs[1] = W;
    CASE("many: NULL pointer arrays", nbfft_forward_many(plan, 2, NULL, in_b, NULL, out_b), NBFFT_INVALID_ARGUMENT,
         "pointer array is NULL");
    CASE("many: per-field bytes of the whole batch", nbfft_forward_many(plan, 2, ins, 2 * in_b, outs, out_b),
         NBFFT_INVALID_ARGUMENT, "needs exactly");
    outs[1] = V;
    CASE("many: two fields share an output", nbfft_forward_many(plan, 2, ins, in_b, outs, out_b),
         NBFFT_INVALID_ARGUMENT, "share memory");
    outs[1] = W;
    CASE("many: nv = 0 does nothing", nbfft_forward_many(plan, 0, NULL, 0, NULL, 0), NBFFT_SUCCESS, "");
    CASE("many: ok", nbfft_forward_many(plan, 2, ins, in_b, outs, out_b), NBFFT_SUCCESS, "");
    CHECK("many = single", max_diff(V, U, nout) == 0 && max_diff(W, U, nout) == 0);
    if (size > 1)
      CASE("many: one rank passes another field count",
           nbfft_forward_many(plan, rank == 0 ? 1 : 2, ins, in_b, outs, out_b), NBFFT_RANKS_DISAGREE, "fields");
  }
  memcpy(big, u, in_b), memcpy((char*)big + in_b, u, in_b);
  CASE("batch: per-field sizes", nbfft_forward_batch(plan, 2, big, in_b, V, out_b), NBFFT_INVALID_ARGUMENT,
       "2 fields of");
  CASE("batch: nv beyond the address space", nbfft_forward_batch(plan, (size_t)-1, big, 2 * in_b, V, 2 * out_b),
       NBFFT_OUT_OF_MEMORY, "cannot be addressed");
  CASE("batch: ok", nbfft_forward_batch(plan, 2, big, 2 * in_b, V, 2 * out_b), NBFFT_SUCCESS, "");
  CHECK("batch = single", max_diff(V, U, nout) == 0 && max_diff(V + nout, U, nout) == 0);
  CASE("backward batch: one field's size", nbfft_backward_batch(plan, 2, V, out_b, W, 2 * in_b),
       NBFFT_INVALID_ARGUMENT, "needs exactly");

  /* ---- gather / scatter, layouts, boxes, wavenumbers ---- */
  if (rank == 0) g = calloc(2 * 7 * 10 * 9 + 16, sizeof(double));
  CASE("gather: local bytes short", nbfft_gather(plan, NBFFT_LAYOUT_INPUT, u, in_b - 8, g, 12 * 10 * 9 * 8, 0),
       NBFFT_INVALID_ARGUMENT, "local_bytes");
  CASE("gather: global bytes long on the root",
       nbfft_gather(plan, NBFFT_LAYOUT_INPUT, u, in_b, g, rank == 0 ? 12 * 10 * 9 * 8 + 8 : 0, 0),
       NBFFT_INVALID_ARGUMENT, "global_bytes");
  CASE("gather: root = size", nbfft_gather(plan, NBFFT_LAYOUT_INPUT, u, in_b, g, 0, size), NBFFT_INVALID_ARGUMENT,
       "root");
  CASE("gather: output layout with the input's sizes",
       nbfft_gather(plan, NBFFT_LAYOUT_OUTPUT, u, in_b, g, 12 * 10 * 9 * 8, 0), NBFFT_INVALID_ARGUMENT,
       "output layout");
  CASE("scatter: layout 5", nbfft_scatter(plan, (nbfft_layout)5, g, 0, V, in_b, 0), NBFFT_INVALID_ARGUMENT,
       "layout 5");
  CASE("gather: output layout ok",
       nbfft_gather(plan, NBFFT_LAYOUT_OUTPUT, U, out_b, g, rank == 0 ? 7 * 10 * 9 * 16 : 0, 0), NBFFT_SUCCESS, "");
  CASE("box_of: rank -1", nbfft_plan_box_of(plan, NBFFT_LAYOUT_INPUT, -1, NULL, NULL, NULL), NBFFT_INVALID_ARGUMENT,
       "rank -1");
  {
    int64_t cnt[3];
    nbfft_plan_box(plan, NBFFT_LAYOUT_OUTPUT, NULL, cnt, NULL);
    if (cnt[0] > 0)
      CASE("wavenumbers: kx NULL", nbfft_wavenumbers(plan, NULL, NULL, kx, kx), NBFFT_INVALID_ARGUMENT, "kx is NULL");
  }
  {
    /* A box length must be a positive finite number on every axis (issue 37: infinity was taken). */
    const double bad[6] = {INFINITY, -INFINITY, NAN, 0.0, -2.0, 1e-320};
    int b, d;
    for (b = 0; b < 6; ++b)
      for (d = 0; d < 3; ++d) {
        double len[3] = {1.0, 2.0, 3.0};
        char needle[16];
        len[d] = bad[b];
        snprintf(needle, sizeof needle, "length[%d]", d);
        CASE("wavenumbers: bad length", nbfft_wavenumbers(plan, len, kx, kx, kx), NBFFT_INVALID_ARGUMENT, needle);
      }
  }

  /* ---- precision: a single-precision plan takes float-sized buffers only ---- */
  sopt = make_options("precision", "single", NULL, NULL);
  CASE("single plan", nbfft_plan_create(MPI_COMM_WORLD, n, sopt, &sp), NBFFT_SUCCESS, "");
  nbfft_plan_bytes(sp, &sin_b, &sout_b, NULL);
  CHECK("single plan: half the bytes", 2 * sin_b == in_b && 2 * sout_b == out_b);
  CASE("single plan: double-sized buffers", nbfft_forward(sp, u, in_b, V, out_b), NBFFT_INVALID_ARGUMENT,
       "single precision");
  CASE("single plan: double-sized output only", nbfft_forward(sp, u, sin_b, V, out_b), NBFFT_INVALID_ARGUMENT,
       "complex float");
  {
    float* fu = calloc(nin + 1, sizeof(float));
    float* fU = calloc(nout + 1, sizeof(float));
    for (k = 0; k < nin; ++k) fu[k] = (float)u[k];
    CASE("single plan: float buffers", nbfft_forward(sp, fu, sin_b, fU, sout_b), NBFFT_SUCCESS, "");
    for (k = 0; k < nout; ++k)
      if (fabs(fU[k] - U[k]) > 1e-3 * (1 + fabs(U[k]))) {
        CHECK("single = double to 1e-3", 0);
        break;
      }
    free(fu), free(fU);
  }
  nbfft_plan_destroy(&sp), nbfft_options_destroy(&sopt);

  /* ---- lean workspace: in place only, same result ---- */
  lopt = make_options("lean_workspace", "true", NULL, NULL);
  CASE("lean plan", nbfft_plan_create(MPI_COMM_WORLD, n, lopt, &lean), NBFFT_SUCCESS, "");
  {
    size_t lin, lout, lip;
    nbfft_plan_bytes(lean, &lin, &lout, &lip);
    if (size > 1) /* one rank has no exchange, so no lean workspace to make */
      CASE("lean: out of place", nbfft_forward(lean, u, lin, V, lout), NBFFT_INVALID_ARGUMENT, "in place");
    memset(big, 0, lip), memcpy(big, u, in_b);
    CASE("lean: in place", nbfft_forward(lean, big, lip, big, lip), NBFFT_SUCCESS, "");
    CHECK("lean = default", max_diff(big, U, nout) < 1e-12);
    CASE("lean: in place with the input box's bytes", nbfft_forward(lean, big, lin, big, lin),
         NBFFT_INVALID_ARGUMENT, "in-place");
  }
  nbfft_plan_destroy(&lean), nbfft_options_destroy(&lopt);

  /* ---- wisdom files ---- */
  CASE("wisdom_save: path NULL", nbfft_wisdom_save(MPI_COMM_WORLD, NULL), NBFFT_INVALID_ARGUMENT, "path is NULL");
  CASE("wisdom_load: path NULL", nbfft_wisdom_load(MPI_COMM_WORLD, NULL, &found), NBFFT_INVALID_ARGUMENT,
       "path is NULL");
  CASE("wisdom_save: into a missing directory", nbfft_wisdom_save(MPI_COMM_WORLD, "/nonexistent-dir/w"),
       NBFFT_IO_ERROR, "/nonexistent-dir/w");
  snprintf(line, sizeof line, "/tmp/nbfft_capi_misuse_%d_rank%d", size, rank);
  CASE("wisdom: a path that differs per rank", nbfft_wisdom_save(MPI_COMM_WORLD, line),
       size > 1 ? NBFFT_RANKS_DISAGREE : NBFFT_SUCCESS, "wisdom file");
  if (size == 1) remove(line);
  snprintf(line, sizeof line, "/tmp/nbfft_capi_misuse_%d.wisdom", size);
  CASE("wisdom_save: ok", nbfft_wisdom_save(MPI_COMM_WORLD, line), NBFFT_SUCCESS, "");
  if (rank == 0) { /* keep half the file (at most 40 bytes): a truncated file, whatever its size */
    char head[80];
    size_t got = 0;
    FILE* f = fopen(line, "rb");
    if (f) got = fread(head, 1, sizeof head, f), fclose(f);
    f = fopen(line, "wb");
    if (f) fwrite(head, 1, got / 2 < 40 ? got / 2 : 40, f), fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CASE("wisdom_load: truncated", nbfft_wisdom_load(MPI_COMM_WORLD, line, &found), NBFFT_IO_ERROR, "truncated");
  if (rank == 0) remove(line);

  nbfft_plan_destroy(&plan);
  nbfft_options_destroy(&o);
  free(u), free(U), free(V), free(W), free(big), free(g);
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&cases, &allcases, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) printf("capi_misuse: %d ranks, %d cases, %d failures\n", size, allcases, total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
