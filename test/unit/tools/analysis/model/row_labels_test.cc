// Labels are interned by value (row_labels.h): one id per (kind, name,
// group), through the index's growth; a number group (torch's sequence
// number) is no string until the label becomes a row.
#include "tools/analysis/model/row_labels.h"

#include <catch2/catch.hpp>

namespace gprof::analysis {
namespace {

TEST_CASE("a label per kind, name and group, the same id when asked again") {
  Interner strings;
  RowLabels labels(strings);
  const uint32_t mm = strings.id("aten::mm");
  std::vector<uint32_t> ids;
  // Past the index's first size and several of its growths.
  for (uint32_t seq = 0; seq < 5000; ++seq)
    ids.push_back(labels.label(RowLabel{RowKind::kRange, mm, number_group(seq, strings)}));
  for (uint32_t seq = 0; seq < 5000; ++seq) {
    CHECK(labels.label(RowLabel{RowKind::kRange, mm, number_group(seq, strings)}) == ids[seq]);
    CHECK(ids[seq] == seq);
  }
  // Another kind or name is another label.
  CHECK(labels.label(RowLabel{RowKind::kApi, mm, number_group(7, strings)}) == 5000);
  CHECK(labels.label(
            RowLabel{RowKind::kRange, strings.id("aten::add"), number_group(7, strings)}) == 5001);
}

TEST_CASE("a number group is its decimal text in the row's key, without interning it") {
  Interner strings;
  const uint32_t before = strings.id("probe");
  RowLabels labels(strings);
  const uint32_t l =
      labels.label(RowLabel{RowKind::kRange, strings.id("aten::mm"), number_group(1234, strings)});
  CHECK(strings.id("1234") == before + 2);  // "aten::mm", then "1234" only now
  KeyAverages rows;
  const KeyAverages::Key key = labels.key(l, rows);
  CHECK(rows.key("aten::mm", RowKind::kRange, "1234") == key);
  // A number too large for the id's bits is interned as text instead.
  const uint64_t large = uint64_t{1} << 40;
  const uint32_t group = number_group(large, strings);
  CHECK((group & kNumberGroup) == 0);
  CHECK(strings.text(group) == "1099511627776");
}

}  // namespace
}  // namespace gprof::analysis
