#include "tools/analysis/read/visitor_chain.h"

namespace gprof::analysis {

void VisitorChain::on_file_begin(uint32_t file, const std::string& path) {
  for (ProfileVisitor* v : visitors_) v->on_file_begin(file, path);
}
void VisitorChain::on_header(uint32_t file, const pb::FileHeader& header) {
  for (ProfileVisitor* v : visitors_) v->on_header(file, header);
}
void VisitorChain::on_string(uint32_t file, const pb::StringEntry& entry) {
  for (ProfileVisitor* v : visitors_) v->on_string(file, entry);
}
void VisitorChain::on_api(const ApiCall& call) {
  for (ProfileVisitor* v : visitors_) v->on_api(call);
}
void VisitorChain::on_range(const RangeSpan& span) {
  for (ProfileVisitor* v : visitors_) v->on_range(span);
}
void VisitorChain::on_gpu(const GpuActivity& activity) {
  for (ProfileVisitor* v : visitors_) v->on_gpu(activity);
}
void VisitorChain::on_launch(const Launch& launch) {
  for (ProfileVisitor* v : visitors_) v->on_launch(launch);
}
void VisitorChain::on_footer(uint32_t file, const pb::Footer& footer) {
  for (ProfileVisitor* v : visitors_) v->on_footer(file, footer);
}
void VisitorChain::on_file_end(uint32_t file, const FileInfo& info) {
  for (ProfileVisitor* v : visitors_) v->on_file_end(file, info);
}

}  // namespace gprof::analysis
