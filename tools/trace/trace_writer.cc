#include "tools/trace/trace_writer.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>

#include "formats/read/pipelined_reader.h"
#include "formats/read/reader.h"
#include "tools/analysis/read/work_progress.h"
#include "tools/analysis/render/cupti_status.h"
#include "tools/trace/clock_alignment.h"
#include "tools/trace/event_json.h"
#include "tools/trace/file_events.h"
#include "tools/trace/file_scan.h"
#include "tools/trace/parallel_json.h"
#include "tools/trace/process_names.h"
#include "tools/trace/time_origin.h"

namespace gprof::trace {
namespace {

// Trace processes of GPUs, and of a file whose pid an earlier file took, get
// numbers no Linux pid reaches (pid_max is at most 2^22).
constexpr uint32_t kFirstSyntheticPid = 1u << 24;

// JSON encoders beyond the merging thread: each takes about two thirds of
// that thread's instructions per event, so a few keep up with it, and each
// holds its batches in memory.
constexpr unsigned kMaxEncoders = 3;

struct FileEntry {
  std::string path;
  uint32_t pid = 0;
  uint32_t trace_pid = 0;
  std::string host;
  std::string rank;
  std::string command_line;
  std::vector<std::string> cupti_gaps;  // analysis::cupti_gap_lines
  uint64_t gpu_unpaired = 0;            // analysis::GpuCounts
  uint64_t gpu_outside_window = 0;
};

class TraceWriter {
 public:
  TraceWriter(const TraceOptions& options, EventOutput& out) : options_(options), out_(out) {}

  // Several files: their clocks and the origin, known before the first is
  // written.
  void plan(const std::vector<std::string>& paths) {
    std::vector<FileStart> starts;
    for (const std::string& path : paths) starts.push_back(scan_file_start(path));
    std::vector<const pb::FileHeader*> headers;
    for (const FileStart& s : starts) headers.push_back(s.header ? &*s.header : nullptr);
    clocks_ = plan_clocks(headers);
    for (size_t i = 0; i < paths.size(); ++i) {
      if (!clocks_->assumed[i] || !starts[i].first_ns) continue;
      warnings_.push_back(
          clocks_->as_file
              ? fmt::format("{} has no header, so its clock is unknown: its times are placed as "
                            "if on the clock of {}",
                            paths[i], paths[*clocks_->as_file])
              : fmt::format("{} has no header, so its clock is unknown: its times are placed as "
                            "if on the same clock as the other files",
                            paths[i]));
    }
    for (size_t i = 0; i < starts.size(); ++i)
      if (starts[i].first_ns)
        widen_origin(static_cast<int64_t>(*starts[i].first_ns) + clocks_->shift[i]);
  }

  // Reads the file once and pairs its records: everything its events need
  // before they are written (nullptr: it could not be opened). With several
  // files this only reads what plan() settled, so the next file can be read
  // while one is written (write_trace).
  std::unique_ptr<FileEvents> read_file_events(uint32_t file, analysis::FileInfo& info) {
    auto events = std::make_unique<FileEvents>(info, options_.cut, options_.sort_memory,
                                               options_.helpers != 0);
    events->set_step_patterns(options_.steps);
    // One decoder keeps ahead of the thread the records go to (decoding is a
    // tenth of its work); more would only hold more frames in memory.
    info.status = options_.helpers == 0 ? read_file(info.path, *events)
                                        : read_file_pipelined(info.path, *events, 1);
    if (!info.status.opened) return nullptr;
    if (!clocks_) {  // one file: its own clock, from its first record
      clocks_ = plan_clocks({info.header ? &*info.header : nullptr});
      if (info.first_ns != 0 || info.last_ns != 0)
        widen_origin(static_cast<int64_t>(info.first_ns));
    }
    events->finish(relative_shift(file), options_.busy_bucket_ns);
    return events;
  }

