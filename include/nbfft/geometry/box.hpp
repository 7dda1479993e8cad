// nbfft::Box: a block of an array of any number of dimensions, the one box every plan,
// reshape and layout speaks (N-D plans, io::Layout, the reshapes under user boxes).
//
// Conventions are numpy's: lo and n list one entry per axis, axis 0 first (slowest in C
// order), and `order` lists the axes in memory, slowest first (empty: 0, 1, ..., C order,
// the last axis fastest). The 3-D plan's fixed-size fft::Box3 (x first, memory order fastest
// first, heFFTe's convention) converts to and from it (nbfft/fft/box.hpp to_box, to_box3).
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

namespace nbfft {

struct Box {
  std::vector<std::int64_t> lo, n;
  std::vector<int> order;
  // Points in the box; throws InvalidArgument when the product overflows 64 bits.
  std::int64_t count() const;
  bool empty() const { return count() == 0; }
  // Offset of global point g (one index per axis, axis order) inside this box's storage.
  std::int64_t index(const std::vector<std::int64_t>& g) const;
  bool natural() const;  // C order
  // The extents in memory order: the shape of the block as a C array.
  std::vector<std::int64_t> memory_shape() const;
  // Element stride of axis a in this box's storage.
  std::int64_t stride(std::size_t a) const;
  // The axis at memory position i (0 slowest): order[i], or i in C order.
  int axis_at(std::size_t i) const { return order.empty() ? static_cast<int>(i) : order[i]; }
  friend bool operator==(const Box& a, const Box& b);
  friend bool operator!=(const Box& a, const Box& b) { return !(a == b); }
};
// "[0:4, 2:5, 0:9]", with " order (1, 0, 2)" when not in C order.
std::ostream& operator<<(std::ostream& os, const Box& b);

// The points of a that lie in b (n all zero when none); a's order.
Box intersect(const Box& a, const Box& b);

// Whether boxes a and b cover the same points (two empty boxes do, wherever they are).
bool same_points(const Box& a, const Box& b);

// Copies the points of `region` from an array holding box sb to one holding box db (each in
// its box's memory order); elem bytes per point. Runs along db's fastest axis, so the
// destination is written row by row and the source read with its stride there.
void copy_region(const void* src, const Box& sb, void* dst, const Box& db, const Box& region, std::size_t elem);

// Copies between a block stored in its box's memory order and the whole C-order array of
// extents `shape` holding it (to_array: block -> array, else array -> block); elem bytes per
// point. The copy of every gather and scatter (3-D and N-D plans).
void copy_block(void* block, const Box& b, void* array, const std::vector<std::int64_t>& shape, bool to_array,
                std::size_t elem);

}  // namespace nbfft
