// libcupti, loaded at run time (docs/architecture.md §3.1): the shim never links it, so a
// missing or mismatched CUPTI costs GPU times, never the host program.
#pragma once

#include <cupti.h>

#include <cstddef>
#include <cstdint>

namespace gprof {

struct CuptiLibrary {
  void* handle = nullptr;
  char path[512] = {};
  uint32_t version = 0;

  decltype(&cuptiGetVersion) GetVersion = nullptr;
  decltype(&cuptiGetResultString) GetResultString = nullptr;
  decltype(&cuptiGetTimestamp) GetTimestamp = nullptr;
  decltype(&cuptiSubscribe) Subscribe = nullptr;
  decltype(&cuptiSubscribe_v2) SubscribeV2 = nullptr;  // optional: names the other subscriber
  decltype(&cuptiUnsubscribe) Unsubscribe = nullptr;
  decltype(&cuptiEnableCallback) EnableCallback = nullptr;
  decltype(&cuptiActivityEnable) ActivityEnable = nullptr;
  decltype(&cuptiActivityDisable) ActivityDisable = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) ActivityRegisterCallbacks = nullptr;
  decltype(&cuptiActivityRegisterTimestampCallback) ActivityRegisterTimestampCallback = nullptr;
  decltype(&cuptiActivityFlushAll) ActivityFlushAll = nullptr;
  decltype(&cuptiActivityGetNextRecord) ActivityGetNextRecord = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) ActivityGetNumDroppedRecords = nullptr;
  decltype(&cuptiActivityPushExternalCorrelationId) ActivityPushExternalCorrelationId = nullptr;
  decltype(&cuptiActivityPopExternalCorrelationId) ActivityPopExternalCorrelationId = nullptr;
  decltype(&cuptiActivitySetAttribute) ActivitySetAttribute = nullptr;  // optional

  // "CUPTI_ERROR_…" for `result`, or its number when the library has no text.
  const char* describe(CUptiResult result) const;
};

// Finds libcupti: a copy already loaded in the process first (PyTorch ships
// its own), then GPROF_CUPTI_LIBRARY, the loader's search path, and the
// Toolkit's usual places. On failure fills `why` and returns false.
bool load_cupti(CuptiLibrary& lib, char* why, size_t why_size);

// Records are read with CUPTI 13's struct layouts (CUpti_ActivityKernel10…),
// which CUPTI 12's records match for every field gprof reads.
bool cupti_version_supported(uint32_t version, const char* path);

}  // namespace gprof
