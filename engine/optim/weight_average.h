// WeightAverage: one replica's exponential moving average of its weights (optimizer.ema_decay),
// kept in its device's memory beside the weights and updated with the device's own kernels.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/device_context.h"
#include "engine/core/tensor.h"

namespace netsmith {

// Note [Weight averaging]
// optimizer.ema_decay = d in (0, 1) keeps, beside the weights w that the solver trains, their
// exponential moving average a (Keras' use_ema, Lightning's EMA callback, timm's ModelEmaV2):
//   - Why. The average of the last ~1/(1 − d) steps' weights usually validates better than the
//     last step's weights (the solver's noise averages out), at the cost of one more copy of the
//     parameters per device and one element-wise pass per step.
//   - What. Every blob that training changes: the trainable parameters (weights and biases) and,
//     as timm averages every state_dict entry, BatchNormalization's running mean and variance.
//     Blobs that training leaves alone (a frozen layer's: Note [Frozen layers]) are not copied.
//   - When. After every solver step, i.e. once per logical batch (after the devices' all-reduce,
//     after config.accumulate_gradients' micro-batches, after the running statistics' all-reduce):
//     a ← d·a + (1 − d)·w, by body::averagedValue (engine/host_device/weight_average.h). A step
//     that skipped its update does not move the average: on a CPU worker a non-finite gradient
//     (Note [Gradient clipping]); on a GPU half precision's overflow (known on the host) and a
//     non-finite gradient (the solver's flag in device memory, which the kernel reads: no wait).
//     Plain decay, no warm-up (timm's optional (1 + n)/(10 + n) is not used).
//   - Start. a starts as a copy of the weights before the first step: the initialisers' or
//     config.initial_parameters' (transfer learning).
//   - Where. Each replica keeps its own average, updated by its own device (no host round trip).
//     Replicas hold the same weights after every step (Note [Reproducible training]), so they hold
//     the same average: in reproducible mode it is the same bits on 1, 2 or 4 devices.
//   - Swapped in. Validation during training exchanges a and w on every replica, validates, and
//     exchanges them back: training continues from w. best.nsparams is written while a is in, and
//     at the end of a completed run a stays in: parameters.nsparams, the finished event's
//     parameters_sha256, evaluation and ONNX export all see the average.
//   - Checkpoints hold both: w as "param/<blob>" (and the solver's state), a as "ema/<blob>", so
//     a resume continues bit for bit. A checkpoint without "ema/" tensors (written before the
//     average was on) resumes with the average started afresh from its weights, and the run says
//     so in a warning. For a stopped run without parameters.nsparams, evaluation reads the newest
//     checkpoint's average (readRunParameters).
class WeightAverage {
 public:
  // A blob to average: its name ("fc1/W") and its tensor in the device's memory.
  struct Blob {
    std::string name;
    Tensor* value = nullptr;
  };

  // Allocates the average (uninitialised until start()) in `device`'s memory; decay in (0, 1).
  WeightAverage(DeviceContext& device, std::vector<Blob> blobs, double decay);

  double decay() const { return m_decay; }
  bool started() const { return m_started; }
  // The average becomes a copy of the values now (queued); nothing once started. The caller makes
  // sure the device holds the newest values (Network::kernelParameters uploads a host view).
  void start();
  // After a solver step: every average moves toward its value (queued), unless `skip` (device
  // memory, may be null) holds nonzero when the work runs. Starts first if not started.
  void update(const int* skip);
  // The averages and the values exchange (queued); starts first if not started.
  void exchange();
  // Host copies for a checkpoint, "ema/<blob>" each (the values when not started). Waits for the
  // device; the worker's thread, or another while the worker is idle.
  std::vector<std::pair<std::string, Tensor>> download();
  // Restores the average from a checkpoint's "ema/<blob>" tensors (`tensors` maps each name to
  // its tensor). False, with nothing changed, when it has none; Error naming `source` when it has
  // some but not every blob, or one of another shape.
  bool restore(const std::map<std::string, const Tensor*>& tensors, const std::string& source);
  // Bytes of the average (the plan counts them).
  int64_t bytes() const;
  // The checkpoints' name of a blob's average.
  static std::string checkpointName(const std::string& blob) { return "ema/" + blob; }

 private:
  DeviceContext& m_device;
  std::vector<Blob> m_blobs;
  std::vector<Tensor> m_average;  // one per blob, the blob's shape, device memory
  float m_decay;
  float m_weight;  // 1 − decay, rounded once
  bool m_started = false;
};

}  // namespace netsmith
