/* nbfft_nd.h: N-D arrays transformed along chosen axes (nbfft::nd::Plan, docs/nd.md) in C.
 * Included by nbfft.h.
 *
 *   int64_t shape[3] = {nz, ny, nx};   int axes[2] = {0, 2};      (numpy order, as rfftn)
 *   nbfft_nd_plan p;
 *   nbfft_nd_plan_create(MPI_COMM_WORLD, 3, shape, 2, axes, "norm=ortho", &p);
 *   int64_t lo[3], n[3], nin, nout;
 *   nbfft_nd_plan_box(p, NBFFT_LAYOUT_INPUT, lo, n);    (this rank's block, C order)
 *   nbfft_nd_plan_counts(p, &nin, &nout);
 *   nbfft_nd_forward(p, u, nin * sizeof(double), uh, nout * 2 * sizeof(double));
 *   nbfft_nd_backward(p, uh, nout * 2 * sizeof(double), u, nin * sizeof(double));
 *   nbfft_nd_plan_destroy(&p);
 *
 * Conventions are numpy's: shape lists axes slowest first; each rank's block is a C-order
 * array of its box's extents (last axis fastest); negative axes count from the end. With
 * kind=r2c the last axis listed is the real one and becomes n/2+1 in the spectrum; axes
 * not listed are carried along untouched. Every function returns an nbfft_status and
 * leaves a message in nbfft_last_error(), as the rest of the C API; collective calls fail
 * on every rank together.
 */
#ifndef NBFFT_NBFFT_ND_H
#define NBFFT_NBFFT_ND_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nbfft_nd_plan_s* nbfft_nd_plan; /* opaque */

/* Collective. An N-D plan from an options handle, as nbfft_plan_create makes a 3-D one (the
 * one convention: nbfft_options_set / nbfft_options_parse fill the handle; NULL: defaults).
 * shape: ndim extents; axes: naxes axes to transform (NULL: every axis, naxes ignored). The
 * handle's keys that apply to N-D plans are read (nbfft_options_scope: "all" or "N-D"); a
 * key set that applies to the 3-D plan only, or a value an N-D plan cannot take, is
 * NBFFT_INVALID_ARGUMENT on every rank naming it. Errors otherwise as nbfft_nd_plan_create. */
nbfft_status nbfft_plan_create_nd(MPI_Comm comm, int ndim, const int64_t* shape, int naxes, const int* axes,
                                  nbfft_options options, nbfft_nd_plan* plan);
/* With user boxes, as nbfft_nd_plan_create_boxes. */
nbfft_status nbfft_plan_create_nd_boxes(MPI_Comm comm, int ndim, const int64_t* shape, int naxes, const int* axes,
                                        const int64_t* in_lo, const int64_t* in_n, const int64_t* out_lo,
                                        const int64_t* out_n, nbfft_options options, nbfft_nd_plan* plan);
/* The two with a Fortran communicator handle and the binding's own error, for language
 * bindings (as nbfft_nd_plan_create_f). */
nbfft_status nbfft_plan_create_nd_f(MPI_Fint comm, int ndim, const int64_t* shape, int naxes, const int* axes,
                                    nbfft_options options, const char* error, nbfft_nd_plan* plan);
nbfft_status nbfft_plan_create_nd_boxes_f(MPI_Fint comm, int ndim, const int64_t* shape, int naxes, const int* axes,
                                          const int64_t* in_lo, const int64_t* in_n, const int64_t* out_lo,
                                          const int64_t* out_n, nbfft_options options, const char* error,
                                          nbfft_nd_plan* plan);

