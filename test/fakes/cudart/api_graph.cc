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

cudaError_t Replay(const ApiCall& call, cudaGraphExec_t exec, cudaStream_t stream,
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

// The real runtime launches a graph through the driver; CUPTI reports that call nested inside
// the runtime's.
cudaError_t Launch(const ApiCall& call, cudaGraphExec_t exec, cudaStream_t stream,
                   bool per_thread) {
  const cuGraphLaunch_params params{reinterpret_cast<CUgraphExec>(exec),
                                    reinterpret_cast<CUstream>(stream)};
  ApiCall driver(ApiCall::NestedDriver{}, per_thread ? "cuGraphLaunch_ptsz" : "cuGraphLaunch",
                 per_thread ? CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz
                            : CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
                 &params);
  return driver.Return(Replay(call, exec, stream, per_thread));
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
  const cudaGraphInstantiate_v12000_params params{pGraphExec, graph, flags};
  ApiCall call("cudaGraphInstantiate", CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v12000,
               &params);
  static_cast<void>(flags);
  return call.Return(gprof_fake::Instantiate(pGraphExec, graph));
}

extern "C" cudaError_t CUDARTAPI cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec,
                                                               cudaGraph_t graph,
                                                               unsigned long long flags) {
  const cudaGraphInstantiateWithFlags_v11040_params params{pGraphExec, graph, flags};
  ApiCall call("cudaGraphInstantiateWithFlags",
               CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiateWithFlags_v11040, &params);
  static_cast<void>(flags);
  return call.Return(gprof_fake::Instantiate(pGraphExec, graph));
}

extern "C" cudaError_t CUDARTAPI cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  const cudaGraphLaunch_v10000_params params{graphExec, stream};
  ApiCall call("cudaGraphLaunch", CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, &params);
  return call.Return(gprof_fake::Launch(call, graphExec, stream, false));
}

extern "C" cudaError_t CUDARTAPI cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec,
                                                      cudaStream_t stream) {
  const cudaGraphLaunch_ptsz_v10000_params params{graphExec, stream};
  ApiCall call("cudaGraphLaunch_ptsz", CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
               &params);
  return call.Return(gprof_fake::Launch(call, graphExec, stream, true));
}

extern "C" cudaError_t CUDARTAPI cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  const cudaGraphExecDestroy_v10000_params params{graphExec};
  ApiCall call("cudaGraphExecDestroy", CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecDestroy_v10000,
               &params);
  return call.Return(gprof_fake::DestroyExec(graphExec));
}

extern "C" cudaError_t CUDARTAPI cudaGraphDestroy(cudaGraph_t graph) {
  const cudaGraphDestroy_v10000_params params{graph};
  ApiCall call("cudaGraphDestroy", CUPTI_RUNTIME_TRACE_CBID_cudaGraphDestroy_v10000, &params);
  return call.Return(gprof_fake::DestroyGraph(graph));
}
