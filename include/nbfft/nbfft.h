/* nbfft.h: the C API of nbfft, a distributed 3D FFT (docs/c.md has every function and its errors).
 *
 *   nbfft_options o;  nbfft_plan p;  int64_t n[3] = {64, 64, 64};
 *   nbfft_options_create(&o);
 *   nbfft_options_set(o, "transport", "pairwise:4@thread");   // the CLI's words
 *   nbfft_plan_create(MPI_COMM_WORLD, n, o, &p);
 *   nbfft_forward(p, u, in_bytes, uhat, out_bytes);             // collective
 *   nbfft_plan_destroy(&p);  nbfft_options_destroy(&o);
 *
 * Every function returns an nbfft_status; NBFFT_SUCCESS is 0. On failure
 * nbfft_last_error() holds this thread's message. Collective calls fail on every rank
 * together, with the same status and message, so `if (st) MPI_Abort(...)` or a clean exit
 * is safe. No C++ exception ever leaves the library. Pure C99; link with -lnbfft_c (see
 * nbfft.pc) or CMake's nbfft::c.
 */
#ifndef NBFFT_NBFFT_H
#define NBFFT_NBFFT_H

#include <mpi.h>
#include <nbfft/version.h> /* NBFFT_VERSION_MAJOR, _MINOR, _PATCH, _STRING: these headers' version */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The same numbers as nbfft::ErrorCode (C++), plus success. Never renumbered. */
typedef enum nbfft_status {
  NBFFT_SUCCESS = 0,
  NBFFT_INVALID_ARGUMENT = 1, /* a value is malformed, out of range, or a buffer too small */
  NBFFT_RANKS_DISAGREE = 2,   /* ranks passed different values for something that must agree */
  NBFFT_UNAVAILABLE = 3,      /* valid, but this MPI / build / thread level cannot do it */
  NBFFT_MPI_ERROR = 4,        /* an MPI call failed */
  NBFFT_OUT_OF_MEMORY = 5,    /* an allocation failed or a size cannot be addressed */
  NBFFT_IO_ERROR = 6,         /* a file could not be read, written or parsed */
  NBFFT_INVALID_STATE = 7,    /* a NULL / destroyed handle, a concurrent call, MPI not running */
  NBFFT_INTERNAL = 8          /* a bug in nbfft (please report it) */
} nbfft_status;

/* Which distribution: the X-pencil input of forward (output of backward) or the Z-pencil. */
typedef enum nbfft_layout { NBFFT_LAYOUT_INPUT = 0, NBFFT_LAYOUT_OUTPUT = 1 } nbfft_layout;

typedef struct nbfft_options_s* nbfft_options; /* opaque; NULL = defaults where accepted */
typedef struct nbfft_plan_s* nbfft_plan;       /* opaque */
/* An operation started and not yet finished: a split-phase transform of any plan (3-D or
 * N-D), a transpose, a background write. Every *_start returns one; nbfft_wait finishes it. */
typedef struct nbfft_request_s* nbfft_request; /* opaque */

/* "success", "invalid argument", "ranks disagree", ...; "unknown status" otherwise. */
const char* nbfft_status_string(nbfft_status status);
/* The message of the last failed call on this thread ("" if none); valid until the next call. */
const char* nbfft_last_error(void);
/* For language bindings: a failure the binding finds itself, without calling the library
 * (a Fortran array of the wrong size), becomes nbfft_last_error()'s message. */
void nbfft_set_last_error(const char* message);
/* The library's version as text ("0.1.0") and as numbers (any pointer may be NULL); the
 * headers' version is NBFFT_VERSION_STRING etc. (nbfft/version.h). Both come from CMake's
 * project(VERSION), so they differ only when a program mixes headers and library. */
const char* nbfft_version(void);
nbfft_status nbfft_version_numbers(int* major, int* minor, int* patch);
/* What this nbfft is: its version, the MPI library and thread levels (provided, when MPI is
 * running, and required by each engine), FFTW's version, the build (shared/static, type,
 * compiler, Fortran, FFTW-MPI baseline) and the engines, transports and algorithms
 * available; a few "name: value" lines, the text `nbfft-sine --version` and
 * `python -m nbfft` print. Copies at most size bytes into buffer, always NUL-terminated
 * when size > 0 (cut short if needed), never more; *needed (may be NULL) gets the full
 * length + 1, so nbfft_build_info(NULL, 0, &n) asks the size. Local; any time, even before
 * MPI_Init. */
