/* The checks tests/capi/capi_h5.c and capi_h5_view.c share: each counts its failures in the
 * including file's `failures` and prints them with the including file's `rank`, so a test
 * sums `failures` over the ranks at the end. */
#ifndef NBFFT_TESTS_CAPI_H5_EXPECT_H
#define NBFFT_TESTS_CAPI_H5_EXPECT_H

#include <nbfft/nbfft.h>

#include <stdio.h>
#include <string.h>

static int rank = -1, size = 0, failures = 0;

/* A call that must give status `want` (nbfft_last_error() printed when it does not). */
#define EXPECT(call, want)                                                                                   \
  do {                                                                                                       \
    nbfft_status st_ = (call);                                                                               \
    if (st_ != (want)) {                                                                                     \
      fprintf(stderr, "rank %d: line %d: %s gave %d (%s), expected %d: %s\n", rank, __LINE__, #call, (int)st_, \
              nbfft_status_string(st_), (int)(want), nbfft_last_error());                                    \
      ++failures;                                                                                            \
    }                                                                                                        \
  } while (0)
/* A condition, with a printf-style account of what went wrong. */
#define CHECK(cond, ...)                                        \
  do {                                                          \
    if (!(cond)) {                                              \
      fprintf(stderr, "rank %d: line %d: ", rank, __LINE__);    \
      fprintf(stderr, __VA_ARGS__);                             \
      fprintf(stderr, "\n");                                    \
      ++failures;                                               \
    }                                                           \
  } while (0)
/* The last error's message names `text`. */
#define EXPECT_MSG(text)                                                                             \
  CHECK(strstr(nbfft_last_error(), text) != NULL, "message '%s' lacks '%s'", nbfft_last_error(), text)

#endif
