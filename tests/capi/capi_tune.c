/* Plan-time tuning through the C API (option tune): a plan made with tune=quick and a small
 * budget transforms like the untuned plan (spectra gathered on rank 0 and compared), its
 * choice and report are readable, the log callback receives every trial, the wisdom file is
 * written and answers the next plan, and bad tuning settings fail on every rank (an
 * unwritable wisdom path before any trial runs). Exit code 0 when every rank passed. */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include <nbfft/nbfft.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank = -1, failures = 0;

#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      fprintf(stderr, "rank %d: FAILED: ", rank);         \
      fprintf(stderr, __VA_ARGS__);                       \
      fprintf(stderr, " (line %d)\n", __LINE__);          \
      ++failures;                                         \
    }                                                     \
  } while (0)

/* What the log callback saw. */
struct seen {
  int start, trials, done, timed, last_trial, from_wisdom;
  char options[512];
};

static void on_record(const nbfft_tune_record* r, void* user) {
  struct seen* s = (struct seen*)user;
  if (r->kind == NBFFT_TUNE_START) ++s->start;
  if (r->kind == NBFFT_TUNE_TRIAL) {
    ++s->trials;
    if (r->seconds >= 0) ++s->timed;
    if (r->trial != s->trials) s->last_trial = -1; /* numbered 1, 2, ... in order */
    if (r->eta < 0 || r->elapsed < 0 || r->budget <= 0) s->last_trial = -1;
    if (strstr(r->options, "proc_grid=") == NULL || strstr(r->line, "trial") == NULL) s->last_trial = -1;
  }
  if (r->kind == NBFFT_TUNE_DONE) {
    ++s->done;
    s->from_wisdom = r->from_wisdom;
    snprintf(s->options, sizeof s->options, "%s", r->options);
  }
}

static const int64_t n[3] = {12, 10, 9};

/* Replaces the value after `field` (up to ';') in every line of the wisdom file at path. */
static void edit_wisdom(const char* path, const char* field, const char* value) {
  static char text[1 << 16], out[1 << 16];
  size_t len, o = 0, i = 0;
  FILE* f = fopen(path, "r");
  if (!f) return;
  len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = '\0';
  while (i < len && o + strlen(value) + 1 < sizeof out) {
    if (strncmp(text + i, field, strlen(field)) == 0) {
      memcpy(out + o, field, strlen(field));
      o += strlen(field);
      memcpy(out + o, value, strlen(value));
      o += strlen(value);
      i += strlen(field);
      while (i < len && text[i] != ';') ++i;
    } else {
      out[o++] = text[i++];
    }
  }
  f = fopen(path, "w");
  if (!f) return;
  fwrite(out, 1, o, f);
  fclose(f);
}

/* The forward spectrum of f(x,y,z) = sin(x) + y*z/7 on rank 0 (xc*ny*nz complex, x fastest). */
static double* spectrum(nbfft_plan p) {
  int64_t lo[3], cnt[3], in_count = 0, out_count = 0, x, y, z;
  size_t in_b = 0, out_b = 0, i = 0;
  double *in, *out, *global = NULL;
  const size_t global_b = (size_t)(n[0] / 2 + 1) * (size_t)(n[1] * n[2]) * 2 * sizeof(double);
  nbfft_plan_box(p, NBFFT_LAYOUT_INPUT, lo, cnt, NULL);
  nbfft_plan_counts(p, &in_count, &out_count);
  nbfft_plan_bytes(p, &in_b, &out_b, NULL);
  in = malloc(in_b + 8);
  out = malloc(out_b + 16);
  for (z = lo[2]; z < lo[2] + cnt[2]; ++z)
    for (y = lo[1]; y < lo[1] + cnt[1]; ++y)
      for (x = lo[0]; x < lo[0] + cnt[0]; ++x) in[i++] = sin((double)x) + (double)(y * z) / 7.0;
  CHECK(nbfft_forward(p, in, in_b, out, out_b) == NBFFT_SUCCESS, "forward: %s", nbfft_last_error());
  if (rank == 0) global = malloc(global_b);
  CHECK(nbfft_gather(p, NBFFT_LAYOUT_OUTPUT, out, out_b, global, rank == 0 ? global_b : 0, 0) == NBFFT_SUCCESS,
        "gather: %s", nbfft_last_error());
  free(in);
  free(out);
  return global;
}

