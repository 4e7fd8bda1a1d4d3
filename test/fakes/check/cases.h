// The checks of the fake driver, runtime and CUPTI, one function per case. Each case runs in a
// process of its own (CUPTI state is process-wide), with the environment main.cc gives it.
#pragma once

namespace fake_check {

void CallbacksCase();
void ActivityCase();
void DriverCase();
void TimestampCallbackCase();
void ThreadsCase();
void PerThreadBuffersCase();
void SharedBuffersCase();
void KernelNsOverrideCase();
void PageableCopiesCase();

void NoDriverCase();
void SubscriberTakenCase();
void ActivityInUseCase();
void InsufficientPrivilegesCase();
void DropEveryCase();
void ZeroTimestampsCase();
void OutOfOrderCase();
void OutOfOrderSplitCase();
void NoTimestampCallbackCase();
void VersionCase();
void BufferRecordsCase();
void DeclinedBuffersCase();
void UnknownModeCase();

void InjectionCase();
void InjectionAtCuInitCase();
void NoDeviceCase();
void FinalizeCase();

}  // namespace fake_check