nbfft_status nbfft_build_info(char* buffer, size_t size, size_t* needed);

/* ---- options (local, not collective) ---- */
nbfft_status nbfft_options_create(nbfft_options* options);
nbfft_status nbfft_options_destroy(nbfft_options* options); /* sets *options = NULL; NULL ok */
/* A new handle with every value of `from` (NULL: the defaults); destroy it as any other. */
nbfft_status nbfft_options_copy(nbfft_options from, nbfft_options* options);
/* One options handle for every plan: nbfft_plan_create (3-D) and nbfft_plan_create_nd
 * (nbfft_nd.h) both take it. Keys and values come from nbfft's one option table
 * (docs/fft.md "Options" lists every key, the plans it applies to, its values and default;
 * nbfft_options_key walks it). The same keys are Python's keyword arguments, the Fortran
 * keys and nbfft-sine's --words ('_' or '-' alike), e.g.
 *   precision double|single   norm backward|none|forward|ortho   proc_grid auto|P0xP1x...
 *   transport PRESET|ALGORITHM[:WINDOW]@ENGINE ("pairwise:4@thread"; sets both exchanges)
 *   fields_in_flight 1..64    lean_workspace true|false
 *   tune none|quick|thorough|exhaustive (plan-time tuning, below)  tune_budget SECONDS ...
 * Unknown keys, or values no plan takes: NBFFT_INVALID_ARGUMENT naming the key, the value
 * and what is allowed. A value only one kind of plan takes (batch_axis: N-D plans; padding:
 * the 3-D plan; kinds for two axes) is kept: making the other kind of plan from the handle
 * is then NBFFT_INVALID_ARGUMENT on every rank, naming the key and why. */
nbfft_status nbfft_options_set(nbfft_options options, const char* key, const char* value);
/* Sets every "key=value" pair of text (separated by blanks), in order, as nbfft_options_set:
 * "transform=c2c proc_grid=2x1x1 transport=pairwise:4@thread". All or nothing: on an error
 * (naming the pair) the handle is unchanged. */
nbfft_status nbfft_options_parse(nbfft_options options, const char* text);
/* The value of one key as text that nbfft_options_set accepts, NUL-terminated and cut to
 * size bytes; *needed (may be NULL) gets the full length + 1. options may be NULL
 * (defaults). The shorthand `transport` reads "mixed" when the two exchanges differ. */
nbfft_status nbfft_options_get(nbfft_options options, const char* key, char* buffer, size_t size, size_t* needed);
/* The i-th key of the table (0, 1, ...), its one-line description and a valid value other
 * than its default; NULL past the end. */
const char* nbfft_options_key(int i);
const char* nbfft_options_doc(int i);
const char* nbfft_options_example(int i);
/* Its type: "choice", "int", "bool", "grid", "transport", "real" or "text" (any string, e.g.
 * tune_wisdom's path). */
const char* nbfft_options_type(int i);
/* The plans it applies to: "all", "3-D" (nbfft_plan_create only) or "N-D"
 * (nbfft_plan_create_nd only). */
const char* nbfft_options_scope(int i);
/* The options as one line ("precision=double transform=r2c ..."), NUL-terminated and cut to
 * size bytes; *needed (may be NULL) gets the full length + 1. */
nbfft_status nbfft_options_string(nbfft_options options, char* buffer, size_t size, size_t* needed);
/* The MPI thread level a plan with these options needs (MPI_THREAD_MULTIPLE for a transport
 * on the thread engine, else MPI_THREAD_SINGLE); options may be NULL (defaults). */
nbfft_status nbfft_required_thread_level(nbfft_options options, int* level);