int main(int argc, char** argv) {
  nbfft_options o = NULL;
  nbfft_plan ref = NULL, tuned = NULL, again = NULL, bad = NULL;
  struct seen seen;
  char value[256], report[16384], path[256];
  double *want, *got;
  long pid;
  int size = 0;
  size_t needed = 0, k;
  FILE* f;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  pid = (long)getpid();
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD); /* one file name on every rank */
  snprintf(path, sizeof path, "/tmp/nbfft-capi-tune-%ld.txt", pid);
  memset(&seen, 0, sizeof seen);
  CHECK(nbfft_set_tune_log(on_record, &seen) == NBFFT_SUCCESS, "set_tune_log");

  nbfft_options_create(&o);
  nbfft_options_set(o, "effort", "estimate");
  CHECK(nbfft_plan_create(MPI_COMM_WORLD, n, o, &ref) == NBFFT_SUCCESS, "untuned plan: %s", nbfft_last_error());
  CHECK(seen.start == 0 && seen.trials == 0, "an untuned plan logged %d trials", seen.trials);
  CHECK(nbfft_plan_tune_report(ref, report, sizeof report, &needed) == NBFFT_SUCCESS && needed == 1 &&
            report[0] == '\0',
        "an untuned plan has an empty report");

  /* Bad settings: refused by the setter (every rank sets them alike). */
  CHECK(nbfft_options_set(o, "tune", "fast") == NBFFT_INVALID_ARGUMENT &&
            strstr(nbfft_last_error(), "'fast'") && strstr(nbfft_last_error(), "quick"),
        "tune=fast: %s", nbfft_last_error());
  CHECK(nbfft_options_set(o, "tune_budget", "-1") == NBFFT_INVALID_ARGUMENT &&
            strstr(nbfft_last_error(), "tune_budget"),
        "tune_budget=-1: %s", nbfft_last_error());
  CHECK(nbfft_options_set(o, "tune_budget", "0") == NBFFT_INVALID_ARGUMENT, "tune_budget=0 accepted");
  CHECK(nbfft_options_set(o, "tune_log", "3") == NBFFT_INVALID_ARGUMENT, "tune_log=3 accepted");

  /* An unwritable wisdom path fails every rank before the first trial. */
  nbfft_options_set(o, "tune", "quick");
  nbfft_options_set(o, "tune_budget", "30");
  nbfft_options_set(o, "tune_wisdom", "/nonexistent-nbfft-dir/tune.txt");
  CHECK(nbfft_plan_create(MPI_COMM_WORLD, n, o, &bad) == NBFFT_IO_ERROR && bad == NULL,
        "unwritable wisdom: %s", nbfft_last_error());
  CHECK(strstr(nbfft_last_error(), "/nonexistent-nbfft-dir/tune.txt") != NULL, "the message names the path: %s",
        nbfft_last_error());
  CHECK(seen.trials == 0, "%d trials ran before the unwritable wisdom path was noticed", seen.trials);

  /* tune=quick with a wisdom file. */
  nbfft_options_set(o, "tune_wisdom", path);
  CHECK(nbfft_plan_create(MPI_COMM_WORLD, n, o, &tuned) == NBFFT_SUCCESS, "tuned plan: %s", nbfft_last_error());
  CHECK(seen.start == 1 && seen.done == 1 && seen.trials >= 2 && seen.timed >= 1 && seen.last_trial == 0,
        "log records: start %d, trials %d (timed %d), done %d, order %d", seen.start, seen.trials, seen.timed,
        seen.done, seen.last_trial);
  CHECK(nbfft_plan_option(tuned, "tune", value, sizeof value, NULL) == NBFFT_SUCCESS && strcmp(value, "quick") == 0,
        "plan option tune: %s", value);
  CHECK(nbfft_plan_option(tuned, "proc_grid", value, sizeof value, NULL) == NBFFT_SUCCESS, "proc_grid");
  {
    int m1 = 0, m2 = 0;
    CHECK(sscanf(value, "%dx%d", &m1, &m2) == 2 && m1 * m2 == size, "chosen grid '%s' on %d ranks", value, size);
    snprintf(report, sizeof report, "proc_grid=%s ", value);
    CHECK(strstr(seen.options, report) == seen.options, "the done record's choice '%s' is the plan's %s",
          seen.options, report);
  }
  CHECK(nbfft_plan_option(tuned, "col_transport", value, sizeof value, NULL) == NBFFT_SUCCESS &&
            strchr(value, '@') != NULL,
        "col_transport '%s'", value);
  CHECK(nbfft_plan_option(tuned, "no_such_key", value, sizeof value, NULL) == NBFFT_INVALID_ARGUMENT,
        "unknown key on a plan");
  CHECK(nbfft_plan_tune_report(tuned, report, sizeof report, &needed) == NBFFT_SUCCESS &&
            strstr(report, "chosen:") != NULL && needed == strlen(report) + 1,
        "report: %s", report);

  want = spectrum(ref);
  got = spectrum(tuned);
  if (rank == 0) {
    double most = 0, diff = 0;
    const size_t count = (size_t)(n[0] / 2 + 1) * (size_t)(n[1] * n[2]) * 2;
    for (k = 0; k < count; ++k) {
      most = fabs(want[k]) > most ? fabs(want[k]) : most;
      diff = fabs(want[k] - got[k]) > diff ? fabs(want[k] - got[k]) : diff;
    }
    CHECK(most > 1 && diff <= 1e-12 * most, "tuned spectrum differs by %g (max %g)", diff, most);
    f = fopen(path, "r");
    CHECK(f != NULL, "the wisdom file %s was not written", path);
    if (f) {
      CHECK(fgets(value, sizeof value, f) && strncmp(value, "nbfft-tune 1", 12) == 0, "wisdom header '%s'", value);
      fclose(f);
    }
  }
  free(want);
  free(got);

  /* The file is read back: rank 0 rewrites the entry's COL transport, and the same key
   * again is answered from the file (no trials) with the edited choice. */
  if (rank == 0) edit_wisdom(path, "col_transport=", "linear@caller");
  MPI_Barrier(MPI_COMM_WORLD);
  memset(&seen, 0, sizeof seen);
  CHECK(nbfft_plan_create(MPI_COMM_WORLD, n, o, &again) == NBFFT_SUCCESS, "again: %s", nbfft_last_error());
  CHECK(seen.trials == 0 && seen.done == 1 && seen.from_wisdom == 1, "again: %d trials, from_wisdom %d", seen.trials,
        seen.from_wisdom);
  CHECK(nbfft_plan_option(again, "col_transport", value, sizeof value, NULL) == NBFFT_SUCCESS &&
            strcmp(value, "linear@caller") == 0,
        "the edited wisdom's col_transport came back as '%s'", value);
  CHECK(nbfft_plan_tune_report(again, report, sizeof report, NULL) == NBFFT_SUCCESS &&
            strstr(report, "from wisdom") != NULL,
        "again: %s", report);

  CHECK(nbfft_set_tune_log(NULL, NULL) == NBFFT_SUCCESS, "remove the hook");
  nbfft_plan_destroy(&again);
  nbfft_plan_destroy(&tuned);
  nbfft_plan_destroy(&ref);
  nbfft_options_destroy(&o);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) remove(path);
  {
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("capi_tune: %d ranks, %d failures\n", size, total);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
  }
}
