// What the rules share: which copies touch pageable or host memory, which
// calls block the host, medians, and the wording of numbers in summaries.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tools/findings/finding.h"
#include "tools/findings/timeline/timeline.h"

namespace gprof::findings {

// CUpti_ActivityMemoryKind (cupti_activity.h): CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE.
inline constexpr uint8_t kMemoryPageable = 1;
// CUpti_ActivityMemcpyKind: CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, _ATOH.
inline constexpr uint8_t kCopyDtoH = 2, kCopyAtoH = 4;

bool is_pageable(const Work& work);
bool is_device_to_host(const Work& work);

// Whether a call held the host until the GPU had done what it waits for:
// synchronize calls (device, stream, event; not cudaStreamWaitEvent, which
// only makes a stream wait) and copies that the CUDA runtime makes
// synchronous with respect to the host ("API synchronization behavior" in
// the CUDA Runtime API reference): a non-Async copy that touches host memory,
// and an Async copy from the device into pageable memory that lasted until
// its copy began (the runtime "might" make it synchronous). `work`: a GPU
// record the call issued, nullptr when none is known.
bool blocks_host(const Call& call, const Work* work);

// The first GPU record each call issued (by index into Timeline::work), or
// kNone; and the GPU time each call issued.
std::vector<int32_t> first_work(const Timeline& timeline);
std::vector<uint64_t> gpu_ns_by_call(const Timeline& timeline);

// The median of `values` (sorted in place); 0 when empty.
double median(std::vector<uint64_t>& values);

// The row name of an API: "cudaStreamSynchronize".
std::string_view api_name(ApiId api);

std::string time_text(double ns);      // "1.234ms"
std::string bytes_text(double bytes);  // "64.00 KB"
std::string share_text(double share);  // "12.3%"
std::string count_text(uint64_t count, std::string_view one, std::string_view many);

Metric count_metric(std::string key, std::string label, double value);
Metric time_metric(std::string key, std::string label, double ns);
Metric bytes_metric(std::string key, std::string label, double bytes);
Metric share_metric(std::string key, std::string label, double share);

// Sets the finding's impact, its share of the window and its severity.
void set_impact(Finding& finding, uint64_t impact_ns, uint64_t window_ns);

// "8.0 per step" evidence when the files have steps: `count` over them.
void add_per_step(Finding& finding, const std::vector<Timeline>& files, std::string key,
                  std::string label, uint64_t count);

}  // namespace gprof::findings
