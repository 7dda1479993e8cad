/* nbfft_version, nbfft_version_numbers and nbfft_build_info: one version everywhere (the
 * library's numbers, its string and the headers' macros agree), and a build-info buffer API
 * that reports the length it needs and never writes past the size it is given, before
 * MPI_Init, while MPI runs (then it names the thread level provided) and after MPI_Finalize.
 * Exit code: 0 when every check passed on this rank. */
#include <nbfft/nbfft.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond, ...)                                      \
  do {                                                        \
    if (!(cond)) {                                            \
      fprintf(stderr, "line %d: %s: ", __LINE__, #cond);      \
      fprintf(stderr, __VA_ARGS__);                           \
      fprintf(stderr, "\n");                                  \
      ++failures;                                             \
    }                                                         \
  } while (0)

/* The whole text, asked for by size first; NULL on failure (counted). */
static char* build_info(void) {
  size_t n = 0, again = 0;
  char* text;
  nbfft_status st = nbfft_build_info(NULL, 0, &n);
  CHECK(st == NBFFT_SUCCESS && n > 1, "size query: status %d, n %zu: %s", (int)st, n, nbfft_last_error());
  if (st != NBFFT_SUCCESS || n < 2) return NULL;
  text = malloc(n);
  st = nbfft_build_info(text, n, &again);
  CHECK(st == NBFFT_SUCCESS && again == n && strlen(text) == n - 1, "full copy: status %d, %zu vs %zu", (int)st,
        again, n);
  return text;
}

/* Every cut leaves the bytes past `size` alone and a NUL at the end of what fits. */
static void check_cuts(const char* full) {
  const size_t len = strlen(full);
  const size_t sizes[] = {1, 2, 7, len / 2, len, len + 1, len + 40};
  char buf[4096 + 64];
  size_t i, needed;
  CHECK(len + 64 < sizeof buf, "build info longer than this test's buffer (%zu)", len);
  if (len + 64 >= sizeof buf) return;
  for (i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    const size_t s = sizes[i], kept = s - 1 < len ? s - 1 : len;
    size_t j;
    memset(buf, '#', sizeof buf);
    needed = 0;
    CHECK(nbfft_build_info(buf, s, &needed) == NBFFT_SUCCESS, "size %zu: %s", s, nbfft_last_error());
    CHECK(needed == len + 1, "size %zu: needed %zu, expected %zu", s, needed, len + 1);
    CHECK(memcmp(buf, full, kept) == 0 && buf[kept] == '\0', "size %zu: wrong prefix or no NUL", s);
    for (j = s; j < sizeof buf; ++j)
      if (buf[j] != '#') break;
    CHECK(j == sizeof buf, "size %zu: wrote byte %zu past the buffer", s, j);
  }
  /* size 0 writes nothing at all, even with a buffer. */
  memset(buf, '#', 8);
  CHECK(nbfft_build_info(buf, 0, NULL) == NBFFT_SUCCESS && buf[0] == '#', "size 0 wrote");
  CHECK(nbfft_build_info(NULL, 8, &needed) == NBFFT_INVALID_ARGUMENT, "NULL buffer with size 8 was accepted");
  CHECK(strstr(nbfft_last_error(), "buffer") != NULL, "the error does not name the buffer: %s", nbfft_last_error());
}

static void check_text(const char* text, const char* provided) {
  char want[64];
  const char* lines[] = {"MPI library: ", "MPI thread level: ", "local FFT backends: ", "build: ", "engines: ",
                         "transports: ", "algorithms: "};
  size_t i;
  snprintf(want, sizeof want, "nbfft: %s\n", nbfft_version());
  CHECK(strncmp(text, want, strlen(want)) == 0, "does not start with '%s': %.60s", want, text);
  for (i = 0; i < sizeof lines / sizeof lines[0]; ++i) CHECK(strstr(text, lines[i]) != NULL, "no '%s' line", lines[i]);
  CHECK(strstr(text, provided) != NULL, "no '%s' in: %s", provided, text);
  CHECK(strstr(text, "pairwise") && strstr(text, "thread") && strstr(text, "blocking"), "registry entries missing");
}

int main(int argc, char** argv) {
  int major = -1, minor = -1, patch = -1, provided = 0, rank = 0;
  char numbers[64], line[96];
  char* text;

  CHECK(nbfft_version_numbers(&major, &minor, &patch) == NBFFT_SUCCESS, "%s", nbfft_last_error());
  CHECK(major == NBFFT_VERSION_MAJOR && minor == NBFFT_VERSION_MINOR && patch == NBFFT_VERSION_PATCH,
        "library %d.%d.%d, headers %d.%d.%d", major, minor, patch, NBFFT_VERSION_MAJOR, NBFFT_VERSION_MINOR,
        NBFFT_VERSION_PATCH);
  snprintf(numbers, sizeof numbers, "%d.%d.%d", major, minor, patch);
  CHECK(strcmp(numbers, nbfft_version()) == 0 && strcmp(NBFFT_VERSION_STRING, numbers) == 0,
        "'%s' vs '%s' vs '%s'", numbers, nbfft_version(), NBFFT_VERSION_STRING);
  CHECK(nbfft_version_numbers(NULL, NULL, NULL) == NBFFT_SUCCESS, "NULL pointers refused");

  text = build_info(); /* before MPI_Init */
  if (text) check_text(text, "provided MPI not running"), check_cuts(text), free(text);

  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  text = build_info();
  snprintf(line, sizeof line, "provided %s", provided == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE"
                                             : provided == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                                             : provided == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
                                                                                 : "MPI_THREAD_SINGLE");
  if (text) {
    check_text(text, line);
    if (rank == 0) fputs(text, stdout);
    free(text);
  }
  MPI_Finalize();
  text = build_info(); /* after MPI_Finalize */
  if (text) check_text(text, "provided MPI not running"), free(text);
  if (failures) fprintf(stderr, "rank %d: %d check(s) failed\n", rank, failures);
  return failures ? 1 : 0;
}
