// expandRepeats (Note [Repeat expansion]).
#include "engine/import/nnabla/repeat_expansion.h"

#include <algorithm>
#include <map>
#include <regex>

#include "engine/core/error.h"

namespace netsmith::nnabla_import {

namespace {

// A network may not grow past this many functions by its repeats (a damaged times count).
constexpr size_t kMaxExpandedFunctions = 200000;

std::string withSuffix(const std::string& name, const std::string& id, int64_t i) { return format("{}_{}_{}", name, id, i); }

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

int repeatIndex(const std::vector<std::string>& ids, const std::string& id) {
  const auto it = std::find(ids.begin(), ids.end(), id);
  return it == ids.end() ? -1 : static_cast<int>(it - ids.begin());
}

class Expander {
 public:
  Expander(const NnNetwork& network, const std::set<std::string>& parameterNames) {
    for (const auto& [id, times] : network.repeatInfo) {
      const std::regex old(std::regex_replace(id, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") + R"(\[([0-9]+)\]$)");
      for (const std::string& p : parameterNames) {
        std::smatch m;
        if (std::regex_search(p, m, old) && m[1].length() < 9 && std::stoll(m[1].str()) < times) m_oldNames = true;
      }
    }
  }

  NnNetwork expand(NnNetwork net) {
    while (!net.repeatInfo.empty()) net = expandFirst(std::move(net));
    return net;
  }

 private:
  NnNetwork expandFirst(NnNetwork in) {
    const auto [id, times] = in.repeatInfo.front();
    NnNetwork out;
    out.name = in.name;
    out.batchSize = in.batchSize;
    out.place = in.place;
    out.repeatInfo.assign(in.repeatInfo.begin() + 1, in.repeatInfo.end());

    for (const NnVariable& v : in.variables) {
      const bool parameter = v.type == "Parameter";
      if (parameter) m_originals.try_emplace(v.name);
      const int pos = repeatIndex(v.repeatIds, id);
      if (pos < 0) {
        if (parameter && v.repeatIds.empty() && m_originals[v.name].empty()) m_originals[v.name].push_back(v.name);
        out.variables.push_back(v);
        continue;
      }
      for (int64_t i = 0; i < times; ++i) {
        NnVariable copy = v;
        copy.repeatIds.erase(copy.repeatIds.begin() + pos);
        if (parameter) {
          copy.name = m_oldNames ? withSuffix(v.name, id, i) : replaceAll(v.name, "{" + id + "}", format("_{}", i));
          m_originals[v.name].push_back(copy.name);
        } else {
          copy.name = withSuffix(v.name, id, i);
        }
        out.variables.push_back(std::move(copy));
      }
    }

    std::map<std::string, std::vector<std::string>> endValues, startValues;
    for (const NnFunction& f : in.functions) {
      if (f.type != "RepeatEnd" || f.repeatParamId != id) continue;
      if (f.inputs.size() != 1 || f.outputs.size() != 1)
        fail(f, format("a RepeatEnd reads one variable and writes one, not {} and {}", f.inputs.size(), f.outputs.size()));
      if (f.repeatParamTimes != times)
        fail(f, format("repeat_param.times is {} but repeat_info '{}' says {} times", f.repeatParamTimes, id, times));
      for (int64_t i = 0; i < times; ++i) endValues[f.outputs[0]].push_back(withSuffix(f.inputs[0], id, i));
    }
    for (const NnFunction& f : in.functions) {
      if (f.type != "RepeatStart" || f.repeatParamId != id) continue;
      if (f.inputs.size() != 2 || f.outputs.size() != 1)
        fail(f, format("a RepeatStart reads two variables (the block's input and its last output) and writes one, not {} and {}",
                       f.inputs.size(), f.outputs.size()));
      for (int64_t i = 0; i < times; ++i) {
        std::string v;
        if (i == 0) {
          v = f.inputs[0];
          if (endValues.count(v)) v = endValues[v][times - 1];
        } else {
          v = f.inputs[1];
          v = endValues.count(v) ? endValues[v][i - 1] : withSuffix(v, id, i - 1);
        }
        startValues[f.outputs[0]].push_back(v);
      }
    }

    for (const NnFunction& f : in.functions) {
      if ((f.type == "RepeatStart" || f.type == "RepeatEnd") && f.repeatParamId == id) continue;
      const int pos = repeatIndex(f.repeatIds, id);
      if (pos < 0) {
        NnFunction copy = f;
        for (std::string& v : copy.inputs)
          if (endValues.count(v)) v = endValues[v][times - 1];
        out.functions.push_back(std::move(copy));
        continue;
      }
      for (int64_t i = 0; i < times; ++i) {
        NnFunction copy = f;
        copy.repeatIds.erase(copy.repeatIds.begin() + pos);
        copy.name = withSuffix(f.name, id, i);
        for (std::string& v : copy.inputs) {
          const auto original = m_originals.find(v);
          if (original != m_originals.end()) {
            if (static_cast<int64_t>(original->second.size()) == times) v = original->second[i];
          } else if (startValues.count(v)) {
            v = startValues[v][i];
          } else if (endValues.count(v)) {
            v = endValues[v][i];
          } else {
            v = withSuffix(v, id, i);
          }
        }
        for (std::string& v : copy.outputs) v = withSuffix(v, id, i);
        out.functions.push_back(std::move(copy));
      }
      if (out.functions.size() > kMaxExpandedFunctions)
        throw Error(format("{}: network '{}': its repeats expand to more than {} functions", in.place.text(), in.name,
                           kMaxExpandedFunctions));
    }
    return out;
  }

  [[noreturn]] void fail(const NnFunction& f, const std::string& what) const {
    throw Error(format("{}: function '{}' (type {}): {}", f.place.text(), f.name, f.type, what));
  }

  bool m_oldNames = false;
  std::map<std::string, std::vector<std::string>> m_originals;  // parameter → its names in the copies
};

}  // namespace

NnNetwork expandRepeats(const NnNetwork& network, const std::set<std::string>& parameterNames) {
  for (const NnFunction& f : network.functions)
    if ((f.type == "RepeatStart" || f.type == "RepeatEnd")) {
      bool declared = false;
      for (const auto& [id, times] : network.repeatInfo) declared = declared || id == f.repeatParamId;
      if (!declared)
        throw Error(format("{}: function '{}' (type {}): repeat_param.repeat_id '{}' is not one of the network's repeat_info ids",
                           f.place.text(), f.name, f.type, f.repeatParamId));
    }
  return Expander(network, parameterNames).expand(network);
}

}  // namespace netsmith::nnabla_import