/* ---- plans (create, destroy and every transform are collective over comm) ---- */
/* n = {nx, ny, nz}; options may be NULL. The plan keeps its own duplicate of comm. */
nbfft_status nbfft_plan_create(MPI_Comm comm, const int64_t n[3], nbfft_options options, nbfft_plan* plan);
/* The same with a Fortran communicator handle (MPI_Comm_c2f / mpi_f08's %MPI_VAL). */
nbfft_status nbfft_plan_create_f(MPI_Fint comm, const int64_t n[3], nbfft_options options, nbfft_plan* plan);
/* Your own layout (docs/fft.md "Your own layout: boxes in and out"): this rank's box of the
 * input (in_lo, in_n along x, y, z; the physical grid of a padded plan) and of the spectrum
 * (out_lo, out_n; x has nx/2+1 points for r2c), each with its memory order (dimensions from
 * fastest to slowest; NULL = {0,1,2}, x fastest, C [z][y][x]). NULL lo and n keep that
 * side's internal pencil. Any bricks that tile the grid, empty ones too; boxes that overlap,
 * leave gaps or fall outside the grid fail on every rank, naming the first conflict. */
nbfft_status nbfft_plan_create_boxes(MPI_Comm comm, const int64_t n[3], const int64_t in_lo[3], const int64_t in_n[3],
                                     const int in_order[3], const int64_t out_lo[3], const int64_t out_n[3],
                                     const int out_order[3], nbfft_options options, nbfft_plan* plan);
nbfft_status nbfft_plan_create_boxes_f(MPI_Fint comm, const int64_t n[3], const int64_t in_lo[3],
                                       const int64_t in_n[3], const int in_order[3], const int64_t out_lo[3],
                                       const int64_t out_n[3], const int out_order[3], nbfft_options options,
                                       nbfft_plan* plan);
nbfft_status nbfft_plan_destroy(nbfft_plan* plan); /* sets *plan = NULL; NULL ok. Collective. */

/* This rank's box: lo/n along x, y, z (0-based global indices) and order = dimensions from
 * fastest to slowest in memory: input {0,1,2} (x, y, z), output {0,2,1} (x, z, y), or
 * {0,1,2} with option output_order=natural, or the user's boxes (nbfft_plan_create_boxes).
 * Element (x,y,z) is at (x-lo[o0]) ... see docs/layout.md. Any pointer may be NULL. */
nbfft_status nbfft_plan_box(nbfft_plan plan, nbfft_layout layout, int64_t lo[3], int64_t n[3], int order[3]);
/* The box of another rank of the plan's communicator (no communication). */
nbfft_status nbfft_plan_box_of(nbfft_plan plan, nbfft_layout layout, int rank, int64_t lo[3], int64_t n[3],
                               int order[3]);
/* Global grid, process grid M1 x M2 (either pointer may be NULL). */
nbfft_status nbfft_plan_grid(nbfft_plan plan, int64_t n[3], int* m1, int* m2);
/* Elements of this rank's input / output box (real for r2c input, complex otherwise). */
nbfft_status nbfft_plan_counts(nbfft_plan plan, int64_t* in_count, int64_t* out_count);
/* Bytes of the input box, the output box, an in-place buffer (any may be NULL). */
nbfft_status nbfft_plan_bytes(nbfft_plan plan, size_t* in_bytes, size_t* out_bytes, size_t* inplace_bytes);

/* The element types of the input and output layouts (1 complex, 0 real: an r2c plan whose
 * every axis is r2r, option "kinds", is real both ways) and the bytes of one real (8, 4). */
nbfft_status nbfft_plan_elements(nbfft_plan plan, int* in_complex, int* out_complex, int* real_bytes);

/* Transforms: element types are the plan's (double/float, real for r2c input). Sizes in
 * bytes; in == out is in place (the buffer must hold inplace_bytes). With option "kinds"
 * making every axis r2r (e.g. "dct2,dct2,dst1") an r2c plan is real in and real out. */
nbfft_status nbfft_forward(nbfft_plan plan, const void* in, size_t in_bytes, void* out, size_t out_bytes);
nbfft_status nbfft_backward(nbfft_plan plan, const void* in, size_t in_bytes, void* out, size_t out_bytes);
/* nv fields, field k from in[k] to out[k]; sizes are per field; nv must agree on all ranks. */
nbfft_status nbfft_forward_many(nbfft_plan plan, size_t nv, const void* const* in, size_t in_bytes,
                                void* const* out, size_t out_bytes);
