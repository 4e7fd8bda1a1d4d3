// fake_check: the fakes' own test. Without arguments it runs every case in a child process of its
// own, with the environment the case needs (CUPTI's state and the fakes' configuration are
// process-wide and read once), and fails if any case fails. With a case name it runs that case in
// this process, as the children do: `fake_check drop_every` (set the case's environment first).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cases.h"
#include "check.h"

namespace fake_check {
namespace {

struct Case {
  const char* name;
  void (*run)();
  const char* cupti_modes;                   // GPROF_FAKE_CUPTI, or null
  bool inject = false;                       // CUDA_INJECTION64_PATH = the injection probe
  const char* devices = nullptr;             // GPROF_FAKE_DEVICES, or null
  const char* kernel_ns_override = nullptr;  // GPROF_FAKE_KERNEL_NS_OVERRIDE, or null
};

const Case kCases[] = {
    {"callbacks", CallbacksCase, nullptr},
    {"activity", ActivityCase, nullptr},
    {"driver", DriverCase, nullptr},
    {"timestamp_callback", TimestampCallbackCase, nullptr},
    {"threads", ThreadsCase, nullptr},
    {"per_thread_buffers", PerThreadBuffersCase, nullptr},
    {"shared_buffers", SharedBuffersCase, nullptr},
    {"no_driver", NoDriverCase, "no_driver"},
    {"subscriber_taken", SubscriberTakenCase, "subscriber_taken"},
    {"activity_in_use", ActivityInUseCase, "activity_in_use"},
    {"insufficient_privileges", InsufficientPrivilegesCase, "insufficient_privileges"},
    {"drop_every", DropEveryCase, "drop_every=3"},
    {"zero_timestamps", ZeroTimestampsCase, "zero_timestamps_every=2"},
    {"out_of_order", OutOfOrderCase, "out_of_order,buffer_records=2"},
    {"out_of_order_split", OutOfOrderSplitCase, "out_of_order"},
    {"no_timestamp_callback", NoTimestampCallbackCase, "no_timestamp_callback"},
    {"version", VersionCase, "version=12345"},
    {"buffer_records", BufferRecordsCase, "buffer_records=1"},
    {"declined_buffers", DeclinedBuffersCase, nullptr},
    {"unknown_mode", UnknownModeCase, " bogus, version=abc,version=7"},
    {"injection", InjectionCase, nullptr, true},
    {"injection_at_cuinit", InjectionAtCuInitCase, nullptr, true},
    {"no_device", NoDeviceCase, nullptr, false, "0"},
    {"finalize", FinalizeCase, nullptr},
    {"kernel_ns_override", KernelNsOverrideCase, nullptr, false, nullptr,
     "slow=50000,_Z4fastPf=3000,broken,bad=abc"},
    {"pageable_copies", PageableCopiesCase, nullptr},
};

std::string ProbePath() {
  char self[4096] = {};
  const ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string path(self, length > 0 ? static_cast<size_t>(length) : 0);
  return path.substr(0, path.rfind('/') + 1) + "libfake_injection_probe.so";
}

void SetOrUnset(const char* name, const char* value) {
  if (value == nullptr) {
    unsetenv(name);
  } else {
    setenv(name, value, 1);
  }
}

// Runs `c` in a child process with its environment; true when it passed.
bool RunChild(const Case& c, const char* self) {
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    SetOrUnset("GPROF_FAKE_CUPTI", c.cupti_modes);
    SetOrUnset("CUDA_INJECTION64_PATH", c.inject ? ProbePath().c_str() : nullptr);
    SetOrUnset("GPROF_FAKE_DEVICES", c.devices);
    SetOrUnset("GPROF_FAKE_KERNEL_NS_OVERRIDE", c.kernel_ns_override);
    unsetenv("GPROF_FAKE_CUPTI_CLOCK_OFFSET_NS");
    unsetenv("GPROF_FAKE_KERNEL_NS");
    unsetenv("GPROF_FAKE_COPY_BYTES_PER_NS");
    execl(self, self, c.name, static_cast<char*>(nullptr));
    std::perror("fake_check: exec");
    _exit(127);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace
}  // namespace fake_check

int main(int argc, char** argv) {
  using fake_check::kCases;
  if (argc == 2) {
    for (const auto& c : kCases) {
      if (std::strcmp(c.name, argv[1]) != 0) continue;
      c.run();
      return fake_check::Failures() == 0 ? 0 : 1;
    }
    std::fprintf(stderr, "fake_check: no case named %s\n", argv[1]);
    return 2;
  }
  int failed = 0;
  for (const auto& c : kCases) {
    const bool passed = fake_check::RunChild(c, "/proc/self/exe");
    std::printf("%s %s\n", passed ? "PASS" : "FAIL", c.name);
    failed += passed ? 0 : 1;
  }
  std::printf("%d of %zu cases failed\n", failed, sizeof(kCases) / sizeof(kCases[0]));
  return failed == 0 ? 0 : 1;
}