  // Writes the events of a file read by read_file_events.
  void write_file(uint32_t file, analysis::FileInfo& info, FileEvents& events) {
    const pb::FileHeader header = info.header.value_or(pb::FileHeader());
    const int64_t to_relative = relative_shift(file);
    const std::vector<Place> places = place_tracks(header, info, events);
    const auto make_json = [&](EventOutput& out) {
      return std::make_unique<EventJson>(out, events.strings(), places, to_relative, next_flow_,
                                         next_async_);
    };
    analysis::WorkProgress* progress = analysis::work_progress();
    if (progress != nullptr) progress->total(planned_events(file, events.event_count()));
    if (options_.helpers == 0 || out_.events() == 0) {
      const std::unique_ptr<EventJson> json = make_json(out_);
      events.for_each_kept(
          [&](const Item& e) {
            json->write(e);
            ++kept_;
          },
          progress);
    } else {
      ParallelJson json(out_, std::min(options_.helpers, kMaxEncoders), make_json);
      events.for_each_kept(
          [&](const Item& e) {
            json.write(e);
            ++kept_;
          },
          progress);
      json.finish();
    }
    if (info.first_ns != 0 || info.last_ns != 0) {
      const int64_t first = static_cast<int64_t>(info.first_ns) + to_relative;
      const int64_t last = static_cast<int64_t>(info.last_ns) + to_relative;
      span_ = span_ ? std::pair(std::min(span_->first, first), std::max(span_->second, last))
                    : std::pair(first, last);
    }
    next_flow_ += events.gpu_count();
    next_async_ += events.range_count();

    files_.push_back(FileEntry{info.path, header.pid(), places_pid_, header.host(), header.rank(),
                               command_line(header), analysis::cupti_gap_lines(info),
                               info.gpu.unpaired, info.gpu.outside_window});
    if (info.header && !wall_offset_) wall_offset_ = header.clock().offset_to_wall_ns();
  }

  // The files' sizes, for the progress's estimate of the events still to come.
  void set_file_bytes(std::vector<uint64_t> bytes) { file_bytes_ = std::move(bytes); }

  // The events of the trace so far as known once `file`'s `events` are: the
  // files written and this one exactly, the later ones in proportion to
  // their sizes.
  uint64_t planned_events(uint32_t file, uint64_t events) {
    known_events_ += events;
    uint64_t known_bytes = 0;
    uint64_t later_bytes = 0;
    for (size_t i = 0; i < file_bytes_.size(); ++i)
      (i <= file ? known_bytes : later_bytes) += file_bytes_[i];
    if (known_bytes == 0) return known_events_;
    return known_events_ + static_cast<uint64_t>(static_cast<double>(later_bytes) *
                                                 static_cast<double>(known_events_) /
                                                 static_cast<double>(known_bytes));
  }

  // What turns the file's times into the trace's.
  int64_t relative_shift(uint32_t file) const {
    return clocks_->shift.at(file) - origin_.value_or(0);
  }

  const std::vector<std::string>& warnings() const { return warnings_; }
  uint64_t kept() const { return kept_; }
  const std::optional<std::pair<int64_t, int64_t>>& span() const { return span_; }

  // Everything after the traceEvents array.
  void write_tail() {
    Buffer b;
    b.append(
        std::string_view("\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{"
                         "\"schema\":\"gprof.trace\",\"version\":1,\"clock\":"));
    append_json_string(b, clocks_ ? clocks_->clock : "CLOCK_MONOTONIC");
    fmt::format_to(std::back_inserter(b), ",\"time_origin\":{},\"files\":[", origin_.value_or(0));
    for (size_t i = 0; i < files_.size(); ++i) {
      const FileEntry& f = files_[i];
      b.append(std::string_view(i == 0 ? "\n{\"path\":" : ",\n{\"path\":"));
      append_json_string(b, f.path);
      fmt::format_to(std::back_inserter(b), ",\"pid\":{},\"trace_pid\":{},\"host\":", f.pid,
                     f.trace_pid);
      append_json_string(b, f.host);
      b.append(std::string_view(",\"rank\":"));
      append_json_string(b, f.rank);
      b.append(std::string_view(",\"command_line\":"));
      append_json_string(b, f.command_line);
      // GPU records no recorded call issued (shown, unnamed by a call), and
      // those of calls outside the capture window (left out): never mixed.
      if (f.gpu_unpaired != 0)
        fmt::format_to(std::back_inserter(b), ",\"gpu_unpaired\":{}", f.gpu_unpaired);
      if (f.gpu_outside_window != 0)
        fmt::format_to(std::back_inserter(b), ",\"gpu_outside_window\":{}", f.gpu_outside_window);
      if (!f.cupti_gaps.empty()) {
        // Intervals when another tool had taken CUPTI over: no GPU records.
        b.append(std::string_view(",\"gpu_records_missing\":["));
        for (size_t g = 0; g < f.cupti_gaps.size(); ++g) {
          if (g != 0) b.push_back(',');
          append_json_string(b, f.cupti_gaps[g]);
        }
        b.push_back(']');
      }
      b.push_back('}');
    }
    b.append(std::string_view("\n]}"));
    write_kineto_fields(b);
    b.append(std::string_view("}\n"));
    out_.raw(std::string_view(b.data(), b.size()));
  }

