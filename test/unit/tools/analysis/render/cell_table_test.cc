// The launches and memory views' Markdown and CSV (cell_table.h): a row per
// row, names quoted as each format needs, and the header even without rows,
// as the key-averages views print it.
#include "tools/analysis/render/cell_table.h"

#include <catch2/catch.hpp>

#include <string>

namespace gprof::analysis {
namespace {

CellTable two_columns() {
  CellTable t;
  t.titles = {"Name", "# of Calls"};
  t.keys = {"name", "calls"};
  t.numeric = {false, true};
  return t;
}

TEST_CASE("cell tables: rows in CSV and Markdown") {
  CellTable t = two_columns();
  t.display = {{"k<1, 2>", "3"}};
  t.raw = {{"k<1, 2>", "3"}};
  CHECK(render_cells_csv(t) == "name,calls\n\"k<1, 2>\",3\n");
  CHECK(render_cells_markdown(t) == "| Name | # of Calls |\n| :--- | ---: |\n| `k<1, 2>` | 3 |\n");
}

TEST_CASE("cell tables without rows print their header") {
  CellTable t = two_columns();
  t.footer = {"no GPU work"};
  CHECK(render_cells_csv(t) == "name,calls\n");
  CHECK(render_cells_markdown(t) == "| Name | # of Calls |\n| :--- | ---: |\n\nno GPU work\n");
}

}  // namespace
}  // namespace gprof::analysis
