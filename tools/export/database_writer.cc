#include "tools/export/database_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>

#include "formats/read/reader.h"
#include "tools/analysis/model/capture_windows.h"
#include "tools/analysis/render/cupti_status.h"
#include "tools/export/correlation_ids.h"
#include "tools/export/enum_tables.h"
#include "tools/export/file_rows.h"
#include "tools/export/global_ids.h"
#include "tools/export/inserts.h"
#include "tools/export/schema.h"
#include "tools/export/sqlite_db.h"
#include "tools/export/string_ids.h"
#include "tools/trace/process_names.h"

namespace gprof::exporter {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

constexpr const char* kGpuTables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                      "CUPTI_ACTIVITY_KIND_MEMSET",
                                      "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"};

// A file nobody will read until it is complete: no rollback journal (the
// whole database is thrown away on failure), no fsync per transaction (one
// at the end, by the caller), a bounded page cache that spills to the file.
void configure(Database& db) {
  db.exec(
      "PRAGMA page_size = 16384;"
      "PRAGMA journal_mode = OFF;"
      "PRAGMA synchronous = OFF;"
      "PRAGMA locking_mode = EXCLUSIVE;"
      "PRAGMA cache_size = -65536;"
      "PRAGMA temp_store = FILE;");
}

// The pushed id where the file maps CUPTI's correlation to one
// (CuptiStatus EXTERNAL_CORRELATION): the API calls carry those.
void apply_external_correlations(Database& db) {
  db.exec(
      "CREATE INDEX GPROF_EXTERNAL_CORRELATION_id ON GPROF_EXTERNAL_CORRELATION "
      "(globalPid, correlationId)");
  for (const char* table : kGpuTables)
    db.exec(fmt::format(
        "UPDATE {0} SET correlationId = e.externalId FROM GPROF_EXTERNAL_CORRELATION AS e "
        "WHERE e.globalPid = {0}.globalPid AND e.correlationId = {0}.correlationId",
        table));
}

// With a capture window CUPTI may still report GPU work of calls made
// outside it; `report` leaves that work out (analysis/model/capture_windows.h), and
// so does the database: unpaired rows that started outside every window (all
// unpaired rows of a file that did not record its windows). Unpaired rows
// inside a window stay. Returns the rows removed per table.
std::vector<int64_t> drop_outside_window(Database& db, int64_t global_pid,
                                         const analysis::CaptureWindows& windows) {
  std::string inside;
  if (windows.exact()) {
    for (const auto& [open, close] : windows.open()) {
      inside += inside.empty() ? " AND NOT (" : " OR ";
      inside += fmt::format("({{0}}.start >= {} AND {{0}}.start < {})", open,
                            std::min<uint64_t>(close, INT64_MAX));
    }
    if (!inside.empty()) inside += ")";
  }
  std::vector<int64_t> removed;
  for (const char* table : kGpuTables) {
    db.exec(fmt::format(
        fmt::runtime("DELETE FROM {0} WHERE globalPid = {1} AND (correlationId IS NULL OR NOT "
                     "EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r WHERE "
                     "r.correlationId = {0}.correlationId AND r.globalTid BETWEEN {1} AND {2}))" +
                     inside),
        table, global_pid, global_pid + static_cast<int64_t>(kIdMask)));
    removed.push_back(db.changes());
  }
  return removed;
}

// GPU rows of the process that no recorded call issued (after the ones of
// calls outside a capture window were dropped).
uint64_t count_unpaired(Database& db, int64_t global_pid) {
  uint64_t total = 0;
  for (const char* table : kGpuTables) {
    Statement s(db.handle(),
                fmt::format("SELECT count(*) FROM {0} WHERE globalPid = {1} AND (correlationId IS "
                            "NULL OR NOT EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r "
                            "WHERE r.correlationId = {0}.correlationId AND r.globalTid BETWEEN "
                            "{1} AND {2}))",
                            table, global_pid, global_pid + static_cast<int64_t>(kIdMask)));
    if (s.next()) total += static_cast<uint64_t>(s.column_int(0));
  }
  return total;
}

