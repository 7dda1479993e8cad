/* nbfft_h5.h: fields to disk and back from C (docs/io.md "C"); included by nbfft/nbfft.h.
 *
 *   nbfft_h5file f;
 *   nbfft_h5_open(MPI_COMM_WORLD, "run.h5", NBFFT_H5_MODE_CREATE, NULL, &f);        // collective
 *   nbfft_h5_write(f, plan, NBFFT_SPACE_PHYSICAL, "u", step, t, u, in_bytes);  // dataset /u/<step>
 *   nbfft_h5_close(&f);                     // flushed, closed, renamed over run.h5 only now
 *
 *   nbfft_h5_open(comm2, "run.h5", NBFFT_H5_MODE_READ, NULL, &f);  // any rank count, slab or pencil
 *   nbfft_h5_read(f, plan2, NBFFT_SPACE_PHYSICAL, "u", step, u2, in_bytes2);
 *
 * The C face of nbfft::io::H5File (nbfft/io/hdf5.hpp): one HDF5 file holding every field
 * and step as a global array in numpy's natural order (z, y, x), written and read by every
 * rank collectively, each rank its own box. Each rank passes its box in the plan's memory
 * order: the input (X-pencil) box for NBFFT_SPACE_PHYSICAL, the output (Z-pencil) box for
 * NBFFT_SPACE_SPECTRAL, of the plan's element type for that space (nbfft_plan_elements),
 * and exactly its size in bytes (nbfft_plan_bytes: in_bytes, out_bytes): another count is a
 * buffer of another type or box and NBFFT_INVALID_ARGUMENT. Every call is collective over
 * the file's communicator (the plan's, or one with the same ranks in the same order) and
 * fails on every rank with the same status; a build without parallel HDF5 answers
 * NBFFT_UNAVAILABLE from nbfft_h5_open, saying what to install.
 */
#ifndef NBFFT_NBFFT_H5_H
#define NBFFT_NBFFT_H5_H

#include <nbfft/nbfft.h>
#include <nbfft/nbfft_nd.h>        /* nbfft_nd_plan: a layout of an N-D plan */
#include <nbfft/nbfft_transpose.h> /* nbfft_pencils: a layout of a pencil */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nbfft_h5file_s* nbfft_h5file;       /* opaque */
typedef nbfft_request nbfft_h5request;           /* a background write: an nbfft_request (nbfft.h) */

/* READ: read only. CREATE: a new file, written beside `path` and renamed over it by
 * nbfft_h5_close only after every rank has written (a run that fails first leaves the
 * previous file as it was). APPEND: adds fields and steps to an nbfft file in place. */
typedef enum nbfft_h5_mode { NBFFT_H5_MODE_READ = 0, NBFFT_H5_MODE_CREATE = 1, NBFFT_H5_MODE_APPEND = 2 } nbfft_h5_mode;
/* The physical field (the plan's input layout) or its spectrum (the output layout). */
typedef enum nbfft_space { NBFFT_SPACE_PHYSICAL = 0, NBFFT_SPACE_SPECTRAL = 1 } nbfft_space;

/* *available = 1 when this nbfft was built with parallel HDF5. Local; any time. */
nbfft_status nbfft_h5_available(int* available);
/* "parallel HDF5 1.10.8 (hdf5-openmpi)", or why it is missing; as nbfft_options_string. */
nbfft_status nbfft_h5_info(char* buffer, size_t size, size_t* needed);

/* Opens `path` on every rank of comm. options: NULL or "" for the defaults, else words
 * "key=value" separated by spaces, the same on every rank (they shape what is written):
 *   alignment=BYTES align_threshold=BYTES  objects of at least the threshold start at a
 *                                          multiple of the alignment (a stripe: 1048576)
 *   chunk=ZxYxX                            chunked datasets of that shape (0x0x0: contiguous)
 *   box_lengths=Lx,Ly,Lz                   the periodic box's size along x, y, z (the run
 *                                          attribute and the XDMF spacing); 0: the file's own
 *                                          (APPEND) or 2*pi (CREATE)
 *   xdmf=0|1                               keep run.xmf beside run.h5 for ParaView (default 1)
 * Unknown keys or values: NBFFT_INVALID_ARGUMENT. The file keeps its own duplicate of comm. */
