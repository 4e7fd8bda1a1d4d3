"""The fakes held to what the real CUPTI answered (issue 29 item 2).

test/fakes/observed/*.json are scripts/gpu-probe's answers on real GPUs: test/programs/cupti_probe,
one case per process. Here the same program runs each case on the fakes, and every answer must
be the one the real library gave, except where KNOWN_DIFFERENCES says why the fake differs; such
a difference must still be one (a fake that starts to agree has its entry removed), so the list
stays true. Keys starting with timing_ or env_ are measurements, not behaviour, and are skipped.
"""

import glob
import json
import os
import subprocess
import tempfile
import unittest

from gprof_e2e import FAKE_LIBRARY_PATH, SOURCE, gpuprof, program, run_program

OBSERVED = sorted(glob.glob(os.path.join(SOURCE, "test", "fakes", "observed", "*.json")))

# (case, key): why the fake answers otherwise. Each names what the fake would need.
KNOWN_DIFFERENCES = {
    ("callbacks", "cb_triple_chevron_launch"):
        "the real runtime loads the module lazily at the first launch (cuLibraryLoadData, "
        "cuLibraryGetKernel, cuKernelGetName callbacks before cudaLaunchKernel); the fake "
        "registers kernels eagerly and makes no library calls",
    ("callbacks", "cb_cudaMallocHost"):
        "the real runtime reports cudaMallocHost as cudaHostAlloc + cuMemHostAlloc",
    ("callbacks", "cb_cudaDeviceSynchronize"):
        "the real runtime calls cuCtxGetCurrent before cuCtxSynchronize_v2",
    ("callbacks", "cb_cudaMemcpy_HtoD_pageable"):
        "the real runtime calls the kind-specific driver copies (cuMemcpyHtoD_v2, "
        "cuMemcpyDtoHAsync_v2, cuMemsetD8_v2); the fake calls cuMemcpy/cuMemcpyAsync/cuMemsetD8",
    ("callbacks", "cb_cudaMemcpyAsync_DtoH_pinned"): "as cb_cudaMemcpy_HtoD_pageable",
    ("callbacks", "cb_cudaMemset"): "as cb_cudaMemcpy_HtoD_pageable",
    ("callbacks", "cb_cudaMemsetAsync"): "as cb_cudaMemcpy_HtoD_pageable",
    ("callbacks", "cb_cudaMalloc"): "the real runtime calls cuMemAlloc_v2, the fake cuMemAlloc",
    ("callbacks", "cb_cudaFree"): "the real runtime calls cuMemFree_v2, the fake cuMemFree",
    ("callbacks", "cb_cudaFreeHost"): "the fake's driver has no cuMemFreeHost callback",
    ("callbacks", "cb_cudaEventRecord_Synchronize"):
        "the fake's runtime makes no nested cuEventRecord/cuEventSynchronize driver calls",
    ("callbacks", "cb_exit_context_primary"):
        "the real runtime makes more nested driver calls (above), so more callbacks",
    ("records", "buffers_completed_on_main_thread"):
        "real CUPTI completes buffers on a thread of its own, even in a forced flush on the "
        "main thread; the fake completes them on the flushing or recording thread",
    ("records", "buffers_completed_on_other_threads"): "as buffers_completed_on_main_thread",
    ("records", "buffers_completed_inside_own_flush"): "as buffers_completed_on_main_thread",
    ("records", "kernel_records"):
        "the fake runtime reports a <<<>>> launch under __cudaLaunchKernel's callback id; the "
        "real CUDA 13.0 runtime reported it as cudaLaunchKernel_v7000",
    ("callbacks", "cb_cudaStreamSynchronize"):
        "the fake's runtime makes no nested cuStreamSynchronize driver call",
}
# The fake keeps no value for the activity attributes other than the per-thread buffers: it
# answers CUPTI_ERROR_NOT_SUPPORTED where the real one gave its defaults.
for _attribute in ("zeroed_out_buffer", "host_pinned", "device_buffer_size",
                   "device_buffer_pool_limit", "device_buffer_pre_allocate"):
    KNOWN_DIFFERENCES[("attributes", _attribute + "_get")] = "no value kept by the fake"
    KNOWN_DIFFERENCES[("attributes", _attribute + "_default")] = "no value kept by the fake"


def probe(case):
    completed = subprocess.run([program("cupti_probe"), case], capture_output=True, text=True,
                               timeout=120,
                               env=dict(os.environ, LD_LIBRARY_PATH=FAKE_LIBRARY_PATH))
    if completed.returncode != 0:
        raise AssertionError(f"cupti_probe {case}: exit {completed.returncode}\n{completed.stderr}")
    return json.loads(completed.stdout)


def compared(key):
    return not (key.startswith("timing_") or key.startswith("env_"))


class ObservedAnswers(unittest.TestCase):
    def test_there_is_an_observation(self):
        self.assertTrue(OBSERVED, "no file under test/fakes/observed/")
        for path in OBSERVED:
            with open(path) as f:
                observed = json.load(f)
            for field in ("date", "gpu", "driver", "cupti"):
                self.assertIn(field, observed["machine"], path)

    def test_fakes_answer_as_the_real_cupti_did(self):
        for path in OBSERVED:
            with open(path) as f:
                observed = json.load(f)
            for case, answers in sorted(observed["cases"].items()):
                fake = probe(case)
                for key, real in sorted(answers.items()):
                    if not compared(key):
                        continue
                    with self.subTest(file=os.path.basename(path), case=case, key=key):
                        if (case, key) in KNOWN_DIFFERENCES:
                            self.assertNotEqual(fake.get(key), real,
                                                "the fake agrees now: remove the known difference")
                        else:
                            self.assertIn(key, fake)
                            self.assertEqual(fake[key], real)

    def test_known_differences_name_observed_answers(self):
        keys = set()
        for path in OBSERVED:
            with open(path) as f:
                for case, answers in json.load(f)["cases"].items():
                    keys |= {(case, key) for key in answers}
        self.assertEqual(set(KNOWN_DIFFERENCES) - keys, set())


class PlainProgram(unittest.TestCase):
    """The fault of issue 29: the real CUPTI answers cuptiActivityFlushAll(0) with success before
    any buffer callbacks exist, and gprof took that for another tool. Under a fake that answers
    as the real one, a plain program gets its GPU records."""

    def test_plain_program_gets_its_gpu_records(self):
        self.assertEqual(probe("flush_order")["flush_before_register"], "CUPTI_SUCCESS")
        with tempfile.TemporaryDirectory() as tmp:
            run = run_program([program("vector_add"), "--iterations", "5"], tmp)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertNotIn("gprof:", run.stderr)
            path = run.files[0]
            out = gpuprof("dump", "--records", "gpu", path).stdout
            kernels = [g for g in map(json.loads, out.splitlines()) if g["kind"] == "kernel"]
            self.assertEqual(len(kernels), 5)
            info = gpuprof("info", path).stdout
            self.assertRegex(info, r"State:\s+SUBSCRIBED")


if __name__ == "__main__":
    unittest.main()
