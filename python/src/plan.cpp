// nbfft._core.Plan: nbfft::fft::Plan on raw buffers. The Python class nbfft.Plan checks
// dtypes, shapes and contiguity (collectively) and passes each array with the number of
// bytes it may use; here only the pointers are taken, with the GIL released.
#include "common.hpp"

#include "nbfft/coll/engine.hpp"
#include "nbfft/fft/field.hpp"
#include "nbfft/fft/option_table.hpp"
#include "nbfft/nd/options_text.hpp"
#include "nbfft/fft/plan.hpp"
#include "nbfft/fft/tune.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <sstream>
#include <tuple>
#include <vector>

namespace nbfft::py {

namespace {

using Array = nb::ndarray<nb::device::cpu>;
using ConstArray = nb::ndarray<nb::ro, nb::device::cpu>;
using BoxTuple = std::tuple<std::array<std::int64_t, 3>, std::array<std::int64_t, 3>, std::array<int, 3>>;

// The direction of the bindings' `forward` flag.
fft::Direction direction(bool forward) { return forward ? fft::Direction::Forward : fft::Direction::Backward; }

nb::dict options_dict(const fft::Options& o);

// What plan-time tuning tried and chose (None when the plan was not tuned).
nb::object report_dict(const fft::Plan& plan) {
  const fft::TuneReport* r = plan.tune_report();
  if (!r) return nb::none();
  nb::dict d;
  d["chosen"] = options_dict(r->chosen);
  d["from_wisdom"] = r->from_wisdom;
  d["tuning_seconds"] = r->tuning_seconds;
  d["best_seconds"] = r->best_seconds;
  d["budget_exhausted"] = r->budget_exhausted;
  d["key"] = r->key;
  nb::list trials;
  for (const auto& t : r->trials) {
    nb::dict x;
    x["step"] = t.step;
    x["seconds"] = t.seconds;
    x["search_seconds"] = t.search_seconds;
    x["options"] = options_dict(t.options);
    trials.append(x);
  }
  d["trials"] = trials;
  std::ostringstream text;
  text << *r;
  d["text"] = text.str();
  return d;
}

class PyPlan {
 public:
  // log: called with (kind, fields) for each of the tuner's events while this plan is made
  // (Options::tune), or None.
  // boxes: the user's (in, out) boxes (Plan's box constructor), or nullptr for none.
  using UserBoxes = std::pair<std::optional<fft::Box3>, std::optional<fft::Box3>>;
  PyPlan(std::uint64_t handle, std::array<std::int64_t, 3> n, const fft::Options& o, nb::object log,
         const UserBoxes* boxes = nullptr) {
    check_mpi_running("Plan");
    MPI_Comm comm = comm_from_handle(handle);
    TuneLogScope scope(o.tune != fft::TuneEffort::None ? std::move(log) : nb::none());
    {
      nb::gil_scoped_release release;  // planning is collective and may take seconds
      plan_ = boxes ? std::make_unique<fft::Plan>(comm, n, boxes->first, boxes->second, o)
                    : std::make_unique<fft::Plan>(comm, n, o);
      check_mpi(MPI_Comm_dup(comm, &check_), "MPI_Comm_dup");
    }
  }
  ~PyPlan() { close(); }

  void close() {
    if (mpi_finalized()) {
      // Too late to free MPI objects; leak them rather than call MPI after MPI_Finalize.
      (void)plan_.release();
      check_ = MPI_COMM_NULL;
      return;
    }
    plan_.reset();
    free_comm(check_);
  }
  bool closed() const { return !plan_; }

  const fft::Plan& plan() const {
    if (!plan_) throw Error("Plan: used after close()", ErrorCode::InvalidState);
    return *plan_;
  }

  std::pair<int, std::string> agree(int kind, const std::string& message) const {
    plan();
    nb::gil_scoped_release release;
    return agree_on(check_, kind, message);
  }

  void run(fft::Direction d, const ConstArray& in, std::size_t in_b, const Array& out, std::size_t out_b) const {
    const fft::Plan& p = plan();
    const void* i = in.data();
    void* o = out.data();
    nb::gil_scoped_release release;
    p.transform_bytes(d, i, in_b, o, out_b);
  }

  // Split phase: on a work area of the plan's pool (fft::Plan::start_bytes without one).
  PyRequest* start(fft::Direction d, const ConstArray& in, std::size_t in_b, const Array& out,
                   std::size_t out_b) const {
    const fft::Plan& p = plan();
    const void* i = in.data();
    void* o = out.data();
    Request r;
    {
      nb::gil_scoped_release release;
      r = p.start_bytes(d, i, in_b, o, out_b);
    }
    return new PyRequest(std::move(r), nb::none());
  }