 private:
  // What kineto puts beside the events, for tools made for its traces (HTA):
  // wall time of ts 0, the GPUs, and the rank when the document holds one.
  void write_kineto_fields(Buffer& b) const {
    b.append(std::string_view(",\n\"schemaVersion\":1"));
    if (clocks_ && (wall_offset_ || clocks_->clock == kWallClock)) {
      const int64_t offset = clocks_->clock == kWallClock ? 0 : wall_offset_.value_or(0);
      fmt::format_to(std::back_inserter(b), ",\n\"baseTimeNanoseconds\":{}",
                     origin_.value_or(0) + offset);
    }
    b.append(std::string_view(",\n\"deviceProperties\":["));
    // kineto's keys (HTA reads them): what the driver told gprof, when it did.
    for (auto it = devices_.begin(); it != devices_.end(); ++it) {
      const pb::Device& d = it->second;
      fmt::format_to(std::back_inserter(b),
                     "{}{{\"id\":{},\"name\":", it == devices_.begin() ? "" : ",", it->first);
      append_json_string(b, d.name());
      if (d.total_memory() != 0)
        fmt::format_to(std::back_inserter(b), ",\"totalGlobalMem\":{}", d.total_memory());
      if (d.compute_major() != 0)
        fmt::format_to(std::back_inserter(b), ",\"computeMajor\":{},\"computeMinor\":{}",
                       d.compute_major(), d.compute_minor());
      if (d.sm_count() != 0) fmt::format_to(std::back_inserter(b), ",\"numSms\":{}", d.sm_count());
      if (!d.pci_bus_id().empty()) {
        b.append(std::string_view(",\"pciBusId\":"));
        append_json_string(b, d.pci_bus_id());
      }
      b.push_back('}');
    }
    b.push_back(']');
    std::set<std::string> ranks;
    for (const FileEntry& f : files_) ranks.insert(f.rank);
    if (ranks.size() != 1) return;
    int rank = 0;
    const std::string& only = *ranks.begin();
    if (!only.empty() && std::from_chars(only.data(), only.data() + only.size(), rank).ptr ==
                             only.data() + only.size())
      // The spaces are kineto's, and HolisticTraceAnalysis needs them: it finds a file's
      // rank with the regex "rank":\s+(\d+) (hta/common/trace_file.py) and puts every file
      // it cannot read one from at rank 0.
      fmt::format_to(std::back_inserter(b), ",\n\"distributedInfo\": {{\"rank\": {}}}", rank);
  }

  // The origin is kLeadNs before the earliest record (time_origin.h).
  void widen_origin(int64_t first_record) {
    const int64_t time = first_record - kLeadNs;
    origin_ = std::min(origin_.value_or(time), time);
  }

  uint32_t synthetic_pid() {
    while (used_pids_.contains(next_pid_)) ++next_pid_;
    used_pids_.insert(next_pid_);
    return next_pid_++;
  }