/* The same with the options as text, a shorthand for an options handle filled by
 * nbfft_options_parse: NULL or "key=value" pairs separated by blanks (docs/nd.md "Options"):
 *   transform (or kind) r2c|c2c   norm backward|forward|ortho|none   effort estimate|measure|...
 *   proc_grid (or grid) auto|AxBx...  (ranks per axis, axis 0 first)   transport blocking|pairwise:4@thread|...
 *   precision double|single   kinds periodic|K1,K2,... (one per listed axis: periodic, dct1..dst4)
 *   batch_axis none|A  (a batch of fields along axis A, numpy order: each slice a field,
 *                       whole on every rank, pipelined; not among axes)   fields_in_flight N
 *   output_order natural|transposed  (transposed: the two slowest transformed axes trade
 *                       places in the spectrum's memory, FFTW-MPI's transposed out; faster)
 * An unknown key or value, an axis out of range or repeated, a shape that cannot be split
 * over the ranks: NBFFT_INVALID_ARGUMENT on every rank naming it; ranks passing different
 * arguments: NBFFT_RANKS_DISAGREE. */
nbfft_status nbfft_nd_plan_create(MPI_Comm comm, int ndim, const int64_t* shape, int naxes, const int* axes,
                                  const char* options, nbfft_nd_plan* plan);
/* The same with a Fortran communicator handle, for language bindings: error (NULL or "":
 * none) is the binding's own finding about its arguments, failing every rank with the
 * lowest failing rank's message before anything else (the Fortran module's, in its order). */
nbfft_status nbfft_nd_plan_create_f(MPI_Fint comm, int ndim, const int64_t* shape, int naxes, const int* axes,
                                    const char* options, const char* error, nbfft_nd_plan* plan);
/* User boxes (docs/nd.md "Your own blocks"): this rank's block of the input array (in_lo,
 * in_n) and of the spectrum (out_lo, out_n), ndim entries each, numpy axis order, C-order
 * blocks; the blocks of all ranks must tile each array (empty ones allowed). Every transform
 * then takes and gives arrays in these blocks (nbfft_nd_plan_box and _counts report them);
 * the plan moves them to and from its own blocks by one all-to-all each way. A side's lo and
 * n both NULL: the plan's own block. Blocks outside the array, overlapping or leaving
 * points out: NBFFT_INVALID_ARGUMENT on every rank naming the rank(s). */
nbfft_status nbfft_nd_plan_create_boxes(MPI_Comm comm, int ndim, const int64_t* shape, int naxes, const int* axes,
                                        const int64_t* in_lo, const int64_t* in_n, const int64_t* out_lo,
                                        const int64_t* out_n, const char* options, nbfft_nd_plan* plan);
/* The same with a Fortran communicator handle and the binding's own error (as _create_f). */
nbfft_status nbfft_nd_plan_create_boxes_f(MPI_Fint comm, int ndim, const int64_t* shape, int naxes, const int* axes,
                                          const int64_t* in_lo, const int64_t* in_n, const int64_t* out_lo,
                                          const int64_t* out_n, const char* options, const char* error,
                                          nbfft_nd_plan* plan);
/* Sets *plan = NULL; NULL ok. Collective. NBFFT_INVALID_STATE, the plan kept, while split-
 * phase transforms of it are not yet waited for (nbfft_nd_wait). */
nbfft_status nbfft_nd_plan_destroy(nbfft_nd_plan* plan);

/* The number of axes, the number transformed, and the transformed axes (non-negative, as
 * listed; axes may be NULL). Local. */
nbfft_status nbfft_nd_plan_axes(nbfft_nd_plan plan, int* ndim, int* naxes, int* axes);
/* The global shapes of the input and of the spectrum (ndim values each; either may be NULL). */
nbfft_status nbfft_nd_plan_shape(nbfft_nd_plan plan, int64_t* in_shape, int64_t* out_shape);
/* This rank's box of the input (NBFFT_LAYOUT_INPUT) or of the spectrum (_OUTPUT): global
 * offset lo and extent n along each axis (ndim values; either may be NULL), stored in C
 * order. _of: another rank's (no communication). */
nbfft_status nbfft_nd_plan_box(nbfft_nd_plan plan, nbfft_layout layout, int64_t* lo, int64_t* n);
nbfft_status nbfft_nd_plan_box_of(nbfft_nd_plan plan, nbfft_layout layout, int rank, int64_t* lo, int64_t* n);
/* The spectrum's axes in memory order, slowest first (ndim values): 0, 1, ..., ndim-1 in
 * natural order; with output_order=transposed two of them traded. A rank's spectrum block
 * is a C array of extents n[order[0]], n[order[1]], ... (n from nbfft_nd_plan_box). Local. */
