#include "engine/protocol/training_plan.h"

namespace netsmith::protocol {

std::string shapeText(const Shape& shape) {
  std::string s;
  for (int64_t d : shape) s += (s.empty() ? "" : "×") + std::to_string(d);
  return s;
}

Json DeviceMemoryNeed::toJson() const {
  return {{"device", device},
          {"workers", workers},
          {"batch", batch},
          {"validation_block", validationBlock},
          {"parameters_bytes", parametersBytes},
          {"gradients_bytes", gradientsBytes},
          {"optimizer_state_bytes", optimizerStateBytes},
          {"activations_bytes", activationsBytes},
          {"workspace_bytes", workspaceBytes},
          {"base_bytes", baseBytes},
          {"communication_bytes", communicationBytes},
          {"data_bytes", dataBytes},
          {"total_bytes", totalBytes},
          {"capacity_bytes", capacityBytes},
          {"largest_batch", largestBatch}};
}

DeviceMemoryNeed DeviceMemoryNeed::fromJson(const FieldReader& o) {
  DeviceMemoryNeed m;
  m.device = o.text("device");
  m.workers = static_cast<int>(o.integer("workers", 1));
  m.batch = o.integer("batch");
  m.validationBlock = o.integer("validation_block");
  m.parametersBytes = o.integer("parameters_bytes");
  m.gradientsBytes = o.integer("gradients_bytes");
  m.optimizerStateBytes = o.integer("optimizer_state_bytes");
  m.activationsBytes = o.integer("activations_bytes");
  m.workspaceBytes = o.integer("workspace_bytes");
  m.baseBytes = o.integer("base_bytes");
  m.communicationBytes = o.integer("communication_bytes");
  m.dataBytes = o.integer("data_bytes");
  m.totalBytes = o.integer("total_bytes");
  m.capacityBytes = o.integer("capacity_bytes");
  m.largestBatch = o.integer("largest_batch");
  return m;
}

Json TrainingPlan::toJson() const {
  Json devs = Json::array();
  for (const PlannedDevice& d : devices) {
    Json j = {{"id", d.id}, {"load", d.load}, {"batch", d.batch}, {"threads", d.threads}, {"idle", d.idle()}};
    if (!d.name.empty()) j["name"] = d.name;
    if (!d.host.empty()) j["host"] = d.host;
    devs.push_back(std::move(j));
  }
  Json j = {{"devices", devs},
            {"active_devices", activeDevices},
            {"lr_policy", lrPolicy},
            {"batch_size", batchSize},
            {"logical_batch", logicalBatch},
            {"train_samples", trainSamples},
            {"iterations_per_epoch", iterationsPerEpoch},
            {"max_epoch", maxEpoch},
            {"base_lr", baseLr},
            {"effective_lr", effectiveLr},
            {"lr_scale", lrScale},
            {"lr_update_interval", lrUpdateInterval},
            {"warmup_iterations", warmupIterations},
            {"deterministic", deterministic},
            {"precision", precision},
            {"augmentation", augmentationText},
            {"warnings", warnings}};
  if (logicalBatchKept) j["logical_batch_kept"] = true;
  if (accumulation > 1) j["accumulate_gradients"] = accumulation;
  if (clipGradientNorm > 0) j["clip_gradient_norm"] = clipGradientNorm;
  if (emaDecay > 0) j["ema_decay"] = emaDecay;
  if (deterministic) {
    j["chunk"] = chunk;
    j["identical_across_device_counts"] = identicalAcrossDeviceCounts;
  }
  if (!data.empty()) {
    Json sets = Json::array();
    for (const PlannedDataSet& d : data)
      sets.push_back({{"role", d.role}, {"source", d.source}, {"storage", d.storage}, {"samples", d.samples},
                      {"shape", d.shape}, {"disk_bytes", d.diskBytes}, {"memory_bytes", d.memoryBytes}});
    j["data"] = sets;
    j["model_bytes_per_worker"] = modelBytesPerWorker;
    j["activation_bytes_per_worker"] = activationBytesPerWorker;
    j["memory_bytes_needed"] = memoryBytesNeeded;
    j["activation_storage"] = activationStorage;
    if (largestBatchPerDevice > 0) {
      j["device_memory_bytes"] = deviceMemoryBytes;
      j["largest_batch_per_device"] = largestBatchPerDevice;
    }
  }
  if (!memory.empty()) {
    Json needs = Json::array();
    for (const DeviceMemoryNeed& m : memory) needs.push_back(m.toJson());
    j["memory"] = needs;
  }
  if (diskBytesNeeded > 0) {
    j["checkpoint_bytes"] = checkpointBytes;
    j["disk_bytes_needed"] = diskBytesNeeded;
    j["disk_bytes_free"] = diskBytesFree;
  }
  return j;
}

TrainingPlan TrainingPlan::fromJson(const Json& json, const std::string& document) {
  const FieldReader o(json, document);
  TrainingPlan p;
  int64_t offset = 0;
  o.forEachObject("devices", [&](const FieldReader& d) {
    PlannedDevice device;
    device.id = d.text("id");
    device.name = d.text("name");
    device.host = d.text("host");
    device.load = d.number("load", 1.0);
    device.batch = d.integer("batch");
    device.threads = static_cast<int>(d.integer("threads", device.batch > 0 ? 1 : 0));
    device.offset = offset;
    offset += device.batch;
    p.devices.push_back(std::move(device));
  });
  int64_t active = 0;
  for (const PlannedDevice& d : p.devices) active += d.idle() ? 0 : 1;
  p.activeDevices = static_cast<int>(o.integer("active_devices", active));
  p.lrPolicy = o.text("lr_policy");
  // An engine before batch_size was written gave the first device's slice only.
  p.batchSize = o.integer("batch_size", o.integer("batch_per_device"));
  p.logicalBatch = o.integer("logical_batch");
  p.trainSamples = o.integer("train_samples");
  p.iterationsPerEpoch = o.integer("iterations_per_epoch");
  p.maxEpoch = o.integer("max_epoch");
  p.baseLr = o.number("base_lr");
  p.effectiveLr = o.number("effective_lr");
  p.lrScale = o.number("lr_scale", 1.0);
  p.lrUpdateInterval = o.integer("lr_update_interval", 1);
  p.warmupIterations = o.integer("warmup_iterations");
  p.deterministic = o.flag("deterministic");
  p.precision = o.text("precision", "float");
  p.augmentationText = o.text("augmentation", "off");
  p.chunk = o.integer("chunk");
  p.identicalAcrossDeviceCounts = o.flag("identical_across_device_counts");
  p.logicalBatchKept = o.flag("logical_batch_kept");
  p.accumulation = o.integer("accumulate_gradients", 1);
  p.clipGradientNorm = o.number("clip_gradient_norm", 0.0);
  p.emaDecay = o.number("ema_decay", 0.0);
  auto bytes = [&](const char* key) {
    const int64_t v = o.integer(key);
    if (v < 0) o.fail(key, "a number of bytes (0 or more)", o.raw(key));
    return static_cast<uint64_t>(v);
  };
  p.checkpointBytes = bytes("checkpoint_bytes");
  p.diskBytesNeeded = bytes("disk_bytes_needed");
  p.diskBytesFree = bytes("disk_bytes_free");
  o.forEachObject("data", [&](const FieldReader& d) {
    PlannedDataSet set;
    set.role = d.text("role");
    set.source = d.text("source");
    set.storage = d.text("storage");
    set.samples = d.integer("samples");
    set.shape = d.integers("shape");
    set.diskBytes = d.integer("disk_bytes");
    set.memoryBytes = d.integer("memory_bytes");
    p.data.push_back(std::move(set));
  });
  p.modelBytesPerWorker = o.integer("model_bytes_per_worker");
  p.activationBytesPerWorker = o.integer("activation_bytes_per_worker");
  p.memoryBytesNeeded = o.integer("memory_bytes_needed");
  p.activationStorage = o.text("activation_storage", "float32");
  p.deviceMemoryBytes = o.integer("device_memory_bytes");
  p.largestBatchPerDevice = o.integer("largest_batch_per_device");
  o.forEachObject("memory", [&](const FieldReader& m) { p.memory.push_back(DeviceMemoryNeed::fromJson(m)); });
  p.warnings = o.texts("warnings");
  return p;
}

}  // namespace netsmith::protocol
