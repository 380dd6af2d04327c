#include "engine/optim/weight_average.h"

#include "engine/core/error.h"

namespace netsmith {

WeightAverage::WeightAverage(DeviceContext& device, std::vector<Blob> blobs, double decay)
    : m_device(device),
      m_blobs(std::move(blobs)),
      m_decay(static_cast<float>(decay)),
      m_weight(static_cast<float>(1.0 - decay)) {
  NS_CHECK(decay > 0 && decay < 1, "optimizer.ema_decay: the weight average needs a decay in (0, 1), got {}", decay);
  m_average.reserve(m_blobs.size());
  for (const Blob& b : m_blobs) {
    NS_CHECK(b.value && b.value->storage() == Storage::Float32, "weight average: blob '{}' is not a float32 tensor", b.name);
    m_average.emplace_back(device.deviceAllocator());
    m_average.back().resize(b.value->shape());
  }
}

void WeightAverage::start() {
  if (m_started) return;
  for (size_t i = 0; i < m_blobs.size(); ++i)
    m_device.copy(m_average[i].data(), m_blobs[i].value->data(), m_average[i].size());
  m_started = true;
}

void WeightAverage::update(const int* skip) {
  start();
  for (size_t i = 0; i < m_blobs.size(); ++i)
    m_device.averageToward(m_average[i].data(), m_blobs[i].value->data(), m_average[i].size(), m_decay, m_weight, skip);
}

void WeightAverage::exchange() {
  start();
  for (size_t i = 0; i < m_blobs.size(); ++i)
    m_device.exchange(m_average[i].data(), m_blobs[i].value->data(), m_average[i].size());
}

std::vector<std::pair<std::string, Tensor>> WeightAverage::download() {
  std::vector<std::pair<std::string, Tensor>> out;
  out.reserve(m_blobs.size());
  for (size_t i = 0; i < m_blobs.size(); ++i) {
    // Not started (no step yet): the average would be the values. Read them rather than start
    // here: this may be the trainer's thread, which may copy but not queue kernels.
    const Tensor& from = m_started ? m_average[i] : *m_blobs[i].value;
    Tensor host(m_average[i].shape());
    m_device.download(host.data(), from.data(), host.size());
    out.emplace_back(checkpointName(m_blobs[i].name), std::move(host));
  }
  return out;
}

bool WeightAverage::restore(const std::map<std::string, const Tensor*>& tensors, const std::string& source) {
  size_t found = 0;
  for (const Blob& b : m_blobs) found += tensors.count(checkpointName(b.name));
  if (found == 0) return false;
  for (size_t i = 0; i < m_blobs.size(); ++i) {
    const std::string name = checkpointName(m_blobs[i].name);
    const auto it = tensors.find(name);
    NS_CHECK(it != tensors.end(), "{}: holds a weight average without {}: the file is not this run's", source, name);
    NS_CHECK(it->second->shape() == m_average[i].shape(), "{}: {} has shape {}, the network expects {}", source, name,
             shapeToString(it->second->shape()), shapeToString(m_average[i].shape()));
  }
  for (size_t i = 0; i < m_blobs.size(); ++i)
    m_device.upload(m_average[i].data(), tensors.at(checkpointName(m_blobs[i].name))->data(), m_average[i].size());
  m_device.synchronize();  // the checkpoint's tensors may go once this returns
  m_started = true;
  return true;
}

int64_t WeightAverage::bytes() const {
  int64_t total = 0;
  for (const Tensor& t : m_average) total += t.size() * static_cast<int64_t>(sizeof(float));
  return total;
}

}  // namespace netsmith