// CUPTI reports static + dynamic shared memory; the launch call knows the
// dynamic part. Kernels whose call had none keep dynamicSharedMemory 0.
void split_shared_memory(Database& db) {
  db.exec(
      "UPDATE CUPTI_ACTIVITY_KIND_KERNEL AS k SET dynamicSharedMemory = l.bytes, "
      "staticSharedMemory = k.staticSharedMemory - l.bytes FROM temp.launch_shared AS l "
      "WHERE l.globalPid = k.globalPid AND l.correlationId = k.correlationId "
      "AND l.bytes <= k.staticSharedMemory");
}

// As analysis/read/call_pairing.h's mode() and unwrap(): a file in
// EXTERNAL_CORRELATION of an older gprof (pushed ids from 1) pairs only
// through its mappings, its calls carrying pushed ids; any other, by the
// calls' CUPTI ids and (a takeover's, pushed ids above CUPTI's) the
// mappings' together.
UnwrapOrder unwrap_order(const analysis::FileInfo& info, const FileRows& rows) {
  if (!rows.small_pushed_ids()) return UnwrapOrder::kCallsAndMappings;
  const bool external = info.cupti && info.cupti->state() == pb::CuptiStatus::EXTERNAL_CORRELATION;
  return external ? UnwrapOrder::kMappings : UnwrapOrder::kCalls;
}

// The CUPTI ids that unwrapping goes over.
IdSpan unwrapped_ids(UnwrapOrder order, const FileRows& rows) {
  if (order == UnwrapOrder::kMappings) return rows.external_ids();
  IdSpan span = rows.call_ids();
  const IdSpan mappings = rows.external_ids();
  if (order == UnwrapOrder::kCallsAndMappings && mappings.lowest <= mappings.highest) {
    span.add(mappings.lowest);
    span.add(mappings.highest);
  }
  return span;
}

std::string cupti_state(const analysis::FileInfo& info) {
  if (!info.cupti) return {};
  return pb::CuptiStatus::State_Name(info.cupti->state());
}