nbfft_status nbfft_h5_open(MPI_Comm comm, const char* path, nbfft_h5_mode mode, const char* options,
                           nbfft_h5file* file);
/* The same with a Fortran communicator handle (MPI_Comm_c2f / mpi_f08's %MPI_VAL). */
nbfft_status nbfft_h5_open_f(MPI_Fint comm, const char* path, nbfft_h5_mode mode, const char* options,
                             nbfft_h5file* file);
/* Commits and frees: CREATE renames the finished file over `path`. Sets *file = NULL; NULL
 * ok. Collective. On failure the handle is freed too (the previous file stays as it was). */
nbfft_status nbfft_h5_close(nbfft_h5file* file);
/* Frees without committing: an unfinished CREATE file is removed and `path` is left as it
 * was (READ and APPEND: as close). Sets *file = NULL; NULL ok. Collective. */
nbfft_status nbfft_h5_discard(nbfft_h5file* file);

/* Writes this rank's box `data` (exactly `bytes`) as dataset /<field>/<step> at physical
 * time `time`. A step the file already holds is an error. */
nbfft_status nbfft_h5_write(nbfft_h5file file, nbfft_plan plan, nbfft_space space, const char* field, int64_t step,
                            double time, const void* data, size_t bytes);
/* Reads this rank's box of /<field>/<step> into data (exactly `bytes`): the dataset must
 * hold this plan's grid, space and element type; the rank count and decomposition may be
 * anything. */
nbfft_status nbfft_h5_read(nbfft_h5file file, nbfft_plan plan, nbfft_space space, const char* field, int64_t step,
                           void* data, size_t bytes);

/* An axis of the grid: a plane x = index, y = index or z = index. */
typedef enum nbfft_axis { NBFFT_AXIS_X = 0, NBFFT_AXIS_Y = 1, NBFFT_AXIS_Z = 2 } nbfft_axis;

/* A quick look without gathering: the plane `axis` = index (0 <= index < the grid's extent
 * along that axis in `space`) of this rank's whole box `data` (exactly `bytes`, as for
 * nbfft_h5_write), as dataset /<field>/<step> of thickness 1 along the axis, with the
 * attributes kind "plane", start and stride (z, y, x). */
nbfft_status nbfft_h5_write_plane(nbfft_h5file file, nbfft_plan plan, nbfft_space space, const char* field,
                                  int64_t step, double time, nbfft_axis axis, int64_t index, const void* data,
                                  size_t bytes);
/* Every stride-th point per axis from 0 (stride[3] in x, y, z order, each >= 1): a dataset
 * of ceil(n / stride) points per axis, attribute kind "subsampled". */
nbfft_status nbfft_h5_write_subsampled(nbfft_h5file file, nbfft_plan plan, nbfft_space space, const char* field,
                                       int64_t step, double time, const int64_t stride[3], const void* data,
                                       size_t bytes);
/* Reads back what nbfft_h5_write_plane / _subsampled wrote, with the same axis and index or
 * stride, at any rank count and decomposition: `data` is this rank's whole box (exactly
 * `bytes`, as for nbfft_h5_read); its points of the plane or subsample are set and every
 * other point is left as it was (a rank whose box holds none reads nothing and still takes
 * part). The dataset must be that plane or subsample of this plan's grid, space and element
 * type (else NBFFT_INVALID_ARGUMENT naming what it is); its checksum is checked as
 * nbfft_h5_read checks a field's. */
nbfft_status nbfft_h5_read_plane(nbfft_h5file file, nbfft_plan plan, nbfft_space space, const char* field,
                                 int64_t step, nbfft_axis axis, int64_t index, void* data, size_t bytes);
nbfft_status nbfft_h5_read_subsampled(nbfft_h5file file, nbfft_plan plan, nbfft_space space, const char* field,
                                      int64_t step, const int64_t stride[3], void* data, size_t bytes);
/* The run's box lengths along x, y, z (the option box_lengths, or the file's). Local. */
nbfft_status nbfft_h5_box_lengths(nbfft_h5file file, double lengths[3]);
/* The XDMF file kept beside this one ("" with xdmf=0 or when reading), as
 * nbfft_options_string. Local. */
nbfft_status nbfft_h5_xdmf_path(nbfft_h5file file, char* buffer, size_t size, size_t* needed);