nbfft_status nbfft_backward_many(nbfft_plan plan, size_t nv, const void* const* in, size_t in_bytes,
                                 void* const* out, size_t out_bytes);
/* nv fields back to back in one buffer each (field k at k*in_bytes / k*out_bytes of the
 * single-field sizes; in place: k*inplace_bytes). Sizes are the whole buffers. */
nbfft_status nbfft_forward_batch(nbfft_plan plan, size_t nv, const void* in, size_t in_bytes, void* out,
                                 size_t out_bytes);
nbfft_status nbfft_backward_batch(nbfft_plan plan, size_t nv, const void* in, size_t in_bytes, void* out,
                                  size_t out_bytes);

/* Split phase: runs the transform up to its first exchange, starts it and returns at once
 * with *request; nbfft_wait finishes it (the result is in out only then). Do your own work
 * in between: with transport "...@thread" the exchange moves meanwhile; with the caller
 * engine call nbfft_progress (or nbfft_test) now and then. in and out must stay allocated,
 * and in unchanged, until the wait. Arguments as nbfft_forward. Collective: every rank starts
 * in the same order, and waits backward transforms in the same order (their wait runs the
 * second exchange); a forward wait is local, except on a device plan ("device=cuda"), whose
 * waits are all collective (docs/gpu.md). Any number may be in flight (the plan makes a
 * work area for each one more in flight at once, up to 64). A plan with transforms not yet
 * waited for is not destroyed: nbfft_plan_destroy answers NBFFT_INVALID_STATE. */
nbfft_status nbfft_forward_start(nbfft_plan plan, const void* in, size_t in_bytes, void* out, size_t out_bytes,
                                 nbfft_request* request);
nbfft_status nbfft_backward_start(nbfft_plan plan, const void* in, size_t in_bytes, void* out, size_t out_bytes,
                                  nbfft_request* request);

/* Requests, from any *_start of the C API (transforms of 3-D and N-D plans, transposes,
 * background writes). nbfft_progress gives what is in flight a host progress pass; nbfft_test
 * does so and sets *done (may be NULL) to 1 once it has arrived (nbfft_wait is still needed:
 * a transform has stages left to run). Both local. nbfft_wait finishes the operation, frees
 * the request and sets *request = NULL; whether it is collective is the start's rule (its
 * header says). A wait the ranks refuse (they waited out of step: NBFFT_RANKS_DISAGREE)
 * leaves the request to be waited for again. NULL or already waited for:
 * NBFFT_INVALID_STATE. nbfft_request_free drops a request unwaited (NULL ok; sets
 * *request = NULL): a transform or transpose is finished there as its wait would (collective
 * where the wait is), a background write completes this rank's part and nbfft_h5_close
 * reports its error. */
nbfft_status nbfft_progress(nbfft_request request);
nbfft_status nbfft_test(nbfft_request request, int* done);
nbfft_status nbfft_wait(nbfft_request* request);
nbfft_status nbfft_request_free(nbfft_request* request);

/* One option of the plan as made: proc_grid resolved and, with tune (below), the tuner's
 * choice. As nbfft_options_get. Not collective. */
nbfft_status nbfft_plan_option(nbfft_plan plan, const char* key, char* buffer, size_t size, size_t* needed);

/* ---- plan-time tuning (docs/fft.md "Tuning") ----
 * Options tune=quick|thorough|exhaustive (tune_budget, tune_fields, tune_wisdom, tune_log)
 * make nbfft_plan_create time candidate configurations first and build the fastest:
 *   nbfft_options_set(o, "tune", "quick");  nbfft_options_set(o, "tune_budget", "5");
 *   nbfft_plan_create(MPI_COMM_WORLD, n, o, &p);           (collective; seconds)
 *   nbfft_plan_option(p, "col_transport", buf, sizeof buf, NULL);   (what was chosen)
 * The report of what was tried and chosen, as text ("" when the plan was not tuned);
 * NUL-terminated and cut to size bytes, *needed (may be NULL) = full length + 1. */
