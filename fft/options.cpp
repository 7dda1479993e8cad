#include "nbfft/fft/options.hpp"

#include "nbfft/fft/option_table.hpp"

#include "nbfft/error.hpp"
#include "fft/text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <climits>
#include <vector>
#include <string>

namespace nbfft::fft {

Options& Options::transport(std::string_view name) {
  row_transport = coll::Transport::parse(name);
  col_transport = row_transport;
  return *this;
}

const char* name(Precision p) { return p == Precision::Double ? "double" : "single"; }
const char* name(TransformKind t) { return t == TransformKind::R2C ? "r2c" : "c2c"; }
const char* name(Norm n) {
  switch (n) {
    case Norm::None: return "none";
    case Norm::Backward: return "backward";
    case Norm::Forward: return "forward";
    case Norm::Ortho: return "ortho";
  }
  return "?";
}
const char* name(Effort e) {
  switch (e) {
    case Effort::Estimate: return "estimate";
    case Effort::Measure: return "measure";
    case Effort::Patient: return "patient";
    case Effort::Exhaustive: return "exhaustive";
  }
  return "?";
}

const char* name(TuneEffort e) {
  switch (e) {
    case TuneEffort::None: return "none";
    case TuneEffort::Quick: return "quick";
    case TuneEffort::Thorough: return "thorough";
    case TuneEffort::Exhaustive: return "exhaustive";
  }
  return "?";
}

const char* name(OutputOrder o) { return o == OutputOrder::Natural ? "natural" : "transposed"; }
const char* name(DeviceExchange e) {
  switch (e) {
    case DeviceExchange::Ipc: return "ipc";
    case DeviceExchange::Mpi: return "mpi";
    case DeviceExchange::Nccl: return "nccl";
    default: return "staged";
  }
}
const char* name(Device d) { return d == Device::Cuda ? "cuda" : d == Device::Emulated ? "emulated" : "host"; }

const std::vector<ColKernel>& col_kernels() {
  static const std::vector<ColKernel> table = {
      {"replace", "replace", true, "MPI_Sendrecv_replace with each peer, per plane"},
      {"standard", "standard", true, "blocking MPI_Send / MPI_Recv with each peer, per plane"},
      {"overlap", "linear", true, "MPI_Isend / MPI_Irecv per plane, completed after the next plane"},
      {"oneplane", "blocking", true, "MPI_Alltoallv per plane"},
      {"allplanes", "blocking", false, "one MPI_Alltoallv of all planes"},
  };
  return table;
}

const ColKernel& find_col_kernel(std::string_view s) {
  const std::string l = lower_case(s);
  std::string known;
  for (const auto& k : col_kernels()) {
    if (l == k.name) return k;
    known += known.empty() ? "" : ", ";
    known += k.name;
  }
  throw Error("unknown COL kernel '" + std::string(s) + "' (use " + known + ")");
}

Options& Options::col_kernel(std::string_view name) {
  const ColKernel& k = find_col_kernel(name);
  col_transport = coll::Transport::parse(std::string(k.algorithm) + "@caller");
  col_transport.label = k.name;
  col_chunk_planes = k.per_plane ? std::max(1, col_chunk_planes) : 0;
  col_depth = k.per_plane ? 1 : 0;
  return *this;
}

Precision parse_precision(std::string_view s) {
  const std::string l = lower_case(s);
  if (l == "double" || l == "d" || l == "fp64") return Precision::Double;
  if (l == "single" || l == "float" || l == "s" || l == "fp32") return Precision::Single;
  throw Error("unknown precision '" + std::string(s) + "' (use double or single)");
}

TransformKind parse_transform(std::string_view s) {
  const std::string l = lower_case(s);
  if (l == "r2c" || l == "c2r" || l == "real") return TransformKind::R2C;
  if (l == "c2c" || l == "complex") return TransformKind::C2C;
  throw Error("unknown transform '" + std::string(s) + "' (use r2c or c2c)");
}

Norm parse_norm(std::string_view s) {
  const std::string l = lower_case(s);
  if (l == "none") return Norm::None;
  if (l == "backward") return Norm::Backward;
  if (l == "forward") return Norm::Forward;
  if (l == "ortho") return Norm::Ortho;
  throw Error("unknown normalization '" + std::string(s) +
              "' (use none, backward, forward or ortho)");
}

const char* name(Backend b) {
  switch (b) {
    case Backend::Auto: return "auto";
    case Backend::Fftw: return "fftw";
    case Backend::Mkl: return "mkl";
  }
  return "?";
}

Backend parse_backend(std::string_view s) {
  const std::string l = lower_case(s);
  for (Backend b : {Backend::Auto, Backend::Fftw, Backend::Mkl})
    if (l == name(b)) return b;
  throw Error("unknown local FFT backend '" + std::string(s) + "' (use auto, fftw or mkl)");
}

StageBackends parse_backends(std::string_view s) {
  const std::vector<std::string_view> parts = split_commas(s);
  if (parts.size() != 1 && parts.size() != 3)
    throw Error("backend '" + std::string(s) + "': give one backend for every stage or three (x,y,z), e.g. fftw,mkl,mkl");
  if (parts.size() == 1) {
    const Backend b = parse_backend(parts[0]);
    return {b, b, b};
  }
  return {parse_backend(parts[0]), parse_backend(parts[1]), parse_backend(parts[2])};
}

std::string backends_str(const StageBackends& b) {
  if (b[0] == b[1] && b[1] == b[2]) return name(b[0]);
  return std::string(name(b[0])) + "," + name(b[1]) + "," + name(b[2]);
}

Effort parse_effort(std::string_view s) {
  const std::string l = lower_case(s);
  if (l == "estimate") return Effort::Estimate;
  if (l == "measure") return Effort::Measure;
  if (l == "patient") return Effort::Patient;
  if (l == "exhaustive") return Effort::Exhaustive;
  throw Error("unknown planner effort '" + std::string(s) +
              "' (use estimate, measure, patient or exhaustive)");
}

TuneEffort parse_tune_effort(std::string_view s) {
  const std::string l = lower_case(s);
  if (l == "none") return TuneEffort::None;
  if (l == "quick") return TuneEffort::Quick;
  if (l == "thorough") return TuneEffort::Thorough;
  if (l == "exhaustive") return TuneEffort::Exhaustive;
  throw Error("unknown tuning effort '" + std::string(s) + "' (use none, quick, thorough or exhaustive)");
}

OutputOrder parse_output_order(std::string_view s) {
  const std::string l = lower_case(s);
  if (l == "transposed") return OutputOrder::Transposed;
  if (l == "natural") return OutputOrder::Natural;
  throw Error("unknown output order '" + std::string(s) + "' (use transposed or natural)");
}

Device parse_device(std::string_view s) {
  const std::string l = lower_case(s);
  if (l == "host" || l == "cpu") return Device::Host;
  if (l == "cuda" || l == "gpu") return Device::Cuda;
  if (l == "emulated") return Device::Emulated;
  throw Error("unknown device '" + std::string(s) + "' (use host, cuda or emulated)");
}

DeviceExchange parse_device_exchange(std::string_view s) {
  const std::string l = lower_case(s);
  if (l == "staged") return DeviceExchange::Staged;
  if (l == "ipc") return DeviceExchange::Ipc;
  if (l == "mpi" || l == "cuda-aware") return DeviceExchange::Mpi;
  if (l == "nccl") return DeviceExchange::Nccl;
  throw Error("unknown device exchange '" + std::string(s) + "' (use staged, ipc, mpi or nccl)");
}

std::pair<int, int> parse_proc_grid(std::string_view s, int least) {
  const std::string t(s);
  const auto x = t.find_first_of("xX");
  auto bad = [&]() {
    return Error("bad process grid '" + t + "' (expected M1xM2 with " +
                 (least > 0 ? std::string("positive integers") : "integers >= " + std::to_string(least)) +
                 ", e.g. 2x4)");
  };
  if (x == std::string::npos || x == 0 || x + 1 >= t.size() || t.size() > 16) throw bad();
  for (std::size_t i = 0; i < t.size(); ++i)  // digits only: no signs or spaces strtol would skip
    if (i != x && !std::isdigit(static_cast<unsigned char>(t[i]))) throw bad();
  char* end = nullptr;
  const long a = std::strtol(t.c_str(), &end, 10);
  if (end != t.c_str() + x) throw bad();
  const long b = std::strtol(t.c_str() + x + 1, &end, 10);
  if (*end != '\0') throw bad();
  if (a < least || b < least || a > 1 << 20 || b > 1 << 20) throw bad();
  return {static_cast<int>(a), static_cast<int>(b)};
}

std::vector<int> parse_ranks_per_axis(std::string_view s) {
  const std::string v(s);
  if (v.empty() || v == "auto") return {};
  std::vector<int> g;
  std::size_t at = 0;
  while (true) {
    const std::size_t x = v.find('x', at);
    const std::string part = v.substr(at, x == std::string::npos ? std::string::npos : x - at);
    char* end = nullptr;
    const long n = part.empty() ? 0 : std::strtol(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || n < 1 || n > INT_MAX)
      throw Error("not ranks per axis (auto, or integers >= 1 joined by x, e.g. 2x3x1)");
    g.push_back(static_cast<int>(n));
    if (x == std::string::npos) break;
    at = x + 1;
  }
  return g;
}

// Every option of the table (fft/option_table.cpp), key=value, in its order.
std::ostream& operator<<(std::ostream& os, const Options& o) {
  const char* sep = "";
  // The tuner's own settings only when it ran: they do not change what a plan does.
  bool (*keep)(const OptionRow&) = nullptr;
  if (o.tune == TuneEffort::None) keep = [](const OptionRow& r) { return !r.tuning; };
  for (const auto& [k, v] : option_values(o, keep)) {
    os << sep << k << "=" << v;
    sep = " ";
  }
  return os;
}

}  // namespace nbfft::fft
