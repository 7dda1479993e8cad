// The decomposition of an N-D plan: the greedy schedule of local FFTs and exchanges for a
// grid, and the search over grids that picks one (nd/schedule.hpp).
#include "nd/schedule.hpp"

#include "nbfft/fft/box.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <tuple>

namespace nbfft::nd::detail {

int Schedule::exchanges() const {
  return static_cast<int>(std::count_if(step.begin(), step.end(), [](const Step& s) { return !s.fft; }));
}

std::vector<int> Schedule::grid(std::size_t k) const {
  const Stage& s = stage[k];
  std::vector<int> g(s.dist.size(), 1);
  for (std::size_t a = 0; a < s.dist.size(); ++a)
    if (s.dist[a] >= 0) g[a] = ranks[static_cast<std::size_t>(s.dist[a])];
  return g;
}

std::vector<int> coords_of(const std::vector<int>& ranks, int rank) {
  std::vector<int> c(ranks.size(), 0);
  for (std::size_t g = ranks.size(); g-- > 0;) {
    c[g] = rank % ranks[g];
    rank /= ranks[g];
  }
  return c;
}

Box box_at(const Stage& s, const std::vector<int>& ranks, const std::vector<int>& coords) {
  Box b;
  for (std::size_t a = 0; a < s.ext.size(); ++a) {
    fft::Range r{0, s.ext[a]};
    if (s.dist[a] >= 0) {
      const auto g = static_cast<std::size_t>(s.dist[a]);
      r = fft::split(s.ext[a], ranks[g], coords[g]);
    }
    b.lo.push_back(r.lo);
    b.n.push_back(r.n);
  }
  b.order = s.order;
  return b;
}

std::string build_schedule(const std::vector<std::int64_t>& shape, const std::vector<int>& axes, bool r2c,
                           const std::vector<int>& grid, Schedule& out, bool allow_empty, const std::vector<int>& names,
                           const std::vector<std::int64_t>& spectrum) {
  const int nd = static_cast<int>(shape.size());
  const auto padded = [&](int a) {
    return !spectrum.empty() && spectrum[static_cast<std::size_t>(a)] != shape[static_cast<std::size_t>(a)];
  };
  const auto name = [&](int a) { return names.empty() ? a : names[static_cast<std::size_t>(a)]; };
  out = Schedule{};
  Stage st{shape, std::vector<int>(shape.size(), -1), std::vector<int>(shape.size())};
  for (int a = 0; a < nd; ++a) st.order[a] = a;
  for (int a = 0; a < nd; ++a)
    if (grid[a] > 1) {
      if (grid[a] > shape[a] && !allow_empty) {
        std::ostringstream os;
        os << "axis " << name(a) << " has " << shape[a] << " points for " << grid[a] << " ranks";
        return os.str();
      }
      st.dist[a] = static_cast<int>(out.ranks.size());
      out.ranks.push_back(grid[a]);
    }
  const int r_axis = axes.back();
  if (r2c && st.dist[r_axis] >= 0)
    return "the r2c axis " + std::to_string(name(r_axis)) + " (the last periodic axis listed) must not be split at the input";
  std::vector<bool> todo(shape.size(), false), done(shape.size(), false);
  for (int a : axes) todo[a] = true;
  std::size_t left = axes.size();
  out.stage.push_back(st);
  while (true) {
    Step f;
    if (r2c && todo[r_axis] && !done[r_axis]) f.r2c = true;  // only ever in the first step
    const bool r2c_alone = f.r2c && padded(r_axis);
    for (int a : axes)
      if (st.dist[a] < 0 && !done[a] && !(r2c_alone && a != r_axis)) f.axes.push_back(a);
    if (f.r2c) {  // the r2c axis first
      f.axes.erase(std::find(f.axes.begin(), f.axes.end(), r_axis));
      f.axes.insert(f.axes.begin(), r_axis);
    }
    if (!f.axes.empty()) {
      for (int a : f.axes) {
        done[a] = true;
        --left;
      }
      if (f.r2c) st.ext[r_axis] = shape[r_axis] / 2 + 1;
      out.step.push_back(f);
      out.stage.push_back(st);
      Step rs;
      for (int a : f.axes)
        if (padded(a)) {
          rs.resize.push_back(a);
          st.ext[a] = f.r2c && a == r_axis ? spectrum[a] / 2 + 1 : spectrum[a];
        }
      if (!rs.resize.empty()) {
        out.step.push_back(rs);
        out.stage.push_back(st);
      }
    }
    if (left == 0) return "";
    if (r2c_alone) continue;  // the other whole axes in a step of their own
    // An exchange: the split axis still to transform nearest to a whole axis that can take
    // its ranks (transformed ones first: untransformed ones may be needed split later).
    // With allow_empty an axis too short for the ranks can take them, after every axis
    // long enough.
    int bi = -1, bj = -1;
    std::tuple<int, int, int, std::int64_t> best{2, 3, 0, 0};
    for (int i = 0; i < nd; ++i) {
      if (!todo[i] || done[i] || st.dist[i] < 0) continue;
      const int p = out.ranks[static_cast<std::size_t>(st.dist[i])];
      for (int j = 0; j < nd; ++j) {
        const bool short_axis = st.ext[j] < p;
        if (st.dist[j] >= 0 || (short_axis && !allow_empty)) continue;
        const int kind = done[j] ? 0 : (!todo[j] ? 1 : 2);
        if (kind == 2) continue;  // a whole axis still to transform is transformed first
        const std::tuple<int, int, int, std::int64_t> score{short_axis ? 1 : 0, kind, std::abs(i - j), -st.ext[j]};
        if (score < best) {
          best = score;
          bi = i;
          bj = j;
        }
      }
    }
    if (bi < 0) {
      std::ostringstream os;
      os << "no whole axis can take the ranks of the split axes still to transform (";
      for (int i = 0; i < nd; ++i)
        if (todo[i] && !done[i] && st.dist[i] >= 0)
          os << "axis " << name(i) << ": " << out.ranks[static_cast<std::size_t>(st.dist[i])] << " ranks; ";
      os << "the whole axes are too short)";
      return os.str();
    }
    Step x;
    x.fft = false;
    x.g = st.dist[bi];
    x.from = bi;
    x.to = bj;
    st.dist[bj] = st.dist[bi];
    st.dist[bi] = -1;
    out.step.push_back(x);
    out.stage.push_back(st);
  }
}

void transpose_output(Schedule& s, int p, int q) {
  std::vector<int> order = s.stage.front().order;
  std::swap(order[static_cast<std::size_t>(p)], order[static_cast<std::size_t>(q)]);
  std::size_t from = s.step.size();  // the first stage in the output order
  for (std::size_t k = s.step.size(); k-- > 0;)
    if (!s.step[k].fft) {
      const Step& x = s.step[k];
      if (std::min(x.from, x.to) == p && std::max(x.from, x.to) == q) from = k + 1;
      break;
    }
  if (from < s.step.size()) {
    s.step[from - 1].swap = true;  // the exchange unpacks in the output order
  } else {
    // The last step is local (a schedule ends with FFTs): its FFT along p, unless the r2c's
    // own axis, runs after a swap step, on p moved to q's faster place.
    const std::size_t k = s.step.size() - 1;
    if (!s.step[k].resize.empty()) {  // a padded plan's last resize: the swap alone after it (a copy)
      Step swap;
      swap.swap = true;
      s.step.push_back(swap);
      s.stage.push_back(s.stage.back());
      s.stage.back().order = order;
      return;
    }
    Step& last = s.step[k];
    Stage mid = s.stage[k + 1];  // between the FFTs before the swap and the swap
    Step swap;
    swap.swap = true;
    Step after;
    auto at = std::find(last.axes.begin(), last.axes.end(), p);
    if (at != last.axes.end() && !(last.r2c && at == last.axes.begin())) {
      last.axes.erase(at);
      after.axes = {p};
    }
    std::size_t next = k + 1;
    if (last.axes.empty()) {  // p was its only axis: the swap replaces it
      s.step.erase(s.step.begin() + static_cast<std::ptrdiff_t>(k));
      s.stage.erase(s.stage.begin() + static_cast<std::ptrdiff_t>(k + 1));
      next = k;
    }
    // Local steps other than an r2c leave the extents and the grid as they are: every stage
    // from the one before `next` on is `mid`, in one order or the other.
    s.step.insert(s.step.begin() + static_cast<std::ptrdiff_t>(next), swap);
    s.stage.insert(s.stage.begin() + static_cast<std::ptrdiff_t>(next) + 1, mid);
    if (!after.axes.empty()) {
      s.step.push_back(after);
      s.stage.push_back(mid);
    }
    from = next + 1;
  }
  for (std::size_t k = from; k < s.stage.size(); ++k) s.stage[k].order = order;
}

void split_for_lanes(Schedule& s) {
  for (std::size_t k = 0; k < s.step.size(); ++k) {
    const Step& st = s.step[k];
    if (!st.ffts() || st.axes.size() < 2) continue;
    const Stage& after = s.stage[k + 1];
    const auto listed = [&](int a) { return std::find(st.axes.begin(), st.axes.end(), a) != st.axes.end(); };
    bool chunkable = false;
    for (std::size_t a = 0; a < after.ext.size(); ++a)
      chunkable = chunkable || (after.ext[a] > 1 && !listed(static_cast<int>(a)));
    if (chunkable) continue;
    int slow = -1;
    for (int a : after.order)
      if (slow < 0 && listed(a) && !(st.r2c && a == st.axes.front())) slow = a;
    Step rest = st, alone;
    rest.axes.erase(std::find(rest.axes.begin(), rest.axes.end(), slow));
    alone.axes = {slow};
    s.step[k] = rest;
    s.step.insert(s.step.begin() + static_cast<std::ptrdiff_t>(k) + 1, alone);
    s.stage.insert(s.stage.begin() + static_cast<std::ptrdiff_t>(k) + 1, Stage(after));
    ++k;
  }
}

namespace {

// Every grid (ranks per axis, product `left`) with at most `shape[a]` ranks on axis a (any
// number with allow_empty).
void grids(const std::vector<std::int64_t>& shape, std::size_t a, int left, std::vector<int>& g,
           std::vector<std::vector<int>>& all, bool allow_empty) {
  if (a == shape.size()) {
    if (left == 1) all.push_back(g);
    return;
  }
  for (int p = 1; p <= left; ++p) {
    if (left % p != 0 || (p > shape[a] && !allow_empty)) continue;
    g[a] = p;
    grids(shape, a + 1, left / p, g, all, allow_empty);
  }
  g[a] = 1;
}

// Ranks that hold no point at some stage of a schedule.
int empty_ranks(const Schedule& s) {
  int most = 0;
  for (const Stage& st : s.stage) {
    long long holding = 1, all = 1;
    for (std::size_t a = 0; a < st.ext.size(); ++a)
      if (st.dist[a] >= 0) {
        const int p = s.ranks[static_cast<std::size_t>(st.dist[a])];
        all *= p;
        holding *= std::min<std::int64_t>(p, st.ext[a]);
      }
    most = std::max(most, static_cast<int>(all - holding));
  }
  return most;
}

}  // namespace

std::vector<int> choose_grid(const std::vector<std::int64_t>& shape, const std::vector<int>& axes, bool r2c,
                             int ranks, std::string& why, bool allow_empty, const std::vector<int>& names,
                             const std::vector<std::int64_t>& spectrum) {
  std::vector<std::vector<int>> all;
  std::vector<int> g(shape.size(), 1);
  grids(shape, 0, ranks, g, all, allow_empty);
  std::vector<int> best;
  std::tuple<int, int, int, std::vector<int>> best_score{0, 0, 0, {}};
  why = "no axis or set of axes has enough points for " + std::to_string(ranks) + " ranks";
  for (const auto& c : all) {
    Schedule s;
    const std::string e = build_schedule(shape, axes, r2c, c, s, allow_empty, names, spectrum);
    if (!e.empty()) {
      why = e;
      continue;
    }
    const int split = static_cast<int>(s.ranks.size());
    std::vector<int> neg(c.size());  // more ranks on slower axes first
    for (std::size_t a = 0; a < c.size(); ++a) neg[a] = -c[a];
    std::tuple<int, int, int, std::vector<int>> score{allow_empty ? empty_ranks(s) : 0, s.exchanges(), split, neg};
    if (best.empty() || score < best_score) {
      best = c;
      best_score = score;
    }
  }
  return best;
}

}  // namespace nbfft::nd::detail
