#include "collector/queues/loss_counters.h"

namespace gprof {
namespace {

constinit LossCounters g_losses;
constinit HoldCounters g_holds;

}  // namespace

LossCounters& losses() {
  return g_losses;
}

HoldCounters& holds() {
  return g_holds;
}

}  // namespace gprof
