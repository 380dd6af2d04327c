#include "engine/backend/cuda/cuda_architectures.h"

#include <sstream>

#include "engine/core/error.h"

#ifndef NETSMITH_CUDA_ARCHITECTURES_BUILT
#define NETSMITH_CUDA_ARCHITECTURES_BUILT ""
#endif

namespace netsmith::cuda {

const std::string& builtArchitectures() {
  static const std::string built = NETSMITH_CUDA_ARCHITECTURES_BUILT;
  return built;
}

std::vector<CudaArchitecture> parseArchitectures(const std::string& list) {
  std::vector<CudaArchitecture> out;
  std::istringstream words(list);
  for (std::string word; words >> word;) {
    CudaArchitecture a;
    const size_t dash = word.find('-');
    const std::string kind = dash == std::string::npos ? "" : word.substr(dash + 1);
    try {
      a.number = std::stoi(word.substr(0, dash));
    } catch (const std::exception&) {
      NS_THROW("CUDA architecture \"{}\": expected a number such as 75, 90-real or 75-virtual", word);
    }
    NS_CHECK(kind.empty() || kind == "real" || kind == "virtual",
             "CUDA architecture \"{}\": expected -real, -virtual or nothing after the number", word);
    a.sass = kind != "virtual";
    a.ptx = kind != "real";
    out.push_back(a);
  }
  return out;
}

bool architecturesRun(const std::vector<CudaArchitecture>& built, int cc) {
  for (const CudaArchitecture& a : built) {
    if (a.sass && a.number / 10 == cc / 10 && a.number <= cc) return true;
    if (a.ptx && a.number <= cc) return true;
  }
  return false;
}

std::string computeCapabilityText(int cc) { return format("{}.{}", cc / 10, cc % 10); }

std::string describeArchitectures(const std::string& built) {
  std::vector<std::string> parts;
  for (const CudaArchitecture& a : parseArchitectures(built)) {
    if (a.sass) parts.push_back(format("sm_{}", a.number));
    if (a.ptx) parts.push_back(format("compute_{} PTX", a.number));
  }
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) text += (i ? (i + 1 == parts.size() ? " and " : ", ") : "") + parts[i];
  return text.empty() ? "no GPU code" : text;
}

std::string noKernelImageMessage(const std::string& id, const std::string& name, int cc, const std::string& built) {
  const std::string carries = describeArchitectures(built);
  const std::string head = format("{} ({}, compute capability {}, sm_{}) cannot run this build's kernels: it carries {}",
                                  id, name, computeCapabilityText(cc), cc, carries);
  if (cc < 75)
    return head + format(". CUDA 13, which Netsmith is built with, supports compute capability 7.5 (Turing) and "
                         "newer; use the CPU instead (--devices cpu:0)");
  return head + format(". Rebuild for it: installer/build.sh -DNETSMITH_CUDA_ARCHITECTURES={} (or =all, as the "
                       "Debian package is built), or use the CPU (--devices cpu:0)",
                       cc);
}

}  // namespace netsmith::cuda
