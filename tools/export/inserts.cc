#include "tools/export/inserts.h"

namespace gprof::exporter {

Inserts::Inserts(Database& db)
    : runtime(db.handle(),
              "CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, "
              "nameId, returnValue)",
              7),
      kernel(db.handle(),
             "CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, "
             "globalPid, demangledName, shortName, mangledName, registersPerThread, gridX, gridY, "
             "gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, "
             "graphNodeId, graphId)",
             20),
      memcpy(db.handle(),
             "CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, streamId, correlationId, "
             "globalPid, bytes, copyKind, srcKind, dstKind, srcDeviceId, dstDeviceId, "
             "graphNodeId)",
             13),
      memset(db.handle(),
             "CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, streamId, correlationId, "
             "globalPid, value, bytes, graphNodeId, memKind)",
             10),
      sync(db.handle(),
           "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, streamId, correlationId, "
           "globalPid, syncType)",
           7),
      nvtx(db.handle(),
           "NVTX_EVENTS (eventId, start, end, eventType, text, globalTid, endGlobalTid, "
           "domainId)",
           8),
      gprof_nvtx(db.handle(), "GPROF_NVTX (eventId, rowNameId, seq, opId, openAtExit)", 5),
      thread_name(db.handle(), "INSERT INTO ThreadNames (nameId, globalTid) VALUES (?, ?)"),
      external(db.handle(),
               "INSERT INTO GPROF_EXTERNAL_CORRELATION (globalPid, correlationId, externalId) "
               "VALUES (?, ?, ?)"),
      launch_shared(db.handle(),
                    "INSERT INTO temp.launch_shared (globalPid, correlationId, bytes, start) "
                    "VALUES (?, ?, ?, ?)"),
      nvtx_text(db.handle(), "UPDATE NVTX_EVENTS SET text = ? WHERE eventId = ?"),
      nvtx_row_name(db.handle(), "UPDATE GPROF_NVTX SET rowNameId = ? WHERE eventId = ?") {}

void Inserts::flush() {
  runtime.flush();
  kernel.flush();
  memcpy.flush();
  memset.flush();
  sync.flush();
  nvtx.flush();
  gprof_nvtx.flush();
}

}  // namespace gprof::exporter
