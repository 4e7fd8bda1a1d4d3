// How every gpuprof command talks about the files it reads: one line on
// stderr per problem, "gpuprof: error: FILE: ..." or "gpuprof: warning: ...".
#pragma once

#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/analysis/read/profile.h"

namespace gprof::cli {

// Exit statuses: 0 ok, 1 a file could not be read, 2 bad usage (CLI11).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFileError = 1;
inline constexpr int kExitUsage = 2;

void print_error(std::string_view path, std::string_view message);
void print_warning(std::string_view path, std::string_view message);

// An error line for each unreadable file and a warning for each damaged one
// (incomplete, bad frames, skipped records, flush timed out). Returns false
// when some file could not be read at all.
bool check_files(const std::vector<analysis::FileInfo>& files);

// Whether a readable file deserves a warning about its integrity.
bool is_damaged(const ReadStatus& status);

// What belongs under every table of these files: why a file has no GPU
// times, what was lost (gprof's and CUPTI's losses), and how long the
// programs were held at GPROF_MAX_MEMORY (GPROF_ON_FULL=wait).
void print_table_notes(std::FILE* out, const std::vector<analysis::FileInfo>& files);
std::string table_notes(const std::vector<analysis::FileInfo>& files);

// Files the report could not stream (ops_stream.h) and read in memory,
// which needs memory in proportion to the file: one note each on stderr.
// `printed`, when given, holds the notes already printed by this command
// (diff reads each file twice, for its rows and for its findings): each
// file is noted once, with the first reason given.
using InMemoryNotes = std::set<std::string>;  // the paths noted
void print_in_memory_notes(const std::vector<std::pair<std::string, std::string>>& files,
                           InMemoryNotes* printed = nullptr);

// Flushes stdout and says so on stderr when anything written there was lost
// (a full disk, a closed pipe with SIGPIPE ignored): a CI job must not take
// a cut report for a whole one, nor diff's failure for a regression. Returns
// `status`, or when the output or the command `failed`, the status `command`
// gives what it cannot read or write (diff, analyze and export: 2, also over
// a rule's 1; the others: 1 when `status` was kExitOk).
int finish_stdout(std::string_view command, int status, bool failed = false);
// The line finish_stdout prints (`error`: an errno, or 0 when not known);
// clears stdout's error so that it is said once.
void print_stdout_error(int error);

// "'a', 'b*'": patterns (--range, --step) as messages quote them.
std::string quoted_list(const std::vector<std::string>& items);

}  // namespace gprof::cli