void write_file_row(Database& db, const analysis::FileInfo& info, int64_t global_pid,
                    int64_t vm_id) {
  Statement s(db.handle(),
              "INSERT INTO GPROF_FILES (globalPid, path, pid, ppid, host, vmId, rank, "
              "processName, commandLine, exe, startWallNs, startClockNs, endClockNs, clockName, "
              "offsetToWallNs, gprofVersion, formatVersion, complete, badFrames, ignoredBytes, "
              "skippedRecords, cuptiState, cuptiReason, gpuNoTimestamp, gpuOutsideWindow, "
              "gpuUnpaired, unbalancedPops, endsWithoutStart, openAtExit, holds, heldNs) VALUES "
              "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
              "?, ?, ?, ?)");
  const pb::FileHeader header = info.header.value_or(pb::FileHeader());
  const ReadStatus& st = info.status;
  s.bind(1, global_pid);
  s.bind(2, info.path);
  s.bind(3, header.pid());
  s.bind(4, header.ppid());
  s.bind(5, header.host());
  s.bind(6, vm_id);
  s.bind(7, header.rank());
  const std::string name = trace::program_name(header);
  const std::string command = trace::command_line(header);
  s.bind(8, name);
  s.bind(9, command);
  s.bind(10, header.exe());
  s.bind(11, static_cast<int64_t>(header.start_wall_ns()));
  s.bind(12, static_cast<int64_t>(header.start_clock_ns()));
  if (info.footer)
    s.bind(13, static_cast<int64_t>(info.footer->end_clock_ns()));
  else
    s.bind_null(13);
  s.bind(14, header.clock().name());
  s.bind(15, header.clock().offset_to_wall_ns());
  s.bind(16, header.gprof_version());
  s.bind(17, static_cast<int64_t>(st.format_version));
  s.bind(18, st.complete ? 1 : 0);
  s.bind(19, static_cast<int64_t>(st.bad_frames));
  s.bind(20, static_cast<int64_t>(st.ignored_bytes));
  s.bind(21, static_cast<int64_t>(st.skipped_records));
  const std::string state = cupti_state(info);
  s.bind(22, state);
  const std::string reason = info.cupti ? info.cupti->reason() : std::string();
  s.bind(23, reason);
  s.bind(24, static_cast<int64_t>(info.gpu.no_timestamp));
  s.bind(25, static_cast<int64_t>(info.gpu.outside_window));
  s.bind(26, static_cast<int64_t>(info.gpu.unpaired));
  s.bind(27, static_cast<int64_t>(info.ranges.unbalanced_pops));
  s.bind(28, static_cast<int64_t>(info.ranges.ends_without_start));
  s.bind(29, static_cast<int64_t>(info.ranges.open_at_exit));
  if (info.footer) {
    s.bind(30, static_cast<int64_t>(info.footer->holds()));
    s.bind(31, static_cast<int64_t>(info.footer->held_ns()));
  } else {
    s.bind_null(30);
    s.bind_null(31);
  }
  s.run();

  Statement config(db.handle(),
                   "INSERT INTO GPROF_CONFIG (globalPid, name, value) VALUES (?, ?, ?)");
  for (const pb::ConfigEntry& e : header.config()) {
    config.bind(1, global_pid);
    config.bind(2, e.key());
    config.bind(3, e.value());
    config.run();
  }
  Statement loss(db.handle(),
                 "INSERT INTO GPROF_LOSSES (globalPid, reason, count, cupti) VALUES (?, ?, ?, ?)");
  if (info.footer) {
    for (const pb::Loss& l : info.footer->losses()) {
      if (l.count() == 0) continue;
      loss.bind(1, global_pid);
      loss.bind(2, l.reason());
      loss.bind(3, static_cast<int64_t>(l.count()));
      loss.bind(4, analysis::is_cupti_loss(l.reason()) ? 1 : 0);
      loss.run();
    }
  }
}

// TARGET_INFO_GPU: each GPU once per host (vmId: the host's index among the
// inputs); TARGET_INFO_CUDA_DEVICE: each process's CUDA devices.
class Devices {
 public:
  explicit Devices(Database& db)
      : gpu_(db.handle(),
             "INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, totalMemory, smCount, "
             "cuDevice, computeMajor, computeMinor) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        cuda_(db.handle(),
              "INSERT INTO TARGET_INFO_CUDA_DEVICE (gpuId, cudaId, pid, numMultiprocessors) "
              "VALUES (?, ?, ?, ?)") {}

  void add(const pb::FileHeader& header, int64_t vm_id) {
    for (const pb::Device& d : header.devices()) {
      if (written_.emplace(vm_id, d.ordinal()).second) {
        gpu_.bind(1, vm_id);
        gpu_.bind(2, d.ordinal());
        gpu_.bind(3, d.name());
        gpu_.bind(4, d.pci_bus_id());
        gpu_.bind(5, static_cast<int64_t>(d.total_memory()));
        gpu_.bind(6, d.sm_count());
        gpu_.bind(7, d.ordinal());
        gpu_.bind(8, d.compute_major());
        gpu_.bind(9, d.compute_minor());
        gpu_.run();
      }
      cuda_.bind(1, d.ordinal());
      cuda_.bind(2, d.ordinal());
      cuda_.bind(3, header.pid());
      cuda_.bind(4, d.sm_count());
      cuda_.run();
    }
  }

 private:
  Statement gpu_;
  Statement cuda_;
  std::set<std::pair<int64_t, uint32_t>> written_;
};

void write_metadata(Database& db) {
  db.exec(
      "INSERT INTO META_DATA_EXPORT (name, value) VALUES "
      "('GPROF_EXPORT_SCHEMA_VERSION', '1'), ('EXPORT_PRODUCER', 'gpuprof " GPROF_VERSION
      "'), "
      "('TIMESTAMP_UNIT', 'ns, on each file''s clock (GPROF_FILES.clockName)')");
}

}  // namespace

