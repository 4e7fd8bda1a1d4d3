// Creating and writing the sidecar file (DESIGN.md §2.8): exclusive create,
// never follow a link, never truncate; retry short writes and EINTR.
#pragma once

#include <cstddef>

namespace gprof {

// Creates `path`, or `path.1`, `path.2`, ... when it exists. On success
// returns the fd and leaves the name used in `chosen`; on failure returns -1
// with errno set.
int create_output_file(const char* path, unsigned mode, char* chosen, size_t chosen_size);

// Writes all bytes; returns 0 or an errno value.
int write_all(int fd, const void* data, size_t size);

}  // namespace gprof
