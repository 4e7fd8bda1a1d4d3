// CUPTI's asynchronous buffer API: buffers requested from the client, filled with records, and
// completed back to it (cuptiActivityRegisterCallbacks). Any thread may add records while
// another flushes. The client's callbacks always run outside the fake's lock: a completion runs
// on the thread whose record filled the buffer, or on the thread that flushes.
#pragma once

#include <cstddef>

#include "cupti_abi.h"

namespace gprof_fake_cupti {

CUptiResult RegisterBufferCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                    CUpti_BuffersCallbackCompleteFunc complete);

// Copies one record of `size` bytes (RecordSize of its kind) into the current buffer. The buffer
// is completed when the record does not fit (then a new one is requested) or, with the mode
// buffer_records=N, when it holds N records. A record is dropped, and counted, when the client
// has no usable buffer to give, when no client registered buffers (unless the mode
// activity_in_use gives them to another tool), and every Nth with drop_every=N.
void AddRecord(const void* record, size_t size);

template <typename Record>
void AddRecord(const Record& record) {
  AddRecord(&record, sizeof(record));
}

// cuptiActivityFlushAll: completes the current buffer if it holds records (with the mode
// out_of_order, together with the buffers held back, newest first). `deliver_gpu_ops` runs
// first, outside the lock: it turns the simulated device's finished work into records.
// CUPTI_ERROR_INVALID_OPERATION before any RegisterBufferCallbacks (unless another tool owns
// the buffers: activity_in_use).
CUptiResult FlushBuffers(void (*deliver_gpu_ops)(int wait_for_device), bool forced);

// CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER (default on in CUPTI 13): each thread that
// makes records fills a buffer of its own, held until it is full or flushed, so a client hands
// out one buffer per such thread. The value in effect is the one set when the client registers
// its callbacks; a change after that has no effect (the header calls it undefined behaviour).
void SetPerThreadBuffers(bool enabled);
bool PerThreadBuffersRequested();

// CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER (cupti_activity.h, default 0): when 0, CUPTI
// zeroes each buffer the client hands it, on the requesting thread; when non-zero the client
// promises zeroed buffers and CUPTI does not ("the activity buffer may contain some
// uninitialized values" otherwise). The fake checks the promise: a buffer handed to it with a
// non-zero byte is counted and told on stderr once (the header's consequence, garbage in
// records, is not modelled).
void SetZeroedBuffersPromised(bool promised);

// cuptiActivityGetNumDroppedRecords: the records dropped since the last call.
size_t TakeDroppedRecords();

// cuptiFinalize: forgets every buffer without completing one (observed on a GPU) and forgets the
// client's callbacks.
void FinalizeBuffers();

}  // namespace gprof_fake_cupti