/* Writing in the background (docs/io.md "Writing in the background"): starts the write
 * nbfft_h5_write would make and returns at once with *request; the file is the one
 * nbfft_h5_write makes (non-blocking MPI-IO at the dataset's place in the file: any MPI
 * thread level). Collective, in the same order on every rank: the dataset is made here, so
 * a step already there or a wrong element type fails this call. Files with chunked
 * datasets (chunk=...) answer NBFFT_UNAVAILABLE: use nbfft_h5_write. borrow = 0 copies this
 * rank's box now (data is free at return); borrow = 1 copies nothing and data must stay
 * unchanged until nbfft_h5_wait. The plan may be destroyed once this returns.
 *
 * The completion rule (the same in C++, Fortran and Python): nbfft_h5_wait is collective,
 * but the ranks may wait for their requests in different orders. A wait settles, on every
 * rank together, every write started up to the latest one any rank is waiting for: each
 * write's bytes complete everywhere, its status is agreed, and its checksum goes into the
 * file in start order; a wait whose write an earlier wait already settled returns at once
 * without communicating. A write that failed on any rank returns the same error from its
 * wait on every rank, and a file being created is then never renamed over the previous
 * one. Each rank waits for the same requests as the others (in its own order), or frees
 * the same ones unwaited, before its next nbfft_h5_write_start or nbfft_h5_close: a rank
 * that starts a write while another waits gets NBFFT_RANKS_DISAGREE, as does the other,
 * and the file is never committed. Until every
 * write in flight is settled, no other nbfft_h5 call of this process may touch a file
 * (NBFFT_INVALID_STATE) except more nbfft_h5_write_start on the same file and
 * nbfft_h5_close, which settles them first. */
nbfft_status nbfft_h5_write_start(nbfft_h5file file, nbfft_plan plan, nbfft_space space, const char* field,
                                  int64_t step, double time, const void* data, size_t bytes, int borrow,
                                  nbfft_h5request* request);
/* For language bindings: the first collective of a binding's call `call` ("write_start")
 * over the file's ranks, before the binding's own checks (error: this rank's message, ""
 * or NULL: none; NBFFT_INVALID_ARGUMENT on every rank if any rank has one). A rank waiting
 * for a background write meets a rank in that call here: NBFFT_RANKS_DISAGREE on both, and
 * the file is never committed. */
nbfft_status nbfft_h5_agree(nbfft_h5file file, const char* call, const char* error);
/* A request from nbfft_h5_write_start is an nbfft_request: nbfft_test, nbfft_wait (which also
 * frees it) and nbfft_request_free take it. The three calls below are the earlier names.
 * *done = 1 when the write has finished (a wait is still needed); never blocks. Local;
 * NBFFT_INVALID_STATE once the request was waited for. */
nbfft_status nbfft_h5_test(nbfft_h5request request, int* done);
/* Waits for the write and returns its status (the same on every rank), leaving the request
 * to nbfft_h5_request_free. Collective, in any order (the rule above); a second wait of one
 * request is NBFFT_INVALID_STATE. */
nbfft_status nbfft_h5_wait(nbfft_h5request request);
/* Frees a request; sets *request = NULL; NULL ok. Local: a request not waited for has this
 * rank's part of its write completed here, and a failure of that write is reported by
 * nbfft_h5_close on every rank. */
nbfft_status nbfft_h5_request_free(nbfft_h5request* request);

/* ---- Layouts: any distributed array, not only a 3-D plan's (docs/io.md "Layouts") -----
 *
 *   nbfft_io_layout l;
 *   nbfft_io_layout_of_nd_plan(nd, NBFFT_SPACE_SPECTRAL, &l);   // or _of_plan, _of_pencils, _create
 *   nbfft_io_layout_bytes(l, &bytes);
 *   nbfft_h5_write_layout(f, l, "U", step, t, uh, bytes);       // restart at any rank count:
 *   nbfft_h5_read_layout(f2, l2, "U", step, uh2, bytes2);       // l2 from the new run's plan
 *
 * A layout is the global shape (axis 0 slowest: numpy's order; a 3-D plan's and a
 * pencil's are (z, y, x)), this rank's block of it (lo and n per axis, and the axes in
 * memory order, slowest first) and the element type; the file holds the global array in C
 * order whatever wrote it, so a field written through one layout reads back through any
 * other of the same shape and type. Making a layout is local and checks only its own
 * arguments (pointers, ndim, the enums); the block itself is checked by the write or read,
 * on every rank together: a block outside the shape, or blocks that do not tile the array
 * (a write), fail every rank with NBFFT_INVALID_ARGUMENT naming it. A layout holds no
 * reference to its plan or pencils: either may be destroyed first. */
