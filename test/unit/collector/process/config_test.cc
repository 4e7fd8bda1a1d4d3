#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <string>

#include "collector/process/config.h"

namespace {

std::map<std::string, std::string> g_env;

char* fake_getenv(const char* name) {
  auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.data();
}

}  // namespace

using namespace gprof;

TEST_CASE("defaults when nothing is set") {
  g_env.clear();
  Config c = load_config(fake_getenv);
  CHECK(c.enabled);
  CHECK(std::string(c.output_pattern) == "gprof-%p.gprof");
  CHECK(c.max_memory == (256u << 20));
  CHECK(c.on_full == OnFull::kWait);
  CHECK(c.max_wait_ms == 10000);
  CHECK(c.tsc);
  CHECK(c.file_mode == 0600);
  CHECK(c.fork_policy == ForkPolicy::kFollow);
}

TEST_CASE("valid values are taken") {
  g_env = {{"GPROF_OUTPUT", "/tmp/run-%r.gprof"},
           {"GPROF_MAX_MEMORY", "64M"},
           {"GPROF_ON_FULL", "Drop"},
           {"GPROF_MAX_WAIT_MS", "250"},
           {"GPROF_TSC", "0"},
           {"GPROF_ENABLED", "off"},
           {"GPROF_FILE_MODE", "0644"},
           {"GPROF_FORK", "stop"},
           {"GPROF_LOG_LEVEL", "error"}};
  Config c = load_config(fake_getenv);
  CHECK(std::string(c.output_pattern) == "/tmp/run-%r.gprof");
  CHECK(c.max_memory == (64u << 20));
  CHECK(c.on_full == OnFull::kDrop);
  CHECK(c.max_wait_ms == 250);
  CHECK_FALSE(c.tsc);
  CHECK_FALSE(c.enabled);
  CHECK(c.file_mode == 0644);
  CHECK(c.fork_policy == ForkPolicy::kStop);
  CHECK(c.log_level == LogLevel::kError);
}

TEST_CASE("bad values fall back to the defaults") {
  g_env = {{"GPROF_MAX_MEMORY", "512K"}, {"GPROF_ON_FULL", "block"},  {"GPROF_ENABLED", "maybe"},
           {"GPROF_MAX_WAIT_MS", "0"},   {"GPROF_FILE_MODE", "0777"}, {"GPROF_FORK", "sideways"},
           {"GPROF_OUTPUT", ""},         {"GPROF_LOG_LEVEL", "off"}};
  Config c = load_config(fake_getenv);
  CHECK(c.max_memory == (256u << 20));  // below the 1M floor
  CHECK(c.on_full == OnFull::kWait);
  CHECK(c.max_wait_ms == 10000);
  CHECK(c.enabled);
  CHECK(c.file_mode == 0600);
  CHECK(c.fork_policy == ForkPolicy::kFollow);
  CHECK(std::string(c.output_pattern) == "gprof-%p.gprof");
}

TEST_CASE("size parsing") {
  CHECK(parse_size("4096") == 4096u);
  CHECK(parse_size("1m") == (1u << 20));
  CHECK(parse_size(" 2G ") == (2ull << 30));
  CHECK_FALSE(parse_size("0"));
  CHECK_FALSE(parse_size("12Q"));
  CHECK_FALSE(parse_size(""));
  CHECK_FALSE(parse_size("99999999999999999999"));
}

