// CUDA graphs built by stream capture. A graph is the ordered list of ops captured from one
// stream; launching its executable replays them on the launch stream, all under the launch's
// correlation id, as CUPTI reports graph launches.
#include <memory>
#include <mutex>

#include "api_call.h"
#include "cuda_abi.h"
#include "issue.h"
#include "runtime.h"

namespace gprof_fake {
namespace {

cudaError_t Instantiate(cudaGraphExec_t* exec, cudaGraph_t graph) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  if (exec == nullptr || graph == nullptr) return cudaErrorInvalidValue;
  const Graph* source = runtime.graphs.Find(graph);
  if (source == nullptr) return cudaErrorInvalidValue;
  // An executable is a snapshot: destroying or changing the graph later does not affect it.
  auto object = std::make_unique<GraphExec>();
  object->graph_id = source->id;
  object->nodes = source->nodes;
  *exec = reinterpret_cast<cudaGraphExec_t>(runtime.graph_execs.Add(std::move(object)));
  return cudaSuccess;
}

cudaError_t Launch(const ApiCall& call, cudaGraphExec_t exec, cudaStream_t stream,
                   bool per_thread) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  if (exec == nullptr) return cudaErrorInvalidValue;
  const GraphExec* object = runtime.graph_execs.Find(exec);
  if (object == nullptr) return cudaErrorInvalidResourceHandle;
  StreamRef ref;
  if (const cudaError_t error = ResolveStream(runtime, stream, per_thread, &ref);
      error != cudaSuccess) {
    return error;
  }
  // Child-graph nodes are not modelled.
  if (ref.object != nullptr && ref.object->capture) return cudaErrorStreamCaptureUnsupported;
  for (size_t i = 0; i < object->nodes.size(); ++i) {
    const GraphOrigin origin{object->graph_id, static_cast<uint32_t>(i + 1)};
    Issue(runtime, ref, object->nodes[i], call.correlation_id(), origin);
  }
  return cudaSuccess;
}

cudaError_t DestroyExec(cudaGraphExec_t exec) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  if (exec == nullptr) return cudaErrorInvalidValue;
  return runtime.graph_execs.Remove(exec) ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

cudaError_t DestroyGraph(cudaGraph_t graph) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  if (graph == nullptr) return cudaErrorInvalidValue;
  return runtime.graphs.Remove(graph) ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

}  // namespace
}  // namespace gprof_fake

using gprof_fake::ApiCall;

extern "C" cudaError_t CUDARTAPI cudaGraphInstantiate(cudaGraphExec_t* pGraphExec,
                                                      cudaGraph_t graph, unsigned long long flags) {
  ApiCall call("cudaGraphInstantiate");
  static_cast<void>(flags);
  return call.Return(gprof_fake::Instantiate(pGraphExec, graph));
}

extern "C" cudaError_t CUDARTAPI cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec,
                                                               cudaGraph_t graph,
                                                               unsigned long long flags) {
  ApiCall call("cudaGraphInstantiateWithFlags");
  static_cast<void>(flags);
  return call.Return(gprof_fake::Instantiate(pGraphExec, graph));
}

extern "C" cudaError_t CUDARTAPI cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  ApiCall call("cudaGraphLaunch");
  return call.Return(gprof_fake::Launch(call, graphExec, stream, false));
}

extern "C" cudaError_t CUDARTAPI cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec,
                                                      cudaStream_t stream) {
  ApiCall call("cudaGraphLaunch_ptsz");
  return call.Return(gprof_fake::Launch(call, graphExec, stream, true));
}

extern "C" cudaError_t CUDARTAPI cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  ApiCall call("cudaGraphExecDestroy");
  return call.Return(gprof_fake::DestroyExec(graphExec));
}

extern "C" cudaError_t CUDARTAPI cudaGraphDestroy(cudaGraph_t graph) {
  ApiCall call("cudaGraphDestroy");
  return call.Return(gprof_fake::DestroyGraph(graph));
}