typedef struct nbfft_io_layout_s* nbfft_io_layout; /* opaque */
/* The element types of a layout (as stored, no conversion). */
typedef enum nbfft_dtype {
  NBFFT_DTYPE_FLOAT64 = 0,
  NBFFT_DTYPE_FLOAT32 = 1,
  NBFFT_DTYPE_COMPLEX128 = 2,
  NBFFT_DTYPE_COMPLEX64 = 3
} nbfft_dtype;

/* A 3-D plan's physical field (its input box) or spectrum (its output box), of the plan's
 * element type there: the layout nbfft_h5_write uses, with the same attributes. */
nbfft_status nbfft_io_layout_of_plan(nbfft_plan plan, nbfft_space space, nbfft_io_layout* layout);
/* An N-D plan's input (NBFFT_SPACE_PHYSICAL: its input box of its shape) or spectrum
 * (NBFFT_SPACE_SPECTRAL: its output box of its output shape, in its memory order), of
 * the element types its transforms take. */
nbfft_status nbfft_io_layout_of_nd_plan(nbfft_nd_plan plan, nbfft_space space, nbfft_io_layout* layout);
/* A pencil of a transpose: (nz, ny, nx), this rank's box of that pencil, of `dtype`. */
nbfft_status nbfft_io_layout_of_pencils(nbfft_pencils pencils, nbfft_pencil pencil, nbfft_dtype dtype,
                                        nbfft_io_layout* layout);
/* A user's own block: ndim axes of `shape`, this rank's block lo[ndim], n[ndim] (n may
 * hold zeros: an empty block), order[ndim] the axes in memory order, slowest first (NULL:
 * C order, 0 .. ndim-1). The arrays are copied. */
nbfft_status nbfft_io_layout_create(int ndim, const int64_t* shape, const int64_t* lo, const int64_t* n,
                                    const int* order, nbfft_dtype dtype, nbfft_io_layout* layout);
/* This rank's block in bytes: what data of the calls below holds exactly. Local. */
nbfft_status nbfft_io_layout_bytes(nbfft_io_layout layout, size_t* bytes);
/* The layout's element type (for bindings that check their arrays against it). Local. */
nbfft_status nbfft_io_layout_dtype(nbfft_io_layout layout, nbfft_dtype* dtype);
/* Frees; sets *layout = NULL; NULL ok. Local. */
nbfft_status nbfft_io_layout_destroy(nbfft_io_layout* layout);

/* nbfft_h5_write, _read and _write_start through a layout: data holds this rank's block
 * in the layout's memory order, exactly nbfft_io_layout_bytes bytes. Collective over the
 * file's ranks, as the plan calls are; the request of _write_start is the same
 * nbfft_request, under the same completion rule. */
nbfft_status nbfft_h5_write_layout(nbfft_h5file file, nbfft_io_layout layout, const char* field, int64_t step,
                                   double time, const void* data, size_t bytes);
nbfft_status nbfft_h5_read_layout(nbfft_h5file file, nbfft_io_layout layout, const char* field, int64_t step,
                                  void* data, size_t bytes);
nbfft_status nbfft_h5_write_start_layout(nbfft_h5file file, nbfft_io_layout layout, const char* field,
                                         int64_t step, double time, const void* data, size_t bytes, int borrow,
                                         nbfft_request* request);

/* The file's fields, sorted, one per line ("U\nu"), as nbfft_options_string (cut to size
 * bytes, *needed = full length + 1). */
nbfft_status nbfft_h5_fields(nbfft_h5file file, char* buffer, size_t size, size_t* needed);
/* A field's steps, ascending: the first `capacity` go to steps (NULL when 0), *count (may
 * be NULL) gets how many there are. */
nbfft_status nbfft_h5_steps(nbfft_h5file file, const char* field, int64_t* steps, size_t capacity, size_t* count);
/* The physical time written with /<field>/<step>. */
nbfft_status nbfft_h5_time(nbfft_h5file file, const char* field, int64_t step, double* time);

#ifdef __cplusplus
}
#endif
#endif /* NBFFT_NBFFT_H5_H */