  // The file's trace processes (its own, then one per GPU it used, each with
  // its name and place in the list) and each track's pid and tid.
  std::vector<Place> place_tracks(const pb::FileHeader& header, const analysis::FileInfo& info,
                                  FileEvents& events) {
    places_pid_ = header.pid();
    if (!used_pids_.insert(places_pid_).second) places_pid_ = synthetic_pid();
    write_metadata(out_, "process_name", Place{places_pid_, 0},
                   process_title(header, places_pid_ != header.pid()));
    write_sort_index(out_, Place{places_pid_, 0}, next_sort_++);
    std::map<uint32_t, uint32_t> devices;  // ordinal -> trace pid
    for (const Track& t : events.tracks())
      if (t.gpu) devices.emplace(t.device, 0);
    for (auto& [device, pid] : devices) {
      pb::Device& known = devices_[device];
      for (const pb::Device& d : header.devices())
        if (d.ordinal() == device && known.name().empty()) known = d;
      pid = synthetic_pid();
      write_metadata(out_, "process_name", Place{pid, 0}, gpu_title(header, device));
      write_sort_index(out_, Place{pid, 0}, next_sort_++);
    }
    std::vector<Place> places;
    places.reserve(events.tracks().size());
    for (const Track& t : events.tracks()) {
      const Place place{t.gpu ? devices[t.device] : places_pid_, t.tid};
      places.push_back(place);
      // tid 0 holds a process's counters; no thread or stream of its own.
      if (t.tid == 0 && !events.kept_slices(static_cast<uint32_t>(places.size() - 1))) continue;
      write_metadata(out_, "thread_name", place,
                     !t.gpu ? thread_title(t.tid, header.pid(), info.thread_names)
                     : t.tid == kSyncTidOffset - 1 ? std::string("context (sync)")
                     : t.tid >= kSyncTidOffset
                         ? fmt::format("stream {} (sync)", t.tid - kSyncTidOffset)
                         : fmt::format("stream {}", t.tid));
    }
    return places;
  }

  const TraceOptions& options_;
  EventOutput& out_;
  std::optional<ClockPlan> clocks_;
  std::optional<int64_t> origin_;
  std::set<uint32_t> used_pids_;
  uint32_t next_pid_ = kFirstSyntheticPid;
  uint32_t next_sort_ = 0;
  uint32_t places_pid_ = 0;
  uint64_t next_flow_ = 1;
  uint64_t next_async_ = 1;
  std::vector<uint64_t> file_bytes_;  // each input's size (0: unknown)
  uint64_t known_events_ = 0;         // of the files whose writing started
  std::vector<FileEntry> files_;
  std::vector<std::string> warnings_;
  uint64_t kept_ = 0;
  std::optional<std::pair<int64_t, int64_t>> span_;
  std::optional<int64_t> wall_offset_;      // the first header's
  std::map<uint32_t, pb::Device> devices_;  // ordinal -> what is known of GPUs with work
};

}  // namespace

TraceSummary write_trace(const std::vector<std::string>& paths, const TraceOptions& options,
                         Sink& out) {
  EventOutput output(out);
  TraceWriter writer(options, output);
  if (paths.size() > 1) writer.plan(paths);
  output.raw("{\"traceEvents\":[");
  TraceSummary summary;
  summary.files.resize(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) summary.files[i].path = paths[i];
  std::vector<uint64_t> bytes;
  for (const std::string& path : paths) {
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    bytes.push_back(error ? 0 : static_cast<uint64_t>(size));
  }
  writer.set_file_bytes(std::move(bytes));
  const auto read = [&](size_t i) {
    return writer.read_file_events(static_cast<uint32_t>(i), summary.files[i]);
  };
  if (paths.size() > 1 && options.helpers != 0) {
    // Each file is read while the one before it is written: reading is
    // mostly one thread's work, writing mostly the encoders' and the
    // compressors', and a file's events are written only once it has been
    // read to its end (its GPU work is paired then). plan() fixed the
    // clocks, so reading needs nothing from the files before. Two files'
    // events are held at once. The future's destructor waits for a read in
    // flight when writing fails.
    std::future<std::unique_ptr<FileEvents>> next = std::async(std::launch::async, read, 0);
    for (size_t i = 0; i < paths.size(); ++i) {
      const std::unique_ptr<FileEvents> events = next.get();
      if (i + 1 < paths.size()) next = std::async(std::launch::async, read, i + 1);
      if (events) writer.write_file(static_cast<uint32_t>(i), summary.files[i], *events);
    }
  } else {
    for (size_t i = 0; i < paths.size(); ++i)
      if (const std::unique_ptr<FileEvents> events = read(i))
        writer.write_file(static_cast<uint32_t>(i), summary.files[i], *events);
  }
  writer.write_tail();
  summary.written = output.flush();
  summary.events = output.events();
  summary.warnings = writer.warnings();
  summary.kept = writer.kept();
  summary.span = writer.span();
  return summary;
}

}  // namespace gprof::trace