  void run_many(fft::Direction d, const std::vector<ConstArray>& in, std::size_t in_b, const std::vector<Array>& out,
                std::size_t out_b) const {
    const fft::Plan& p = plan();
    std::vector<const void*> ip;
    std::vector<void*> op;
    for (const auto& a : in) ip.push_back(a.data());
    for (const auto& a : out) op.push_back(a.data());
    if (ip.size() != op.size())
      throw Error(std::string(fft::name(d)) + "_many: " + std::to_string(ip.size()) +
                  " input fields but " + std::to_string(op.size()) + " output fields");
    nb::gil_scoped_release release;
    p.transform_many_bytes(d, ip.size(), ip.data(), in_b, op.data(), out_b);
  }

  // Whole fields to and from root through fft::gather_bytes / scatter_bytes (64-bit sizes,
  // one message per rank), on the plan's own communicator so the point-to-point messages
  // cannot meet the caller's. `global` matters on root only (None elsewhere).
  void gather(bool output, const ConstArray& local, const std::optional<Array>& global, int root) const {
    const fft::Plan& p = plan();
    void* g = global ? global->data() : nullptr;
    const std::size_t g_b = global ? global->nbytes() : 0;
    nb::gil_scoped_release release;
    fft::gather_bytes(check_, p, layout(output), local.data(), local.nbytes(), g, g_b, root);
  }
  void scatter(bool output, const std::optional<ConstArray>& global, const Array& local, int root) const {
    const fft::Plan& p = plan();
    const void* g = global ? global->data() : nullptr;
    const std::size_t g_b = global ? global->nbytes() : 0;
    nb::gil_scoped_release release;
    fft::scatter_bytes(check_, p, layout(output), g, g_b, local.data(), local.nbytes(), root);
  }

  static BoxTuple box(const fft::Box3& b) { return {b.lo, b.n, b.order}; }

  std::string options_str() const {
    std::ostringstream s;
    s << plan().options();
    return s.str();
  }

 private:
  static fft::Layout layout(bool output) { return output ? fft::Layout::Output : fft::Layout::Input; }

