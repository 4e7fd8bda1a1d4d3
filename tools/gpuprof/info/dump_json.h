// The JSON objects `gpuprof dump` prints, one a line: an API record, a GPU
// record, a range, whichever reader (streamed or in memory) found them.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

#include "formats/api_ids.h"
#include "formats/record.h"
#include "tools/analysis/model/nvtx_ranges.h"

namespace gprof::cli {

// Writes `j` and a newline to stdout.
void print_line(const nlohmann::json& j);

// An API record; `kernel`: its launch's mangled name, when known.
nlohmann::json api_json(uint32_t file, const ApiRecord& r, const ApiInfo& info,
                        const std::string* kernel);

// Every GpuRecord field, whatever the kind, plus the row name and, when
// paired, the correlation of the API call that issued it (`call`: its id as
// pairing unwrapped it).
nlohmann::json gpu_json(uint32_t file, const GpuRecord& r, const std::string& name,
                        const std::string* kernel, const uint64_t* call);

// A paired range (nvtx_ranges.h) with its row name; a mark has start = end.
nlohmann::json range_json(uint32_t file, const analysis::Range& r, const std::string& name,
                          std::string_view input_shapes);

}  // namespace gprof::cli
