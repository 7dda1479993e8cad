/* CHECK(cond, fmt, ...): the C tests' soft assertion: prints the line and the message and
 * counts a failure in `failures`, which the test reduces over the ranks at its end. */
#ifndef NBFFT_TESTS_CAPI_CHECK_H
#define NBFFT_TESTS_CAPI_CHECK_H

#include <stdio.h>

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

#endif
