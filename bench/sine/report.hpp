// nbfft-sine's output: the phase tables, the summary, seed 000's Table II per process
// grid, and one bench/common JsonRecord per run (each carrying the resolved plan).
#pragma once

#include "bench/common/json.hpp"
#include "bench/sine/measure.hpp"

#include <string>
#include <vector>

namespace nbfft::sine {

struct Report {
  const SineArgs& args;
  const std::vector<Result>& results;
  const std::vector<Reference>& refs;
  const std::vector<std::string>& skipped;
  int ranks;
  std::size_t process_peak_rss = 0;  // bytes per rank, max over ranks: every run at once

  void print() const;                          // rank 0
  std::vector<bench::JsonRecord> records() const;
  int check_errors() const;                    // 1 when a run's max error exceeds the tolerance

 private:
  const Result* blocking_of(const Result& r) const;  // the blocking run of r's process grid
  Alone alone_of(const Result& r) const;              // fastest exchanges alone on r's grid
  bool table_row_of(const Result& r, TableRow& row) const;
  double gflops(const Result& r) const;
  void print_table2(const Result& blocking) const;
  void print_summary() const;
  void print_tuned_memory() const;  // each tuned run's peak against the default plan's
  std::string describe(const Result& r) const;  // "nbfft's default plan (1x4, blocking)"
};

}  // namespace nbfft::sine