nbfft_status nbfft_plan_tune_report(nbfft_plan plan, char* buffer, size_t size, size_t* needed);
/* What the tuner does, as it does it: one record per event, on every rank (the values
 * agree across ranks). The strings live for the call only. */
typedef enum { NBFFT_TUNE_START = 0, NBFFT_TUNE_TRIAL = 1, NBFFT_TUNE_DONE = 2 } nbfft_tune_event;
typedef struct {
  nbfft_tune_event kind;
  int trial;          /* TRIAL: its number from 1; DONE: how many ran */
  int planned;        /* trials the search expects (an estimate) */
  double seconds;     /* TRIAL: per forward+backward, < 0 when it cannot be planned here; DONE: the choice's */
  double elapsed;     /* seconds since tuning began */
  double budget;      /* tune_budget */
  double eta;         /* seconds still to go, estimated */
  int from_wisdom;    /* DONE: 1 when answered from memory or the wisdom file */
  const char* step;   /* TRIAL: "untuned", "grid", "transport", "chunks", "fields", "exhaustive", "runoff" */
  const char* options; /* TRIAL: the candidate's tuned options; DONE: the choice ("proc_grid=1x2 ...") */
  const char* line;   /* the record as one line of text (what tune_log prints on rank 0's stderr) */
} nbfft_tune_record;
typedef void (*nbfft_tune_log_fn)(const nbfft_tune_record* record, void* user);
/* Installs fn (NULL: none) for every later tuning in this process; not collective. fn must
 * not call nbfft or MPI on the plan's communicator. */
nbfft_status nbfft_set_tune_log(nbfft_tune_log_fn fn, void* user);

/* For language bindings: collective over the plan's communicator. error = this rank's
 * message ("" or NULL: none); if any rank has one, every rank returns
 * NBFFT_INVALID_ARGUMENT with "<what>: <lowest failing rank's message> [rank r]". */
nbfft_status nbfft_plan_agree(nbfft_plan plan, const char* what, const char* error);
/* The same over a Fortran communicator handle, for a binding's own checks of a create call's
 * arguments before the object exists (a Fortran n(:) without 3 entries). Collective. */
nbfft_status nbfft_comm_agree_f(MPI_Fint comm, const char* what, const char* error);

/* Wavenumbers of this rank's output box along x, y, z (numpy's fftfreq*n; x of r2c:
 * rfftfreq*n), times 2*pi/length[d]; length NULL = 2*pi (integers). An r2r axis (option
 * "kinds") gives pi/length[d] times k, k+1 or k+1/2 by kind (docs/fft.md "Transform
 * kinds"). kx holds the output box's n[0] values, ky n[1], kz n[2]. Not collective. */
nbfft_status nbfft_wavenumbers(nbfft_plan plan, const double length[3], double* kx, double* ky, double* kz);

/* Whole fields on one rank: the global array is x fastest, then y, then z, of the layout's
 * elements (nx*ny*nz input, xc*ny*nz complex output; xc = nx/2+1 for r2c). global and
 * global_bytes matter on root only. Collective. */
nbfft_status nbfft_gather(nbfft_plan plan, nbfft_layout layout, const void* local, size_t local_bytes,
                          void* global, size_t global_bytes, int root);
nbfft_status nbfft_scatter(nbfft_plan plan, nbfft_layout layout, const void* global, size_t global_bytes,
                           void* local, size_t local_bytes, int root);

/* FFTW wisdom (collective): save after planning, load before. *found (may be NULL) is 0
 * when the file does not exist (not an error); a file that is not nbfft wisdom: IO error. */
nbfft_status nbfft_wisdom_save(MPI_Comm comm, const char* path);
nbfft_status nbfft_wisdom_load(MPI_Comm comm, const char* path, int* found);

#ifdef __cplusplus
}
#endif

#include <nbfft/nbfft_h5.h> /* fields to disk and back: nbfft_h5_open, _write, _read, ... */
/* The pencil transposes (nbfft_pencils, nbfft_transpose_*): docs/fft.md. */
#include <nbfft/nbfft_transpose.h>
/* N-D arrays along chosen axes (nbfft_nd_plan_*): docs/nd.md. */
#include <nbfft/nbfft_nd.h>

#endif /* NBFFT_NBFFT_H */