nbfft_status nbfft_nd_plan_out_order(nbfft_nd_plan plan, int* order);
/* Elements of this rank's input (real for r2c, complex for c2c) and spectrum (complex, or
 * real when every listed axis has a sine/cosine kind); float or double by precision. */
nbfft_status nbfft_nd_plan_counts(nbfft_nd_plan plan, int64_t* in_count, int64_t* out_count);
/* Memory on this rank: the bytes of one array that serves a call in place (input and output
 * the same array: fewer copies; the only way a lean plan runs), the plan's own work arrays
 * (exchange buffers not counted), and whether it got the lean workspace it was asked for
 * ("lean_workspace=true": then every call must run in place). Any pointer may be NULL. Local. */
nbfft_status nbfft_nd_plan_memory(nbfft_nd_plan plan, size_t* inplace_bytes, size_t* workspace_bytes, int* lean);
/* 1 when the input is complex (kind=c2c), 0 when real (r2c); the spectrum is complex. */
nbfft_status nbfft_nd_plan_elements(nbfft_nd_plan plan, int* in_complex);
/* The element types of the input and of the spectrum (1 complex, 0 real: a spectrum is real
 * when every listed axis has a sine/cosine kind) and the bytes of one real (8 double, 4
 * single); any pointer may be NULL. As nbfft_plan_elements. Local. */
nbfft_status nbfft_nd_plan_element_types(nbfft_nd_plan plan, int* in_complex, int* out_complex, int* real_bytes);
/* The options as made ("kind=r2c norm=backward ... grid=1x2x1 ...", the grid as chosen; with
 * "tune=quick" among the options, the tuner's grid, transport and fields_in_flight) and
 * the plan's description (grids and steps), NUL-terminated and cut to size bytes; *needed
 * (may be NULL) = full length + 1. Local. */
nbfft_status nbfft_nd_plan_options(nbfft_nd_plan plan, char* buffer, size_t size, size_t* needed);
nbfft_status nbfft_nd_plan_describe(nbfft_nd_plan plan, char* buffer, size_t size, size_t* needed);

/* Collective transforms. in_bytes and out_bytes must be exactly this rank's box in bytes
 * (8 per real, 16 per complex element; 4 and 8 with precision=single); anything else fails every rank
 * saying what the plan needs. The input is left unchanged; in and out must not overlap,
 * unless in == out: in place (the input overwritten, fewer copies; a lean_workspace plan runs
 * only so), where either size may also be the in-place array's, at least the inplace_bytes
 * of nbfft_nd_plan_memory. */
nbfft_status nbfft_nd_forward(nbfft_nd_plan plan, const void* in, size_t in_bytes, void* out, size_t out_bytes);
nbfft_status nbfft_nd_backward(nbfft_nd_plan plan, const void* in, size_t in_bytes, void* out, size_t out_bytes);

/* This rank's number and the number of ranks of the plan's communicator. Local. */
nbfft_status nbfft_nd_plan_rank(nbfft_nd_plan plan, int* rank, int* size);

/* ---- whole arrays and wavenumbers (docs/nd.md "Gather / scatter and wavenumbers") ----
 * The global array is C order (axis 0 slowest) of the input's shape (NBFFT_LAYOUT_INPUT)
 * or the spectrum's (NBFFT_LAYOUT_OUTPUT: the whole rfftn / fftn, in natural order even
 * when output_order=transposed); a rank's block is as the transforms read and write it.
 * local_bytes must be exactly this rank's block, global_bytes exactly the whole array
 * where it matters: on root, or on every rank when root is NBFFT_EVERY_RANK (gather only;
 * elsewhere global may be NULL). Any bad argument on any rank (a size, a NULL buffer, a
 * root, a layout) fails every rank with NBFFT_INVALID_ARGUMENT naming it. Collective. */
