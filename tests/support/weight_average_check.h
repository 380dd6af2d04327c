// Note [Weight averaging] checked from a run folder: consecutive checkpoints (one solver step
// apart when an epoch is one iteration) hold the weights ("param/") and their average ("ema/"), so
// the test recomputes each average from the previous one and the new weights with the body, and
// compares bit for bit; parameters.nsparams must hold the last average. A checkpoint without an
// average (written before optimizer.ema_decay was on) starts it from that checkpoint's weights.
#pragma once

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engine/host_device/weight_average.h"
#include "support/checkpoint_blobs.h"

namespace netsmith::test {

// Empty when every check holds, else what failed. `decay` as the project gives it.
inline std::string averagesFollowWeights(const std::filesystem::path& runDir, double decay) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(runDir / "checkpoints"))
    if (e.path().extension() == ".ckpt") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());  // e0001_i000000.ckpt, ...: in training order
  if (files.size() < 2) return "fewer than 2 checkpoints";
  const float d = static_cast<float>(decay), weight = static_cast<float>(1.0 - decay);
  size_t averaged = 0;
  for (size_t k = 1; k < files.size(); ++k) {
    auto before = blobsOf(files[k - 1]), after = blobsOf(files[k]);
    for (const auto& [name, average] : after) {
      if (name.rfind("ema/", 0) != 0) continue;
      const auto held = before.find(name);
      const std::vector<float>& previous = held != before.end() ? held->second : before.at("param/" + name.substr(4));
      const std::vector<float>& w = after.at("param/" + name.substr(4));
      std::vector<float> expected(w.size());
      for (size_t i = 0; i < w.size(); ++i) expected[i] = body::averagedValue(previous[i], w[i], d, weight);
      if (!sameBits(expected, average)) return files[k] + ": " + name + " is not the step's average";
      if (sameBits(average, w)) return files[k] + ": " + name + " equals the weights";
      ++averaged;
    }
  }
  if (averaged == 0) return "the checkpoints hold no ema/ tensors";
  const auto last = blobsOf(files.back());
  for (const auto& [name, values] : blobsOf((runDir / "parameters.nsparams").string())) {
    const auto average = last.find("ema/" + name);
    const auto& expected = average != last.end() ? average->second : last.at("param/" + name);
    if (!sameBits(values, expected)) return "parameters.nsparams: " + name + " is not the last checkpoint's average";
  }
  return {};
}

}  // namespace netsmith::test
