#include "tools/export/schema.h"

namespace gprof::exporter {
namespace {

// Column lists follow the nsys SQLite Schema Reference (schema 3.x). nsys
// columns that gprof cannot fill are left out, except a few that common
// queries name (contextId, callchainId, NVTX's rangeId, category, color,
// textId): those are kept, NULL, so that such queries still run.
constexpr const char* kTables = R"sql(
CREATE TABLE StringIds (
  id INTEGER NOT NULL PRIMARY KEY,
  value TEXT NOT NULL);
CREATE TABLE ThreadNames (
  nameId INTEGER NOT NULL,
  priority INTEGER,
  globalTid INTEGER);
CREATE TABLE TARGET_INFO_GPU (
  vmId INTEGER NOT NULL,
  id INTEGER NOT NULL,
  name TEXT,
  busLocation TEXT,
  totalMemory INTEGER,
  smCount INTEGER,
  cuDevice INTEGER,
  computeMajor INTEGER,
  computeMinor INTEGER);
CREATE TABLE TARGET_INFO_CUDA_DEVICE (
  gpuId INTEGER,
  cudaId INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  uuid TEXT,
  numMultiprocessors INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
  start INTEGER NOT NULL,
  end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL,
  globalTid INTEGER,
  correlationId INTEGER,
  nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL,
  callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
  start INTEGER NOT NULL,
  end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL,
  contextId INTEGER,
  streamId INTEGER NOT NULL,
  correlationId INTEGER,
  globalPid INTEGER,
  demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL,
  mangledName INTEGER,
  registersPerThread INTEGER NOT NULL,
  gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL,
  gridZ INTEGER NOT NULL,
  blockX INTEGER NOT NULL,
  blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL,
  staticSharedMemory INTEGER NOT NULL,
  dynamicSharedMemory INTEGER NOT NULL,
  graphNodeId INTEGER,
  graphId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
  start INTEGER NOT NULL,
  end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL,
  contextId INTEGER,
  streamId INTEGER NOT NULL,
  correlationId INTEGER,
  globalPid INTEGER,
  bytes INTEGER NOT NULL,
  copyKind INTEGER NOT NULL,
  srcKind INTEGER,
  dstKind INTEGER,
  srcDeviceId INTEGER,
  dstDeviceId INTEGER,
  graphNodeId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (
  start INTEGER NOT NULL,
  end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL,
  contextId INTEGER,
  streamId INTEGER NOT NULL,
  correlationId INTEGER,
  globalPid INTEGER,
  value INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  graphNodeId INTEGER,
  memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (
  start INTEGER NOT NULL,
  end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL,
  contextId INTEGER,
  streamId INTEGER NOT NULL,
  correlationId INTEGER,
  globalPid INTEGER,
  syncType INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (
  start INTEGER NOT NULL,
  end INTEGER,
  eventType INTEGER NOT NULL,
  rangeId INTEGER,
  category INTEGER,
  color INTEGER,
  text TEXT,
  globalTid INTEGER,
  endGlobalTid INTEGER,
  textId INTEGER,
  domainId INTEGER,
  eventId INTEGER NOT NULL PRIMARY KEY);
CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_NSYS_EVENT_CLASS (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);

CREATE TABLE GPROF_FILES (
  globalPid INTEGER NOT NULL PRIMARY KEY,
  path TEXT NOT NULL,
  pid INTEGER NOT NULL,
  ppid INTEGER,
  host TEXT,
  vmId INTEGER NOT NULL,
  rank TEXT,
  processName TEXT,
  commandLine TEXT,
  exe TEXT,
  startWallNs INTEGER,
  startClockNs INTEGER,
  endClockNs INTEGER,
  clockName TEXT,
  offsetToWallNs INTEGER,
  gprofVersion TEXT,
  formatVersion INTEGER,
  complete INTEGER NOT NULL,
  badFrames INTEGER NOT NULL,
  ignoredBytes INTEGER NOT NULL,
  skippedRecords INTEGER NOT NULL,
  cuptiState TEXT,
  cuptiReason TEXT,
  gpuNoTimestamp INTEGER NOT NULL,
  gpuOutsideWindow INTEGER NOT NULL,
  gpuUnpaired INTEGER NOT NULL,
  unbalancedPops INTEGER NOT NULL,
  endsWithoutStart INTEGER NOT NULL,
  openAtExit INTEGER NOT NULL,
  holds INTEGER,
  heldNs INTEGER);
CREATE TABLE GPROF_CONFIG (
  globalPid INTEGER NOT NULL,
  name TEXT NOT NULL,
  value TEXT);
CREATE TABLE GPROF_LOSSES (
  globalPid INTEGER NOT NULL,
  reason TEXT NOT NULL,
  count INTEGER NOT NULL,
  cupti INTEGER NOT NULL);
CREATE TABLE GPROF_NVTX (
  eventId INTEGER NOT NULL PRIMARY KEY,
  rowNameId INTEGER NOT NULL,
  seq INTEGER,
  opId INTEGER,
  openAtExit INTEGER NOT NULL);
CREATE TABLE GPROF_EXTERNAL_CORRELATION (
  globalPid INTEGER NOT NULL,
  correlationId INTEGER NOT NULL,
  externalId INTEGER NOT NULL);
)sql";

// What nearly every query joins on: an API call with its GPU work, by
// correlation id within a process, and NVTX ranges with what ran inside
// them on their thread. Each more index costs ~0.3 s per million rows;
// docs/export.md shows how to add one.
constexpr const char* kIndexes = R"sql(
CREATE INDEX RUNTIME_correlation ON CUPTI_ACTIVITY_KIND_RUNTIME (correlationId, globalTid);
CREATE INDEX KERNEL_correlation ON CUPTI_ACTIVITY_KIND_KERNEL (correlationId, globalPid);
CREATE INDEX MEMCPY_correlation ON CUPTI_ACTIVITY_KIND_MEMCPY (correlationId, globalPid);
CREATE INDEX MEMSET_correlation ON CUPTI_ACTIVITY_KIND_MEMSET (correlationId, globalPid);
CREATE INDEX SYNCHRONIZATION_correlation ON CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (correlationId, globalPid);
CREATE INDEX NVTX_thread_start ON NVTX_EVENTS (globalTid, start);
)sql";

}  // namespace

void create_tables(Database& db) {
  db.exec(kTables);
}

void create_indexes(Database& db) {
  db.exec(kIndexes);
}

}  // namespace gprof::exporter