#define NBFFT_EVERY_RANK (-1)
nbfft_status nbfft_nd_gather(nbfft_nd_plan plan, nbfft_layout layout, const void* local, size_t local_bytes,
                             void* global, size_t global_bytes, int root);
nbfft_status nbfft_nd_scatter(nbfft_nd_plan plan, nbfft_layout layout, const void* global, size_t global_bytes,
                              void* local, size_t local_bytes, int root);
/* Wavenumbers of this rank's spectrum block along one transformed axis (numpy order,
 * negative from the end): k[m] belongs to global index lo[axis] + m of the output box, and
 * count must be exactly its extent n[axis] (nbfft_nd_plan_box). Periodic axes: 2*pi/length
 * times numpy's fftfreq(n)*n (rfftfreq on the r2c axis); sine/cosine kinds: pi/length times
 * k, k+1 or k+1/2 by kind. length is the box's length along the axis (> 0; 2*pi gives the
 * integers). An axis not transformed has none: NBFFT_INVALID_ARGUMENT. Local. */
nbfft_status nbfft_nd_wavenumbers(nbfft_nd_plan plan, int axis, double length, double* k, size_t count);

/* ---- several fields, split phase (docs/nd.md "Several fields, split phase and a batch axis") ----
 * nv fields through one pipeline, field k from in[k] to out[k]; in_bytes and out_bytes are
 * per field, exactly this rank's blocks as for nbfft_nd_forward. Results equal nv one-field
 * calls bit for bit. nv must be the same on every rank (else NBFFT_RANKS_DISAGREE); NULL
 * arrays, fields sharing an output, wrong sizes: NBFFT_INVALID_ARGUMENT on every rank.
 * Collective. */
nbfft_status nbfft_nd_forward_many(nbfft_nd_plan plan, size_t nv, const void* const* in, size_t in_bytes,
                                   void* const* out, size_t out_bytes);
nbfft_status nbfft_nd_backward_many(nbfft_nd_plan plan, size_t nv, const void* const* in, size_t in_bytes,
                                    void* const* out, size_t out_bytes);
/* Split phase: runs the transform up to its first exchange, starts it and returns at once
 * with *pending, an nbfft_request (nbfft.h): nbfft_wait, or nbfft_nd_wait, finishes it (the
 * result is in out only then). in and out must stay allocated, and in unchanged, until the
 * wait. Collective (every rank starts in the same order); arguments as nbfft_nd_forward.
 * Other calls of the plan may run meanwhile. */
typedef nbfft_request nbfft_nd_pending; /* the earlier name of a request from these starts */
nbfft_status nbfft_nd_forward_start(nbfft_nd_plan plan, const void* in, size_t in_bytes, void* out, size_t out_bytes,
                                    nbfft_nd_pending* pending);
nbfft_status nbfft_nd_backward_start(nbfft_nd_plan plan, const void* in, size_t in_bytes, void* out,
                                     size_t out_bytes, nbfft_nd_pending* pending);
/* nbfft_test and nbfft_wait under their earlier names. nbfft_nd_test gives the exchange in
 * flight a progress pass; *done (may be NULL) = 1 once it has arrived (the wait is still
 * needed). Local. */
nbfft_status nbfft_nd_test(nbfft_nd_pending pending, int* done);
/* Finishes the transform and frees it: *pending = NULL. Collective when the plan makes more
 * than one exchange or has a batch axis (every rank then waits its transforms in the same
 * order), else local.
 * Waiting twice (a NULL or already waited-for handle): NBFFT_INVALID_STATE. A plan with
 * transforms not yet waited for is not destroyed: nbfft_nd_plan_destroy answers
 * NBFFT_INVALID_STATE and leaves it usable. */
nbfft_status nbfft_nd_wait(nbfft_nd_pending* pending);

/* For language bindings, as nbfft_plan_agree: collective; if any rank's error is non-empty
 * every rank returns NBFFT_INVALID_ARGUMENT with the lowest failing rank's message. */
nbfft_status nbfft_nd_plan_agree(nbfft_nd_plan plan, const char* what, const char* error);

#ifdef __cplusplus
}
#endif

#endif