ExportSummary write_database(const std::vector<std::string>& inputs, const std::string& path) {
  const Clock::time_point begin = Clock::now();
  ExportSummary summary;
  Database db(path);
  configure(db);
  create_tables(db);
  db.exec(
      "CREATE TEMP TABLE launch_shared (globalPid INTEGER, correlationId INTEGER, bytes "
      "INTEGER, start INTEGER)");
  db.exec("BEGIN");
  write_enum_tables(db);
  write_metadata(db);

  std::vector<int64_t> global_pids;
  std::vector<int64_t> vm_ids;
  std::vector<IdSpan> id_spans;            // per file: what correlation_ids.h unwraps
  std::vector<UnwrapOrder> unwrap_orders;  // per file
  {
    StringIds strings(db);
    Inserts inserts(db);
    GlobalPids pids;
    std::map<std::string, int64_t> hosts;
    int64_t next_event_id = 1;
    summary.files.reserve(inputs.size());
    for (const std::string& input : inputs) {
      analysis::FileInfo& info = summary.files.emplace_back();
      info.path = input;
      const std::optional<pb::FileHeader> header = read_header(input);
      if (!header) {
        RecordVisitor nothing;
        info.status = read_file(input, nothing);
        info.status.opened = false;
        if (info.status.error.empty()) info.status.error = "no readable header";
        return summary;
      }
      const int64_t global_pid = pids.next(header->pid());
      const int64_t vm_id =
          hosts.emplace(header->host(), static_cast<int64_t>(hosts.size())).first->second;
      FileRows rows(inserts, strings, global_pid, next_event_id, info);
      info.status = read_file(input, rows);
      if (!rows.sqlite_error().empty()) throw SqliteError(rows.sqlite_error());
      if (!info.status.opened) return summary;
      rows.finish();
      unwrap_orders.push_back(unwrap_order(info, rows));
      id_spans.push_back(unwrapped_ids(unwrap_orders.back(), rows));
      global_pids.push_back(global_pid);
      vm_ids.push_back(vm_id);
    }
    summary.rows = inserts.rows;
  }
  summary.load_seconds = since(begin);

  create_indexes(db);
  for (size_t i = 0; i < global_pids.size(); ++i)
    unwrap_correlations(db, global_pids[i], unwrap_orders[i], id_spans[i]);
  bool externals = false;
  for (const analysis::FileInfo& info : summary.files)
    externals = externals || info.gpu.external_correlations != 0;
  if (externals) apply_external_correlations(db);
  split_shared_memory(db);
  {
    Devices devices(db);
    for (size_t i = 0; i < summary.files.size(); ++i) {
      analysis::FileInfo& info = summary.files[i];
      if (info.header && analysis::has_capture_window(*info.header)) {
        const std::vector<int64_t> removed =
            drop_outside_window(db, global_pids[i], analysis::CaptureWindows(true, info.cupti));
        uint64_t total = 0;
        for (const int64_t n : removed) total += static_cast<uint64_t>(n);
        info.gpu.outside_window = total;
        info.gpu.records -= total;
        info.gpu.kernels -= static_cast<uint64_t>(removed[0]);
        info.gpu.copies -= static_cast<uint64_t>(removed[1]);
        info.gpu.sets -= static_cast<uint64_t>(removed[2]);
        info.gpu.syncs -= static_cast<uint64_t>(removed[3]);
        summary.rows -= total;
      }
      info.gpu.unpaired = count_unpaired(db, global_pids[i]);
      write_file_row(db, info, global_pids[i], vm_ids[i]);
      if (info.header) devices.add(*info.header, vm_ids[i]);
    }
  }
  db.exec("COMMIT");
  db.close();
  summary.seconds = since(begin);
  return summary;
}

}  // namespace gprof::exporter
