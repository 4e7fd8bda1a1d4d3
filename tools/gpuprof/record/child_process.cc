#include "tools/gpuprof/record/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <string_view>

extern char** environ;

namespace gprof::cli {
namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
// Digits reserved in the environment for the pid, filled in after fork.
constexpr size_t kPidDigits = 20;

// The child's environment, "NAME=value" strings in gpuprof's order, changed.
std::vector<std::string> child_environment(const ChildCommand& command) {
  std::map<std::string, std::optional<std::string>, std::less<>> changes(
      command.environment.begin(), command.environment.end());
  if (!command.pid_variable.empty()) changes[command.pid_variable] = std::string(kPidDigits, '0');
  std::vector<std::string> out;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string_view text = *entry;
    const std::string_view name = text.substr(0, text.find('='));
    if (changes.find(name) == changes.end()) out.emplace_back(text);
  }
  for (const auto& [name, value] : changes)
    if (value) out.push_back(name + '=' + *value);
  return out;
}

// Async-signal-safe: writes the pid over the placeholder digits, left-aligned.
void write_pid(char* digits, pid_t pid) {
  char reversed[kPidDigits];
  size_t n = 0;
  auto value = static_cast<unsigned long>(pid);
  do {
    reversed[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0 && n < kPidDigits);
  for (size_t i = 0; i < n; ++i) digits[i] = reversed[n - 1 - i];
  digits[n] = '\0';
}

int exit_code_of(int status, int& signal) {
  if (WIFSIGNALED(status)) {
    signal = WTERMSIG(status);
    return 128 + signal;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// Reads the child's exec errno from the close-on-exec pipe: end of file means
// exec succeeded.
int read_exec_error(int fd) {
  int error = 0;
  size_t got = 0;
  while (got < sizeof error) {
    const ssize_t n = read(fd, reinterpret_cast<char*>(&error) + got, sizeof error - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  return got == sizeof error ? error : 0;
}

}  // namespace

ChildResult run_child(const ChildCommand& command) {
  ChildResult result;
  // Everything the child needs is built before fork: after it, the child only
  // makes async-signal-safe calls.
  std::vector<std::string> environment = child_environment(command);
  std::vector<char*> envp;
  char* pid_digits = nullptr;
  for (std::string& entry : environment) {
    envp.push_back(entry.data());
    if (!command.pid_variable.empty() && entry.starts_with(command.pid_variable + '='))
      pid_digits = entry.data() + command.pid_variable.size() + 1;
  }
  envp.push_back(nullptr);
  std::vector<std::string> args = command.argv;
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  sigset_t waited;
  sigemptyset(&waited);
  for (const int sig : kForwarded) sigaddset(&waited, sig);
  sigaddset(&waited, SIGCHLD);
  // An inherited SIG_IGN for SIGCHLD would make the kernel reap the child
  // itself, and waitpid would never see its status.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  struct sigaction old_chld {};
  sigaction(SIGCHLD, &default_action, &old_chld);
  sigset_t old_mask;
  sigprocmask(SIG_BLOCK, &waited, &old_mask);
  auto restore = [&] {
    // Signals that came after the child's end were meant for it; drop them.
    const timespec now{0, 0};
    while (sigtimedwait(&waited, nullptr, &now) > 0) {
    }
    sigaction(SIGCHLD, &old_chld, nullptr);
    sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  };

  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
    result.error = errno;
    restore();
    return result;
  }
  std::fflush(nullptr);  // our output first, then the program's
  const pid_t pid = fork();
  if (pid < 0) {
    result.error = errno;
    close(exec_pipe[0]);
    close(exec_pipe[1]);
    restore();
    return result;
  }
  if (pid == 0) {
    close(exec_pipe[0]);
    // The program starts with the signal state gpuprof was given.
    sigaction(SIGCHLD, &old_chld, nullptr);
    sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    if (pid_digits) write_pid(pid_digits, getpid());
    execvpe(argv[0], argv.data(), envp.data());
    const int error = errno;
    ssize_t ignored = write(exec_pipe[1], &error, sizeof error);
    (void)ignored;
    _exit(error == ENOENT ? 127 : 126);
  }

  close(exec_pipe[1]);
  const int exec_error = read_exec_error(exec_pipe[0]);
  close(exec_pipe[0]);
  int status = 0;
  if (exec_error != 0) {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    restore();
    result.error = exec_error;
    result.exec_failed = true;
    result.exit_code = exec_error == ENOENT ? 127 : 126;
    return result;
  }

  for (;;) {
    siginfo_t info{};
    // A timeout as well, in case a SIGCHLD is ever merged away.
    const timespec tick{1, 0};
    const int sig = sigtimedwait(&waited, &info, &tick);
    if (sig > 0 && sig != SIGCHLD && info.si_code != SI_KERNEL) kill(pid, sig);
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {  // ECHILD: someone else reaped it
      status = 0;
      break;
    }
  }
  restore();
  result.exit_code = exit_code_of(status, result.signal);
  return result;
}

}  // namespace gprof::cli
