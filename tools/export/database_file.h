// Where the database is written: OUT.tmp-PID next to OUT (same file
// system, so the final rename is atomic), renamed onto OUT only once it is
// complete and on disk. Until then OUT is untouched: a bad input, a full
// disk or Ctrl-C leaves the old OUT (or none), never half a database.
#pragma once

#include <string>

namespace gprof::exporter {

class DatabaseFile {
 public:
  explicit DatabaseFile(std::string path);
  DatabaseFile(const DatabaseFile&) = delete;
  DatabaseFile& operator=(const DatabaseFile&) = delete;
  // Removes the temporary file unless committed.
  ~DatabaseFile();

  const std::string& temp() const { return temp_; }
  // Creates the empty temporary file (SQLite takes an empty file as a new
  // database), so that an unwritable directory is reported with its errno;
  // false with `error` set.
  bool create(std::string& error);
  // Flushes the temporary file to disk and renames it onto the path; false
  // with `error` set when either fails (the temporary file then removed).
  bool commit(std::string& error);

 private:
  std::string path_;
  std::string temp_;
  bool committed_ = false;
};

}  // namespace gprof::exporter
