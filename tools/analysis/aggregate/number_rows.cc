#include "tools/analysis/aggregate/number_rows.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace gprof::analysis {

NumberRows::NumberRows(const Interner& strings, uint32_t file, size_t window, OpenLabels open)
    : strings_(strings),
      file_(file),
      window_(std::max<size_t>(window, 2)),
      open_(std::move(open)),
      rows_(std::min(window_ * sizeof(PlacedRow), size_t{8} << 20)) {}

uint32_t NumberRows::label(const RowLabel& l) {
  const auto rebuild = [this](size_t room) {
    index_.rebuild(room, entries_.size(), [&](size_t id) { return place(entries_[id].label); });
  };
  if (!index_.fits(entries_.size() + 1)) rebuild(2 * (entries_.size() + 1));
  uint32_t* slot = &index_.slot(place(l), [&](uint32_t id) { return entries_[id].label == l; });
  if (*slot != 0) return kBit | (base_ + *slot - 1);
  if (!open_left_.empty())
    if (auto it = open_left_.find(l); it != open_left_.end()) return kBit | it->second;
  if (entries_.size() >= window_) {
    evict();
    rebuild(window_);
    slot = &index_.slot(place(l), [&](uint32_t id) { return entries_[id].label == l; });
  }
  const size_t n = base_ + entries_.size();
  if (n >= kBit - 1) throw std::runtime_error("more than 2^31 rows grouped by a number");
  entries_.push_back(Entry{l, RowValues{}, FirstEvent{}});
  *slot = static_cast<uint32_t>(entries_.size());
  return kBit | static_cast<uint32_t>(n);
}

PlacedRow NumberRows::row_of(const RowLabel& label, const RowValues& values,
                             const FirstEvent& first) const {
  PlacedRow out;
  static_cast<RowValues&>(out.row) = values;
  out.row.kind = label.kind;
  out.row.gpu_kind = label.gpu_kind;
  out.row.name = strings_.text(label.name);
  out.row.group = row_group_text(label.group, strings_);
  // Never walked: no place of its own (its key has one, or no calls).
  constexpr uint64_t kLast = std::numeric_limits<uint64_t>::max();
  out.place = first.seen ? first.place(file_) : RowPlace{kLast, kLast, kLast, kLast};
  return out;
}

void NumberRows::evict() {
  const size_t half = entries_.size() / 2;
  // Those open, of the labels that leave now and of those that left before.
  std::vector<uint32_t> open;
  if (open_) open_(open);
  for (uint32_t& id : open) id &= ~kBit;
  std::sort(open.begin(), open.end());
  const auto is_open = [&](uint32_t n) { return std::binary_search(open.begin(), open.end(), n); };
  std::erase_if(open_left_, [&](const auto& e) { return !is_open(e.second); });
  for (size_t i = 0; i < half; ++i)
    if (is_open(base_ + static_cast<uint32_t>(i)))
      open_left_.emplace(entries_[i].label, base_ + static_cast<uint32_t>(i));
  if (!left_) left_ = std::make_unique<TempFile>("the rows of a table grouped by a number");
  std::vector<RowLabel> labels;
  labels.reserve(half);
  for (size_t i = 0; i < half; ++i) {
    const Entry& e = entries_[i];
    labels.push_back(e.label);
    if (e.first.seen) rows_.add(row_of(e.label, e.values, e.first));
  }
  left_->append(labels.data(), labels.size() * sizeof(RowLabel));
  entries_.erase(entries_.begin(), entries_.begin() + static_cast<ptrdiff_t>(half));
  base_ += static_cast<uint32_t>(half);
}

std::vector<uint32_t> NumberRows::walked_labels() const {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].first.seen) out.push_back(kBit | static_cast<uint32_t>(base_ + i));
  return out;
}

RowRuns<ByKey> NumberRows::finish() {
  flush();
  // The late ones by id, joined with the labels that left, read in order.
  auto late = late_.sorted();
  std::vector<RowLabel> labels(size_t{1} << 16);
  uint64_t first_read = 0;  // the id of labels[0]
  size_t read = 0;          // labels read into `labels`
  for (Late l; late.next(l);) {
    if (l.n < first_read || l.n >= first_read + read) {
      first_read = l.n;
      read = std::min<size_t>(labels.size(), base_ - l.n);
      left_->read(uint64_t{l.n} * sizeof(RowLabel), labels.data(), read * sizeof(RowLabel));
    }
    rows_.add(row_of(labels[l.n - first_read], l.values, l.first));
  }
  return std::move(rows_);
}

}  // namespace gprof::analysis
