#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "collector/output/output_file.h"
#include "collector/output/output_path.h"

using namespace gprof;

namespace {

char* env_for_test(const char* name) {
  static char job[] = "job42";
  static char rank[] = "3";
  if (std::strcmp(name, "SLURM_JOB_ID") == 0) return job;
  if (std::strcmp(name, "PMI_RANK") == 0) return rank;
  return nullptr;
}

std::string expand(const char* pattern) {
  PathVariables vars;
  vars.pid = 1234;
  vars.host = "node7";
  vars.rank = "2";
  vars.start_time = "20261122T035700";
  vars.getenv_fn = env_for_test;
  char out[256];
  if (!expand_output_pattern(pattern, vars, out, sizeof out)) return "<invalid>";
  return out;
}

}  // namespace

TEST_CASE("pattern directives expand") {
  CHECK(expand("gprof-%p.gprof") == "gprof-1234.gprof");
  CHECK(expand("%h/%r/%t-%p") == "node7/2/20261122T035700-1234");
  CHECK(expand("%q{SLURM_JOB_ID}.%p") == "job42.1234");
  CHECK(expand("%q{UNSET_VAR}x") == "x");
  CHECK(expand("100%%") == "100%");
}

TEST_CASE("malformed patterns are refused") {
  CHECK(expand("bad%") == "<invalid>");
  CHECK(expand("%z") == "<invalid>");
  CHECK(expand("%q{OPEN") == "<invalid>");
  CHECK(expand("%q{}") == "<invalid>");
  PathVariables vars;
  char tiny[4];
  CHECK_FALSE(expand_output_pattern("abcdef", vars, tiny, sizeof tiny));
}

TEST_CASE("rank comes from the launcher's variable") {
  CHECK(std::string(rank_from_environment(env_for_test)) == "3");
  CHECK(rank_from_environment([](const char*) -> char* { return nullptr; }) == nullptr);
}

TEST_CASE("a reopened output file is the same file, or nothing") {
  char dir[] = "/tmp/gprof-test-XXXXXX";
  REQUIRE(mkdtemp(dir));
  const std::string path = std::string(dir) + "/out.gprof";
  char chosen[512];
  const int fd = create_output_file(path.c_str(), 0600, chosen, sizeof chosen);
  REQUIRE(fd >= 0);
  FileIdentity identity;
  REQUIRE(identify(fd, identity));
  CHECK(write_all_at(fd, "abcdef", 6, 0) == 0);
  // Writes land at gprof's own offset, whatever the descriptor's says.
  CHECK(write_all_at(fd, "XY", 2, 2) == 0);
  const int again = reopen_output_file(path.c_str(), identity);
  REQUIRE(again >= 0);
  CHECK(again > fd);  // moved out of the way
  CHECK(write_all_at(again, "Z", 1, 6) == 0);
  char text[8] = {};
  const int reader = open(path.c_str(), O_RDONLY);
  REQUIRE(pread(reader, text, 7, 0) == 7);
  close(reader);
  CHECK(std::string(text) == "abXYefZ");
  // Another file at that path (renamed over it) is not ours: nothing is reopened.
  const std::string other = std::string(dir) + "/other";
  close(open(other.c_str(), O_WRONLY | O_CREAT, 0600));
  REQUIRE(rename(other.c_str(), path.c_str()) == 0);
  CHECK(reopen_output_file(path.c_str(), identity) == -1);
  int null_fd = open("/dev/null", O_WRONLY);
  CHECK(is_dev_null(null_fd));
  CHECK_FALSE(is_dev_null(fd));
  char absolute[512];
  absolute_path("x.gprof", absolute, sizeof absolute);
  CHECK(absolute[0] == '/');
  CHECK(std::string(absolute).ends_with("/x.gprof"));
  close(null_fd);
  close(again);
  close(fd);
}

TEST_CASE("output files are created exclusively, never truncated, never through a link") {
  char dir[] = "/tmp/gprof-test-XXXXXX";
  REQUIRE(mkdtemp(dir));
  std::string path = std::string(dir) + "/out.gprof";
  char chosen[512];

  int fd = create_output_file(path.c_str(), 0600, chosen, sizeof chosen);
  REQUIRE(fd >= 0);
  CHECK(std::string(chosen) == path);
  CHECK(write_all_at(fd, "abc", 3, 0) == 0);
  close(fd);

  int fd2 = create_output_file(path.c_str(), 0644, chosen, sizeof chosen);
  REQUIRE(fd2 >= 0);
  CHECK(std::string(chosen) == path + ".1");
  struct stat st;
  REQUIRE(fstat(fd2, &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  close(fd2);
  REQUIRE(stat(path.c_str(), &st) == 0);
  CHECK(st.st_size == 3);  // the first file was not truncated

  std::string link = std::string(dir) + "/link.gprof";
  REQUIRE(symlink("/tmp/does-not-matter", link.c_str()) == 0);
  int fd3 = create_output_file(link.c_str(), 0600, chosen, sizeof chosen);
  // EEXIST on the link itself: a new name is chosen, the link is not followed.
  REQUIRE(fd3 >= 0);
  CHECK(std::string(chosen) == link + ".1");
  close(fd3);

  CHECK(create_output_file("/nonexistent-dir/x.gprof", 0600, chosen, sizeof chosen) == -1);
  std::string cleanup = std::string("rm -rf ") + dir;
  CHECK(std::system(cleanup.c_str()) == 0);
}
