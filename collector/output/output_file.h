// Creating and writing the sidecar file (docs/architecture.md §2.7): exclusive create,
// never follow a link, never truncate; retry short writes and EINTR.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gprof {

// Creates `path`, or `path.1`, `path.2`, ... when it exists. On success
// returns the fd and leaves the name used in `chosen`; on failure returns -1
// with errno set.
int create_output_file(const char* path, unsigned mode, char* chosen, size_t chosen_size);

// Writes all bytes at `offset` (pwrite: the file's offset is ours to keep,
// whatever else shares or replaces the descriptor), retrying short writes and
// EINTR; returns 0 or an errno value.
int write_all_at(int fd, const void* data, size_t size, uint64_t offset);

// Moves `fd` to a high descriptor number (close-on-exec), out of the way of
// programs that dup2() onto or reuse low numbers; returns the new descriptor
// (the old one is closed), or `fd` itself when no higher one is free.
int move_to_high_descriptor(int fd);

// Which file a descriptor refers to, so that a writer can tell its file from
// whatever a program put at its number (closed it, dup2()ed /dev/null over it).
struct FileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
};
bool identify(int fd, FileIdentity& out);

// `path` made absolute against the working directory (as it is, when that
// fails or does not fit).
void absolute_path(const char* path, char* out, size_t size);

// The descriptor refers to /dev/null.
bool is_dev_null(int fd);

// Opens `path` again for writing, never creating, following a link or
// truncating, and only if it is still the file `expected`; -1 otherwise.
int reopen_output_file(const char* path, const FileIdentity& expected);

}  // namespace gprof
