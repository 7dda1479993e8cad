/* nbfft_transpose.h: the pencil transposes of nbfft/fft/transpose.hpp in C (docs/fft.md
 * "Transposes on your own arrays"). Included by nbfft.h.
 *
 *   nbfft_pencils p;  int64_t n[3] = {nx, ny, nz}, lo[3], sz[3];
 *   nbfft_pencils_create(MPI_COMM_WORLD, n, 0, 0, "blocking", &p);   // M1 x M2 chosen
 *   nbfft_pencils_box(p, NBFFT_PENCIL_Y, lo, sz);                    // this rank's Y-pencil
 *   nbfft_transpose_run(p, NBFFT_PENCIL_X, NBFFT_PENCIL_Y, ux, ux_bytes, uy, uy_bytes, sizeof(double));
 *   nbfft_transpose t;  nbfft_transpose_start(p, NBFFT_PENCIL_Y, NBFFT_PENCIL_Z, uy, .., uz, .., 8, &t);
 *   work();  nbfft_transpose_wait(&t);
 *   nbfft_pencils_destroy(&p);
 *
 * Rank r is at i = r % M1, j = r / M1. X-pencil: all x, part i of y over M1, part j of z over
 * M2; Y-pencil: part i of x, all y, part j of z; Z-pencil: part i of x, part j of y, all z.
 * Every pencil is stored x fastest, then y, then z (lo: 0-based first point, n: points).
 * Creation, destruction, nbfft_transpose, _many and _start are collective; test and wait
 * are local. Sizes are bytes; elem_bytes is the size of one element (any, >= 1).
 */
#ifndef NBFFT_NBFFT_TRANSPOSE_H
#define NBFFT_NBFFT_TRANSPOSE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nbfft_pencil { NBFFT_PENCIL_X = 0, NBFFT_PENCIL_Y = 1, NBFFT_PENCIL_Z = 2 } nbfft_pencil;
typedef struct nbfft_pencils_s* nbfft_pencils;     /* opaque */
typedef nbfft_request nbfft_transpose; /* a split-phase transpose in flight: an nbfft_request (nbfft.h) */

/* m1, m2: the process grid (0, 0: chosen; one 0: the other must divide the size); transport:
 * NULL or a name of the plan's option strings ("blocking", "pairwise:4@thread", ...). */
nbfft_status nbfft_pencils_create(MPI_Comm comm, const int64_t n[3], int m1, int m2, const char* transport,
                                  nbfft_pencils* pencils);
/* Collective. The pencils from an options handle, as every plan is made (nbfft_plan_create,
 * nbfft_plan_create_nd): its proc_grid (M1xM2 or PZxPYx1), transport (or row_transport and
 * col_transport) and fields_in_flight; NULL: the defaults. A handle that sets any other key
 * (a transform's: precision, padding, ...) is NBFFT_INVALID_ARGUMENT on every rank naming it. */
nbfft_status nbfft_plan_create_pencils(MPI_Comm comm, const int64_t n[3], nbfft_options options,
                                       nbfft_pencils* pencils);
nbfft_status nbfft_plan_create_pencils_f(MPI_Fint comm, const int64_t n[3], nbfft_options options,
                                         nbfft_pencils* pencils);
/* The same with a Fortran communicator handle (the Fortran module's entry). */
nbfft_status nbfft_pencils_create_f(MPI_Fint comm, const int64_t n[3], int m1, int m2, const char* transport,
                                    nbfft_pencils* pencils);
nbfft_status nbfft_pencils_destroy(nbfft_pencils* pencils); /* sets NULL; NULL ok. Collective. */
nbfft_status nbfft_pencils_grid(nbfft_pencils pencils, int* m1, int* m2);
/* This rank's pencil (lo, n may be NULL), or another rank's. */
nbfft_status nbfft_pencils_box(nbfft_pencils pencils, nbfft_pencil which, int64_t lo[3], int64_t n[3]);
nbfft_status nbfft_pencils_box_of(nbfft_pencils pencils, nbfft_pencil which, int rank, int64_t lo[3], int64_t n[3]);
/* Collective: every rank fails (NBFFT_INVALID_ARGUMENT, `what` naming the call) with the lowest
 * rank's non-empty error, or every rank succeeds (a front end's own checks, e.g. Fortran shapes). */
nbfft_status nbfft_pencils_agree(nbfft_pencils pencils, const char* what, const char* error);

nbfft_status nbfft_transpose_run(nbfft_pencils pencils, nbfft_pencil from, nbfft_pencil to, const void* in,
                                 size_t in_bytes, void* out, size_t out_bytes, size_t elem_bytes);
/* nv fields, field k from in[k] to out[k] (sizes per field), pipelined. */
nbfft_status nbfft_transpose_many(nbfft_pencils pencils, nbfft_pencil from, nbfft_pencil to, size_t nv,
                                  const void* const* in, size_t in_bytes, void* const* out, size_t out_bytes,
                                  size_t elem_bytes);
/* Split phase: *t is the transpose in flight until nbfft_wait or nbfft_transpose_wait (which
 * free it); the waits are local. */
nbfft_status nbfft_transpose_start(nbfft_pencils pencils, nbfft_pencil from, nbfft_pencil to, const void* in,
                                   size_t in_bytes, void* out, size_t out_bytes, size_t elem_bytes,
                                   nbfft_transpose* t);
nbfft_status nbfft_transpose_test(nbfft_transpose t, int* done); /* progress; *done = arrived */
nbfft_status nbfft_transpose_wait(nbfft_transpose* t);           /* completes; sets *t = NULL */

#ifdef __cplusplus
}
#endif

#endif
