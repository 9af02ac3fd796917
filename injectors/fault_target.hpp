// Where a fault plan writes: any set of elements a workload exposes, seen as
// a rows x cols tensor of one format (site rules draw row-major indices).
//   tensor_target       one tensor (a tensor_view, possibly strided)
//   tensor_list_target  several tensors end to end, as one 1 x total vector
//                       (a device's gradient tensors: an element uniform over all)
// A workload with another addressing (EmbeddingBag codes of the rows a batch
// reads) derives its own.
#pragma once
#include <cstdint>
#include <vector>

#include "injectors/tensor_view.hpp"

namespace sdc {

class fault_target {
 public:
  virtual ~fault_target() = default;
  virtual const format& fmt() const = 0;
  virtual int64_t rows() const = 0;
  virtual int64_t cols() const = 0;
  virtual uint64_t bits_at(int64_t i) const = 0;
  virtual void set_bits(int64_t i, uint64_t bits) = 0;
  double value_at(int64_t i) const { return decode(fmt(), bits_at(i)); }
};

class tensor_target final : public fault_target {
 public:
  explicit tensor_target(const tensor_view& v) : v_(v) {}
  const format& fmt() const override { return *v_.fmt; }
  int64_t rows() const override { return v_.rows; }
  int64_t cols() const override { return v_.cols; }
  uint64_t bits_at(int64_t i) const override { return v_.bits_at(i); }
  void set_bits(int64_t i, uint64_t b) override { v_.set_bits(i, b); }

 private:
  tensor_view v_;
};

class tensor_list_target final : public fault_target {
 public:
  // All tensors share one format.
  explicit tensor_list_target(std::vector<tensor_view> tensors);
  const format& fmt() const override { return *t_.front().fmt; }
  int64_t rows() const override { return 1; }
  int64_t cols() const override { return total_; }
  uint64_t bits_at(int64_t i) const override;
  void set_bits(int64_t i, uint64_t b) override;
  // (tensor, element within it) of flat index i.
  std::pair<size_t, int64_t> locate(int64_t i) const;

 private:
  std::vector<tensor_view> t_;
  std::vector<int64_t> start_;  // flat index of each tensor's first element
  int64_t total_ = 0;
};

// Wraps a target and logs every write, so a workload that injects in place
// (into data shared by the episodes of one data set) can restore it.
class undo_log_target final : public fault_target {
 public:
  explicit undo_log_target(fault_target& t) : t_(t) {}
  const format& fmt() const override { return t_.fmt(); }
  int64_t rows() const override { return t_.rows(); }
  int64_t cols() const override { return t_.cols(); }
  uint64_t bits_at(int64_t i) const override { return t_.bits_at(i); }
  void set_bits(int64_t i, uint64_t b) override {
    log_.emplace_back(i, t_.bits_at(i));
    t_.set_bits(i, b);
  }
  // Puts back every logged element, last write first.
  void restore() {
    for (auto it = log_.rbegin(); it != log_.rend(); ++it) t_.set_bits(it->first, it->second);
    log_.clear();
  }

 private:
  fault_target& t_;
  std::vector<std::pair<int64_t, uint64_t>> log_;
};

}  // namespace sdc
