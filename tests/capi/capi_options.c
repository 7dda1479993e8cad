/* The C face of the option table: every key nbfft_options_key lists round-trips through
 * nbfft_options_get / nbfft_options_set (the value read back is the value set), every key
 * that is not a shorthand appears in nbfft_options_string as key=value, a bad value fails
 * naming the key, and the keys of the C API before the table (and '-' spellings) still
 * work. Local calls only; MPI is initialized because the library's handles need it. */
#include <nbfft/nbfft.h>

#include <stdio.h>
#include <string.h>

#include "capi_check.h"

int main(int argc, char** argv) {
  static const char* const legacy[] = {"precision",   "transform",        "norm",      "proc_grid",
                                       "transport",   "row_transport",    "col_transport", "effort",
                                       "progress_chunks", "col_chunk_planes", "col_depth", "col_kernel",
                                       "fields_in_flight", "allow_empty",  "lean_workspace", "pipeline_row"};
  nbfft_options o = NULL;
  char value[256], again[256], line[2048], want[300];
  size_t needed = 0, i;
  int k, count = 0;
  MPI_Init(&argc, &argv);
  CHECK(nbfft_options_create(&o) == NBFFT_SUCCESS, "create: %s", nbfft_last_error());

  for (k = 0; nbfft_options_key(k); ++k) {
    const char* key = nbfft_options_key(k);
    const char* v = nbfft_options_example(k);
    ++count;
    CHECK(nbfft_options_doc(k) && strlen(nbfft_options_doc(k)) > 10, "%s: no description", key);
    CHECK(nbfft_options_get(o, key, value, sizeof value, &needed) == NBFFT_SUCCESS, "get %s: %s", key,
          nbfft_last_error());
    CHECK(needed == strlen(value) + 1, "get %s: needed %zu for '%s'", key, needed, value);
    /* The default read back and set again changes nothing. */
    CHECK(nbfft_options_set(o, key, value) == NBFFT_SUCCESS, "set %s '%s': %s", key, value, nbfft_last_error());
    CHECK(nbfft_options_get(o, key, again, sizeof again, NULL) == NBFFT_SUCCESS && strcmp(value, again) == 0,
          "%s: '%s' set, '%s' read back", key, value, again);
    CHECK(v != NULL && strcmp(v, value) != 0, "%s: the example '%s' is the default", key, v ? v : "(null)");
    if (!v) continue;
    CHECK(nbfft_options_set(o, key, v) == NBFFT_SUCCESS, "set %s '%s': %s", key, v, nbfft_last_error());
    CHECK(nbfft_options_get(o, key, again, sizeof again, NULL) == NBFFT_SUCCESS, "get %s", key);
    CHECK(strcmp(again, v) == 0 || strstr(again, v) == again, "%s: '%s' set, '%s' read back", key, v, again);
    /* A bad value fails and names the key (a text row, a path, takes any word). */
    CHECK(nbfft_options_type(k) != NULL, "%s: no type", key);
    if (strcmp(nbfft_options_type(k), "text") != 0) {
      CHECK(nbfft_options_set(o, key, "no-such-value") == NBFFT_INVALID_ARGUMENT, "%s took 'no-such-value'", key);
      CHECK(strstr(nbfft_last_error(), key) != NULL, "%s: error does not name the key: %s", key, nbfft_last_error());
    }
    /* The printout carries every row that is not a shorthand. */
    CHECK(nbfft_options_string(o, line, sizeof line, NULL) == NBFFT_SUCCESS, "string");
    CHECK(nbfft_options_get(o, key, again, sizeof again, NULL) == NBFFT_SUCCESS, "get %s", key);
    snprintf(want, sizeof want, "%s=%s", key, again);
    if (strcmp(key, "transport") != 0 && strcmp(key, "col_kernel") != 0)
      CHECK(strstr(line, want) != NULL, "'%s' is not in the printout: %s", want, line);
  }
  CHECK(count >= 16, "only %d keys", count);
  CHECK(nbfft_options_key(-1) == NULL && nbfft_options_doc(count) == NULL, "keys past the end");

  /* The keys of the C API before the table, and the command line's '-' spelling. */
  for (i = 0; i < sizeof legacy / sizeof legacy[0]; ++i)
    CHECK(nbfft_options_get(o, legacy[i], value, sizeof value, NULL) == NBFFT_SUCCESS &&
              nbfft_options_set(o, legacy[i], value) == NBFFT_SUCCESS,
          "key %s: %s", legacy[i], nbfft_last_error());
  CHECK(nbfft_options_set(o, "fields-in-flight", "3") == NBFFT_SUCCESS, "'-' spelling: %s", nbfft_last_error());
  CHECK(nbfft_options_get(o, "fields_in_flight", value, sizeof value, NULL) == NBFFT_SUCCESS &&
            strcmp(value, "3") == 0,
        "fields-in-flight set %s", value);
  CHECK(nbfft_options_set(o, "fields_in_flight", "65") == NBFFT_INVALID_ARGUMENT &&
            strstr(nbfft_last_error(), "1..64") != NULL,
        "fields_in_flight 65: %s", nbfft_last_error());
  CHECK(nbfft_options_get(o, "no_such_key", value, sizeof value, NULL) == NBFFT_INVALID_ARGUMENT &&
            strstr(nbfft_last_error(), "pipeline_row") != NULL,
        "unknown key: %s", nbfft_last_error());
  /* NULL options read the defaults. */
  CHECK(nbfft_options_get(NULL, "norm", value, sizeof value, NULL) == NBFFT_SUCCESS && strcmp(value, "backward") == 0,
        "default norm %s", value);

  nbfft_options_destroy(&o);
  MPI_Finalize();
  if (failures) fprintf(stderr, "capi.options: %d failure(s)\n", failures);
  return failures ? 1 : 0;
}
