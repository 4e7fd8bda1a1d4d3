#include "tools/gpuprof/info/call_counts.h"

#include "formats/api_ids.h"
#include "formats/read/record_batches.h"

namespace gprof::cli {

void CallCounts::count(uint32_t api, int32_t result, uint32_t runtime, uint64_t n) {
  const ApiInfo* info = api_info(static_cast<ApiId>(api));
  if (info == nullptr) return;  // the reader delivers known APIs only; be safe anyway
  if (api >= calls_.size()) calls_.resize(api + 1);
  calls_[api] += n;
  if (info->fields & kFieldLaunch) launches_ += n;
  if (info->category == ApiCategory::kLaunch && !(info->fields & kFieldLaunch))
    graph_launches_ += n;
  runtimes_[static_cast<int>(runtime)] += n;
  if (result != 0) failures_[{api, result}] += n;
}

void CallCounts::clear() {
  calls_.clear();
  failures_.clear();
  strings_.clear();
  threads_.clear();
  launches_ = graph_launches_ = 0;
  runtimes_.clear();
}

void CallCounts::on_api(const ApiRecord& record) {
  threads_.insert(record.tid);
  count(static_cast<uint32_t>(record.api), record.result, record.runtime, 1);
}

void CallCounts::on_api_batch(const ApiBatch& batch) {
  if (batch.size == 0) return;
  threads_.insert(batch.tid);
  // Runs of one API, one result and one runtime are counted at once: most
  // of a training loop is the same few calls succeeding.
  for (uint32_t i = 0; i < batch.size;) {
    // As the per-record path sees it (ApiCursor::record): a byte.
    const uint32_t runtime = batch.runtime != nullptr ? static_cast<uint8_t>(batch.runtime[i]) : 0;
    uint32_t j = i + 1;
    while (j < batch.size && batch.api[j] == batch.api[i] && batch.result[j] == batch.result[i] &&
           (batch.runtime == nullptr || static_cast<uint8_t>(batch.runtime[j]) == runtime))
      ++j;
    count(batch.api[i], batch.result[i], runtime, j - i);
    i = j;
  }
}

std::map<std::string_view, uint64_t> CallCounts::per_api() const {
  std::map<std::string_view, uint64_t> out;
  for (uint32_t api = 0; api < calls_.size(); ++api)
    if (calls_[api] != 0) out[api_info(static_cast<ApiId>(api))->display] += calls_[api];
  return out;
}

std::map<std::pair<std::string_view, int>, uint64_t> CallCounts::failures() const {
  std::map<std::pair<std::string_view, int>, uint64_t> out;
  for (const auto& [key, n] : failures_)
    out[{api_info(static_cast<ApiId>(key.first))->display, key.second}] += n;
  return out;
}

uint64_t CallCounts::strings(int kind) const {
  const auto it = strings_.find(kind);
  return it == strings_.end() ? 0 : it->second;
}

}  // namespace gprof::cli
