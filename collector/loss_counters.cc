#include "collector/loss_counters.h"

namespace gprof {
namespace {

constinit LossCounters g_losses;

}  // namespace

LossCounters& losses() {
  return g_losses;
}

}  // namespace gprof
