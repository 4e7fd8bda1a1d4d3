// Runs the command `gpuprof record` profiles, as a shell would: PATH lookup,
// the child's exit status as ours, signals passed on.
//
// Signals. The child stays in gpuprof's process group, so whatever is sent to
// the whole group (Ctrl-C, Ctrl-\, Ctrl-Z from the terminal, a hang-up, a
// job-control kill) reaches the child directly, exactly as it would without
// gpuprof. SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to gpuprof
// alone (kill PID, a job scheduler's SIGTERM) must be passed on, but the same
// signal from the terminal must not reach the child twice. The terminal driver
// sends with si_code SI_KERNEL and kill(2) with SI_USER (sigqueue: SI_QUEUE,
// tgkill: SI_TKILL), so gpuprof forwards every one of those signals except the
// SI_KERNEL ones. A kill(2) aimed at the whole group (kill -TERM -PGID, a
// shell's SIGHUP to its jobs) does reach the child twice: the sender's target
// is not visible to the receiver. For the terminating signals that is
// harmless; it is the documented limit.
//
// While the child runs, those signals are blocked in gpuprof and taken with
// sigwaitinfo (no handler, nothing async), so gpuprof outlives a Ctrl-C that
// stops the child and can still say what was recorded. Afterwards the mask is
// restored and signals act on gpuprof as usual.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gprof::cli {

struct ChildCommand {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH unless it has a '/'
  // Changes to gpuprof's environment: set to the value, or removed (nullopt).
  std::vector<std::pair<std::string, std::optional<std::string>>> environment;
  // When not empty, set to the child's own pid just before exec (for the
  // shim's GPROF_ONLY_PID), without allocating in the forked child.
  std::string pid_variable;
};

struct ChildResult {
  // errno of a failed fork or exec (nothing ran), 0 when the command ran.
  int error = 0;
  bool exec_failed = false;  // error is exec's (else fork's or pipe's)
  // Like a shell's $?: the exit status, or 128 + the signal that killed it;
  // 127 when the command was not found, 126 when it could not be executed.
  int exit_code = 0;
  int signal = 0;  // the signal that killed it, 0 if it exited
};

ChildResult run_child(const ChildCommand& command);

}  // namespace gprof::cli
