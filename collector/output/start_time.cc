#include "collector/output/start_time.h"

#include <time.h>

#include <cstdio>

namespace gprof {
namespace {

// Constant-initialized: nothing runs before the constructor sets it.
int64_t g_utc_offset_s = 0;

// Days since 1970-01-01 -> civil date (Howard Hinnant's days_from_civil,
// inverted), valid for any date the clock can hold.
void civil_from_days(int64_t days, int64_t& year, unsigned& month, unsigned& day) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  day = doy - (153 * mp + 2) / 5 + 1;
  month = mp < 10 ? mp + 3 : mp - 9;
  year = static_cast<int64_t>(yoe) + era * 400 + (month <= 2);
}

}  // namespace

void capture_utc_offset() {
  const time_t now = time(nullptr);
  tm local{};
  if (localtime_r(&now, &local)) g_utc_offset_s = local.tm_gmtoff;
}

void format_compact_time(int64_t epoch_seconds, int64_t utc_offset_s, char* out, size_t size) {
  const int64_t t = epoch_seconds + utc_offset_s;
  const int64_t days = (t >= 0 ? t : t - 86399) / 86400;
  const int64_t second_of_day = t - days * 86400;
  int64_t year = 0;
  unsigned month = 0, day = 0;
  civil_from_days(days, year, month, day);
  std::snprintf(out, size, "%04lld%02u%02uT%02lld%02lld%02lld", static_cast<long long>(year), month,
                day, static_cast<long long>(second_of_day / 3600),
                static_cast<long long>(second_of_day / 60 % 60),
                static_cast<long long>(second_of_day % 60));
}

void format_start_time(char* out, size_t size) {
  format_compact_time(time(nullptr), g_utc_offset_s, out, size);
}

}  // namespace gprof