  std::unique_ptr<fft::Plan> plan_;
  MPI_Comm check_ = MPI_COMM_NULL;  // the plan's own communicator: argument agreement, gather/scatter
};

// Options from (key, value) words of the option table, applied in order (a shorthand such
// as col_kernel after the rows it sets).
fft::Options make_options(const std::vector<std::pair<std::string, std::string>>& items) {
  fft::Options o;
  for (const auto& [k, v] : items) fft::set_option(o, k, v);
  return o;
}

// A row's value as Python sees it: an int or bool row as int or bool, the rest as str.
nb::object typed_value(const fft::OptionRow& r, const std::string& v) {
  if (r.type == fft::OptionType::Int) return nb::int_(std::stol(v));
  if (r.type == fft::OptionType::Bool) return nb::bool_(v == "true");
  if (r.type == fft::OptionType::Real) return nb::float_(std::stod(v));
  return nb::str(v.c_str());
}

nb::object option_value(const fft::OptionRow& r, const fft::Options& o) { return typed_value(r, r.get(o)); }

// A word of row r (its example) as Python sees it, read back by a plan it applies to.
nb::object option_value_text(const fft::OptionRow& r, const char* word) {
  if (!r.set) {
    nd::Options o;
    nd::set_option(o, r.key, word);
    return typed_value(r, nd::get_option(o, r.key));
  }
  fft::Options o;
  fft::set_option(o, r.key, word);
  return option_value(r, o);
}

// The 3-D plan's options (the rows that have a 3-D field).
nb::dict options_dict(const fft::Options& o) {
  nb::dict d;
  for (const auto& r : fft::option_rows())
    if (r.get) d[r.key] = option_value(r, o);
  return d;
}

}  // namespace

const fft::Plan& plan_of(nb::handle plan) { return nb::cast<const PyPlan&>(plan).plan(); }

void bind_plan(nb::module_& m) {
  using namespace nb::literals;
  nb::class_<PyPlan>(m, "Plan")
      .def(
          "__init__",
          [](PyPlan* self, std::uint64_t handle, std::array<std::int64_t, 3> n,
             const std::vector<std::pair<std::string, std::string>>& options, nb::object log,
             std::optional<BoxTuple> in_box, std::optional<BoxTuple> out_box, bool user_boxes) {
            // Options are parsed on every rank before the collective constructor; the
            // Python layer has already agreed that every rank's words are valid.
            // Boxes (lo, n, order) in x, y, z terms; user_boxes: the box constructor.
            auto box = [](const std::optional<BoxTuple>& b) -> std::optional<fft::Box3> {
              if (!b) return std::nullopt;
              fft::Box3 x;
              x.lo = std::get<0>(*b);
              x.n = std::get<1>(*b);
              x.order = std::get<2>(*b);
              return x;
            };
            const PyPlan::UserBoxes boxes{box(in_box), box(out_box)};
            new (self) PyPlan(handle, n, make_options(options), std::move(log), user_boxes ? &boxes : nullptr);
          },
          "comm_handle"_a, "n"_a, "options"_a, "log"_a = nb::none(), "in_box"_a = nb::none(),
          "out_box"_a = nb::none(), "user_boxes"_a = false)
      .def("close", &PyPlan::close)
      .def_prop_ro("closed", &PyPlan::closed)
      .def("agree", &PyPlan::agree, "kind"_a, "message"_a)
      .def(
          "forward",
          [](const PyPlan& p, ConstArray in, std::size_t in_b, Array out, std::size_t out_b) {
            p.run(fft::Direction::Forward, in, in_b, out, out_b);
          },
          "a"_a.noconvert(), "a_bytes"_a, "out"_a.noconvert(), "out_bytes"_a)
      .def(
          "backward",
          [](const PyPlan& p, ConstArray in, std::size_t in_b, Array out, std::size_t out_b) {
            p.run(fft::Direction::Backward, in, in_b, out, out_b);
          },
          "a"_a.noconvert(), "a_bytes"_a, "out"_a.noconvert(), "out_bytes"_a)
      // Arrays given by address (device arrays through __cuda_array_interface__, nbfft/_plan.py).
      .def(
          "transform_ptr",
          [](const PyPlan& p, bool forward, std::uintptr_t in, std::size_t in_b, std::uintptr_t out,
             std::size_t out_b) {
            const fft::Plan& plan = p.plan();
            nb::gil_scoped_release release;
            plan.transform_bytes(direction(forward), reinterpret_cast<const void*>(in), in_b,
                                 reinterpret_cast<void*>(out), out_b);
          },
          "forward"_a, "a"_a, "a_bytes"_a, "out"_a, "out_bytes"_a)
      .def(
          "transform_many_ptr",
          [](const PyPlan& p, bool forward, const std::vector<std::uintptr_t>& in, std::size_t in_b,
             const std::vector<std::uintptr_t>& out, std::size_t out_b) {
            const fft::Plan& plan = p.plan();
            std::vector<const void*> ip;
            std::vector<void*> op;
            for (auto a : in) ip.push_back(reinterpret_cast<const void*>(a));
            for (auto a : out) op.push_back(reinterpret_cast<void*>(a));
            nb::gil_scoped_release release;
            plan.transform_many_bytes(direction(forward), ip.size(), ip.data(), in_b, op.data(), out_b);
          },
          "forward"_a, "a"_a, "a_bytes"_a, "out"_a, "out_bytes"_a)
      .def(
          "start_ptr",
          [](const PyPlan& p, bool forward, std::uintptr_t in, std::size_t in_b, std::uintptr_t out,
             std::size_t out_b) {
            const fft::Plan& plan = p.plan();
            Request r;
            {
              nb::gil_scoped_release release;
              r = plan.start_bytes(direction(forward), reinterpret_cast<const void*>(in), in_b,
                                   reinterpret_cast<void*>(out), out_b);
            }
            return new PyRequest(std::move(r), nb::none());
          },
          "forward"_a, "a"_a, "a_bytes"_a, "out"_a, "out_bytes"_a, nb::rv_policy::take_ownership)
      .def(
          "start",
          [](const PyPlan& p, bool forward, ConstArray in, std::size_t in_b, Array out, std::size_t out_b) {
            return p.start(direction(forward), in, in_b, out, out_b);
          },
          "forward"_a, "a"_a.noconvert(), "a_bytes"_a, "out"_a.noconvert(), "out_bytes"_a,
          nb::rv_policy::take_ownership)
      .def(
          "forward_many",
          [](const PyPlan& p, const std::vector<ConstArray>& in, std::size_t in_b, const std::vector<Array>& out,
             std::size_t out_b) { p.run_many(fft::Direction::Forward, in, in_b, out, out_b); },
          "a"_a.noconvert(), "a_bytes"_a, "out"_a.noconvert(), "out_bytes"_a)
      .def(
          "backward_many",
          [](const PyPlan& p, const std::vector<ConstArray>& in, std::size_t in_b, const std::vector<Array>& out,
             std::size_t out_b) { p.run_many(fft::Direction::Backward, in, in_b, out, out_b); },
          "a"_a.noconvert(), "a_bytes"_a, "out"_a.noconvert(), "out_bytes"_a)
      .def("gather", &PyPlan::gather, "output"_a, "local"_a.noconvert(), "global_"_a.noconvert().none(), "root"_a)
      .def("scatter", &PyPlan::scatter, "output"_a, "global_"_a.noconvert().none(), "local"_a.noconvert(), "root"_a)
      .def_prop_ro("in_box", [](const PyPlan& p) { return PyPlan::box(p.plan().in_box()); })
      .def_prop_ro("out_box", [](const PyPlan& p) { return PyPlan::box(p.plan().out_box()); })
      .def_prop_ro("physical_size", [](const PyPlan& p) { return p.plan().physical_size(); })
      .def_prop_ro("in_bytes", [](const PyPlan& p) { return p.plan().in_bytes(); })
      .def_prop_ro("out_bytes", [](const PyPlan& p) { return p.plan().out_bytes(); })
      .def_prop_ro("inplace_bytes", [](const PyPlan& p) { return p.plan().inplace_bytes(); })
      .def_prop_ro("workspace_bytes", [](const PyPlan& p) { return p.plan().workspace_bytes(); })
      .def_prop_ro("lean_workspace", [](const PyPlan& p) { return p.plan().lean_workspace(); })
      .def_prop_ro("m1", [](const PyPlan& p) { return p.plan().m1(); })
      .def_prop_ro("m2", [](const PyPlan& p) { return p.plan().m2(); })
      .def_prop_ro("options_str", &PyPlan::options_str)
      .def_prop_ro("options", [](const PyPlan& p) { return options_dict(p.plan().options()); })
      .def_prop_ro("tune_report", [](const PyPlan& p) { return report_dict(p.plan()); });

  // The option table (fft/option_table.hpp), so that Python's keyword arguments and
  // plan.options follow it without a Python edit per option.
  m.def("option_rows", [] {
    nb::list rows;
    const fft::Options defaults;
    for (const auto& r : fft::option_rows()) {
      nb::dict d;
      d["key"] = r.key;
      d["type"] = fft::name(r.type);
      d["allowed"] = r.allowed;
      d["doc"] = r.doc;
      d["agreed"] = r.agreed;
      d["tuned"] = r.tuned;
      d["shorthand"] = r.shorthand;
      d["tuning"] = r.tuning;
      d["lo"] = r.lo;
      d["hi"] = r.hi;
      d["aliases"] = r.aliases;
      d["scope"] = fft::name(r.scope);  // "all", "3-D" or "N-D": the plans it applies to
      d["example"] = option_value_text(r, r.example);
      // The default of the 3-D plan (of N-D plans for a row of theirs only), and of N-D plans.
      const nd::Options nd_defaults;
      d["default"] = r.get ? option_value(r, defaults) : typed_value(r, nd::get_option(nd_defaults, r.key));
      d["nd_default"] = fft::applies_to_nd(r.scope) ? typed_value(r, nd::get_option(nd_defaults, r.key)) : nb::none();
      rows.append(d);
    }
    return rows;
  });
  // The thread level of a plan with these options (key, value words): the rule C and
  // Fortran reach through nbfft_required_thread_level.
  m.def(
      "options_thread_level",
      [](const std::vector<std::pair<std::string, std::string>>& options) {
        return fft::required_thread_level(make_options(options));
      },
      "options"_a);
  // Parses value for key on default options: raises the table's InvalidArgument or passes.
  m.def(
      "check_option",
      [](const std::string& key, const std::string& value) {
        fft::Options o;
        fft::set_option(o, key, value);
      },
      "key"_a, "value"_a);
  // The same for an N-D plan (nd::set_option: its rows of the one table).
  m.def(
      "check_nd_option",
      [](const std::string& key, const std::string& value) {
        nd::Options o;
        nd::set_option(o, key, value);
      },
      "key"_a, "value"_a);
  // The word the table reads back after setting value (its canonical spelling).
  m.def(
      "option_value",
      [](const std::string& key, const std::string& value) {
        fft::Options o;
        fft::set_option(o, key, value);
        return fft::get_option(o, key);
      },
      "key"_a, "value"_a);
}

}  // namespace nbfft::py
