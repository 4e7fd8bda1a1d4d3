// nvtx_odd_ranges: NVTX input that is legal but awkward for the tools, without CUDA.
//   1. push a range named by argv[1], bytes as given (need not be UTF-8, may hold '\n' or '|'),
//      and pop it;
//   2. ranges of two domains that cross on one thread: push "outer A" (default domain),
//      push "crossing B" (domain "libdom"), pop the default domain's "outer A", then pop
//      libdom's "crossing B". Each domain has its own stack, so this is allowed, and the two
//      ranges overlap without nesting.
//   3. with --one-buffer, instead of 1 and 2: 4 rounds of 5 ranges named "buffer 0" .. "buffer 4",
//      each name written into the same char array before its push (a text whose address repeats
//      with other bytes, as a program's formatted names do), 60 ms between rounds: gprof's writer
//      (a pass every 20 ms) has then remembered the array's address under the last name it held.
//      Each "buffer K" is pushed and popped 4 times.
// Each range spins ~200 us so that they have CPU time. stdout: "nvtx_odd_ranges: done".
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

namespace {

void Busy(std::chrono::microseconds how_long) {
  const auto end = std::chrono::steady_clock::now() + how_long;
  while (std::chrono::steady_clock::now() < end) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: nvtx_odd_ranges NAME | --one-buffer\n");
    return 2;
  }
  if (std::strcmp(argv[1], "--one-buffer") == 0) {
    char name[32];
    for (int round = 0; round < 4; ++round) {
      for (int k = 0; k < 5; ++k) {
        std::snprintf(name, sizeof name, "buffer %d", k);
        nvtxRangePushA(name);
        Busy(std::chrono::microseconds(200));
        nvtxRangePop();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(60));
    }
    std::printf("nvtx_odd_ranges: done\n");
    return 0;
  }
  nvtxRangePushA(argv[1]);
  Busy(std::chrono::microseconds(200));
  nvtxRangePop();

  const nvtxDomainHandle_t libdom = nvtxDomainCreateA("libdom");
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = "crossing B";
  nvtxRangePushA("outer A");
  Busy(std::chrono::microseconds(200));
  nvtxDomainRangePushEx(libdom, &attributes);
  Busy(std::chrono::microseconds(200));
  nvtxRangePop();
  Busy(std::chrono::microseconds(200));
  nvtxDomainRangePop(libdom);
  std::printf("nvtx_odd_ranges: done\n");
  return 0;
}