TEST_CASE("capture windows: GPROF_CAPTURE forms") {
  Config c;
  REQUIRE(parse_capture("cudaProfilerApi", c));
  CHECK(c.capture_mode == CaptureMode::kProfilerApi);
  REQUIRE(parse_capture("nvtx:forward", c));
  CHECK(c.capture_mode == CaptureMode::kNvtx);
  CHECK(std::string(c.capture_name) == "forward");
  CHECK(std::string(c.capture_domain).empty());
  REQUIRE(parse_capture("nvtx:ProfilerStep*@PyTorch", c));
  CHECK(std::string(c.capture_name) == "ProfilerStep*");
  CHECK(std::string(c.capture_domain) == "PyTorch");
  REQUIRE(parse_capture("all", c));
  CHECK(c.capture_mode == CaptureMode::kAll);
  CHECK_FALSE(parse_capture("nvtx:", c));
  CHECK_FALSE(parse_capture("sometimes", c));
  CHECK_FALSE(parse_capture("nvtx:" + std::string(200, 'x'), c));
}

TEST_CASE("capture windows: seconds") {
  CHECK(parse_seconds_as_ms("10") == 10000u);
  CHECK(parse_seconds_as_ms("0.5") == 500u);
  CHECK(parse_seconds_as_ms("1.2345") == 1234u);
  CHECK_FALSE(parse_seconds_as_ms(""));
  CHECK_FALSE(parse_seconds_as_ms("-1"));
  CHECK_FALSE(parse_seconds_as_ms("5s"));
}

TEST_CASE("CUPTI activity setup: GPROF_CUPTI_KINDS and the buffer modes") {
  CHECK(parse_cupti_kinds("all") == kCuptiKindsAll);
  CHECK(parse_cupti_kinds("none") == 0u);
  CHECK(parse_cupti_kinds("kernel") == kCuptiKindKernel);
  CHECK(parse_cupti_kinds("sync,kernel,memset") ==
        (kCuptiKindSync | kCuptiKindKernel | kCuptiKindMemset));
  CHECK_FALSE(parse_cupti_kinds(""));
  CHECK_FALSE(parse_cupti_kinds("kernel,"));
  CHECK_FALSE(parse_cupti_kinds("kernels"));
  g_env.clear();
  Config c = load_config(fake_getenv);
  CHECK(c.cupti_kinds == kCuptiKindsAll);
  CHECK_FALSE(c.cupti_per_thread_buffers);
  CHECK_FALSE(c.cupti_zeroed_buffers);
  CHECK(c.cupti_timestamp_callback);
  g_env["GPROF_CUPTI_KINDS"] = "memcpy,memset";
  g_env["GPROF_CUPTI_TIMESTAMP_CALLBACK"] = "0";
  g_env["GPROF_CUPTI_PER_THREAD_BUFFERS"] = "1";
  g_env["GPROF_CUPTI_ZEROED_BUFFERS"] = "1";
  c = load_config(fake_getenv);
  CHECK(c.cupti_kinds == (kCuptiKindMemcpy | kCuptiKindMemset));
  CHECK(c.cupti_per_thread_buffers);
  CHECK(c.cupti_zeroed_buffers);
  CHECK_FALSE(c.cupti_timestamp_callback);
  g_env.clear();
}

TEST_CASE("GPROF_CUPTI_CALLBACKS: the domains whose API callbacks gprof enables") {
  CHECK(parse_cupti_callbacks("all") == kCuptiCallbacksAll);
  CHECK(parse_cupti_callbacks("runtime") == kCuptiCallbacksRuntime);
  CHECK(parse_cupti_callbacks("driver") == kCuptiCallbacksDriver);
  CHECK(parse_cupti_callbacks("none") == 0u);
  CHECK_FALSE(parse_cupti_callbacks(""));
  CHECK_FALSE(parse_cupti_callbacks("runtime,driver"));
  g_env.clear();
  CHECK(load_config(fake_getenv).cupti_callbacks == kCuptiCallbacksAll);
  g_env["GPROF_CUPTI_CALLBACKS"] = "runtime";
  CHECK(load_config(fake_getenv).cupti_callbacks == kCuptiCallbacksRuntime);
  g_env["GPROF_CUPTI_CALLBACKS"] = "neither";  // warned about, ignored
  CHECK(load_config(fake_getenv).cupti_callbacks == kCuptiCallbacksAll);
  g_env.clear();
}
