#include "engine/protocol/json_fields.h"
#include "engine/train/profiler.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "engine/core/device_context.h"
#include "engine/core/error.h"
#include "engine/core/text_files.h"
#include "engine/model/network.h"
#include "engine/train/replica.h"

namespace netsmith {

std::atomic<int64_t> LayerProfiler::s_stepsTimed{0};

// --- LayerProfiler ------------------------------------------------------------------------------

LayerProfiler::LayerProfiler(Network& network, int warmupIterations)
    : m_network(network),
      m_device(network.device()),
      m_deviceClock(network.device().backend() != "cpu"),
      m_warmup(std::max(warmupIterations, 0)) {
  const size_t n = network.graph().nodes.size();
  m_forward.assign(n, 0.0);
  m_backward.assign(n, 0.0);
  m_forwardCalls.assign(n, 0);
  m_backwardCalls.assign(n, 0);
  m_network.attachProfiler(this);
}

LayerProfiler::~LayerProfiler() { m_network.attachProfiler(nullptr); }

void LayerProfiler::reset() {
  std::fill(m_forward.begin(), m_forward.end(), 0.0);
  std::fill(m_backward.begin(), m_backward.end(), 0.0);
  std::fill(m_forwardCalls.begin(), m_forwardCalls.end(), 0);
  std::fill(m_backwardCalls.begin(), m_backwardCalls.end(), 0);
  std::fill(std::begin(m_phase), std::end(m_phase), 0.0);
  m_wait = 0;
  m_step = 0;
  m_betweenSections = 0;
}

StepTimer::Mark LayerProfiler::now() { return {Clock::now(), m_deviceClock ? m_device.mark() : -1}; }

void LayerProfiler::beginStep() {
  s_stepsTimed.fetch_add(1, std::memory_order_relaxed);
  m_network.timeNodes(true);
  if (m_deviceClock) {
    m_device.clearMarks();
    m_pending.clear();
  }
  m_stepStart = now();
}

void LayerProfiler::endStep(double allReduceWaitSeconds) {
  m_network.timeNodes(false);
  if (m_deviceClock) resolveDeviceStep(m_device.mark());
  else m_step += std::chrono::duration<double>(Clock::now() - m_stepStart.host).count();
  m_wait += allReduceWaitSeconds;
  if (++m_steps <= m_warmup) {
    reset();
    return;
  }
  ++m_profiled;
}

// Note [Device-clock profile]: the one wait of a profiled step, then every section's device time
// and the device's time between consecutive sections (and before the first, after the last).
void LayerProfiler::resolveDeviceStep(int stepEnd) {
  m_device.waitForMarks();
  int previousEnd = m_stepStart.device;
  for (const Pending& p : m_pending) {
    const double seconds = m_device.secondsBetween(p.start, p.end);
    const auto i = static_cast<size_t>(p.index);
    switch (p.section) {
      case Section::Forward:
        m_forward[i] += seconds;
        if (p.countCall) ++m_forwardCalls[i];
        break;
      case Section::Backward:
        m_backward[i] += seconds;
        if (p.countCall) ++m_backwardCalls[i];
        break;
      case Section::Phase: m_phase[i] += seconds; break;
    }
    m_betweenSections += std::max(0.0, m_device.secondsBetween(previousEnd, p.start));
    previousEnd = p.end;
  }
  m_betweenSections += std::max(0.0, m_device.secondsBetween(previousEnd, stepEnd));
  m_step += m_device.secondsBetween(m_stepStart.device, stepEnd);
  m_pending.clear();
}

void LayerProfiler::addForward(int node, Mark start) {
  if (m_deviceClock) {
    m_pending.push_back({Section::Forward, node, start.device, m_device.mark(), true});
    return;
  }
  m_forward[static_cast<size_t>(node)] += std::chrono::duration<double>(Clock::now() - start.host).count();
  ++m_forwardCalls[static_cast<size_t>(node)];
}

void LayerProfiler::addBackward(int node, Mark start, bool countCall) {
  if (m_deviceClock) {
    m_pending.push_back({Section::Backward, node, start.device, m_device.mark(), countCall});
    return;
  }
  m_backward[static_cast<size_t>(node)] += std::chrono::duration<double>(Clock::now() - start.host).count();
  if (countCall) ++m_backwardCalls[static_cast<size_t>(node)];
}

void LayerProfiler::add(ProfilePhase phase, Mark start) {
  // Data is the host's work (Note [Device-clock profile]): host time on every device.
  if (m_deviceClock && phase != ProfilePhase::Data) {
    m_pending.push_back({Section::Phase, static_cast<int>(phase), start.device, m_device.mark(), true});
    return;
  }
  m_phase[static_cast<int>(phase)] += std::chrono::duration<double>(Clock::now() - start.host).count();
}

Json LayerProfiler::toJson(const DevicePlan& worker) const {
  const Graph& graph = m_network.graph();
  const double per = m_profiled > 0 ? 1000.0 / static_cast<double>(m_profiled) : 0.0;  // s → ms per iteration
  const double stepMs = m_step * per;
  auto share = [&](double ms) { return stepMs > 0 ? ms / stepMs : 0.0; };

  struct TypeTotals {
    int64_t nodes = 0, calls = 0;
    int64_t fused = 0;  // nodes whose forward the layer before runs (Note [Fused ReLU])
    double forward = 0, backward = 0;
    size_t first = 0;  // graph order of its first node, for equal totals
  };
  std::map<std::string, TypeTotals> types;
  Json nodes = Json::array();
  double forward = 0, backward = 0;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& node = graph.nodes[i];
    if (node.schema->isInput) continue;  // its copy is the "data" phase
    const std::string& type = node.schema->name;
    auto [it, added] = types.try_emplace(type);
    TypeTotals& t = it->second;
    if (added) t.first = i;
    ++t.nodes;
    t.calls += m_forwardCalls[i];
    t.forward += m_forward[i];
    t.backward += m_backward[i];
    forward += m_forward[i];
    backward += m_backward[i];
    Json n = {{"name", node.id},
              {"type", type},
              {"calls", m_forwardCalls[i]},
              {"backward_calls", m_backwardCalls[i]},
              {"forward_ms", m_forward[i] * per},
              {"backward_ms", m_backward[i] * per},
              {"total_ms", (m_forward[i] + m_backward[i]) * per},
              {"share", share((m_forward[i] + m_backward[i]) * per)}};
    if (const int by = m_network.forwardDoneBy(static_cast<int>(i)); by >= 0) {
      n["forward_fused_into"] = graph.nodes[static_cast<size_t>(by)].id;
      ++t.fused;
    }
    nodes.push_back(std::move(n));
  }
  std::vector<std::pair<std::string, TypeTotals>> sorted(types.begin(), types.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    const double ta = a.second.forward + a.second.backward, tb = b.second.forward + b.second.backward;
    return ta != tb ? ta > tb : a.second.first < b.second.first;
  });
  Json layerTypes = Json::array();
  for (const auto& [type, t] : sorted)
    layerTypes.push_back({{"type", type},
                          {"nodes", t.nodes},
                          {"fused_nodes", t.fused},
                          {"calls", t.calls},
                          {"calls_per_iteration", m_profiled > 0 ? static_cast<double>(t.calls) / static_cast<double>(m_profiled) : 0.0},
                          {"forward_ms", t.forward * per},
                          {"backward_ms", t.backward * per},
                          {"total_ms", (t.forward + t.backward) * per},
                          {"share", share((t.forward + t.backward) * per)}});
  const double data = m_phase[static_cast<int>(ProfilePhase::Data)];
  const double buckets = m_phase[static_cast<int>(ProfilePhase::Buckets)];
  const double optimizer = m_phase[static_cast<int>(ProfilePhase::Optimizer)];
  // On the device clock the step holds the device's sections and the time between them; data and
  // the host's all-reduce wait are host figures beside it (Note [Device-clock profile]).
  const double other = m_deviceClock ? m_step - (forward + backward + buckets + optimizer + m_betweenSections)
                                     : m_step - (forward + backward + data + buckets + optimizer + m_wait);
  Json out = {{"id", worker.id},
          {"threads", worker.threads},
          {"batch", worker.batch},
          {"iterations", m_profiled},
          {"timing", m_deviceClock ? "device clock: events around every timed section, one wait per step"
                                   : "wall clock per node"},
          {"forward_ms", forward * per},
          {"backward_ms", backward * per},
          {"data_ms", data * per},
          {"buckets_ms", buckets * per},
          {"optimizer_ms", optimizer * per},
          {"allreduce_wait_ms", m_wait * per},
          {"other_ms", other * per},
          {"step_ms", stepMs},
          {"layer_types", layerTypes},
          {"nodes", nodes}};
  if (m_deviceClock) out["between_sections_ms"] = m_betweenSections * per;
  return out;
}

// --- RunProfile ---------------------------------------------------------------------------------

RunProfile::RunProfile(std::vector<std::unique_ptr<Replica>>& replicas, std::vector<DevicePlan> workers, int warmupIterations)
    : m_plans(std::move(workers)), m_warmup(warmupIterations) {
  for (auto& r : replicas) m_workers.push_back(std::make_unique<LayerProfiler>(r->network(), warmupIterations));
}

RunProfile::~RunProfile() = default;

void RunProfile::iterationDone(double seconds) {
  if (++m_iterations <= m_warmup) return;
  ++m_profiled;
  m_iterationSeconds += seconds;
}

Json RunProfile::toJson() const {
  const double iterationMs = m_profiled > 0 ? 1000.0 * m_iterationSeconds / static_cast<double>(m_profiled) : 0.0;
  Json workers = Json::array();
  for (size_t w = 0; w < m_workers.size(); ++w) {
    Json j = m_workers[w]->toJson(m_plans.at(w));
    j["outside_step_ms"] = iterationMs - j["step_ms"].get<double>();
    workers.push_back(std::move(j));
  }
  return {{"format", "netsmith-profile"},
          {"warmup_iterations", m_warmup},
          {"iterations", m_profiled},
          {"session_iterations", m_iterations},
          {"iteration_ms", iterationMs},
          {"workers", workers}};
}

void RunProfile::publish(EventBus& bus, const std::filesystem::path& runDir) const {
  Json profile = toJson();
  try {
    writeTextAtomically(runDir / "profile.json", protocol::jsonText(profile, 1) + "\n");
  } catch (const Error& e) {
    bus.publish({{"event", "warning"}, {"message", format("the profile was not saved: {}", e.what())}});
  }
  profile["event"] = "profile";
  try {
    bus.publish(profile);
  } catch (const Error&) {
    // events.jsonl could not take the line: the `finished` event that follows fails the same way
    // and says so.
  }
}

// --- the table ----------------------------------------------------------------------------------

namespace {

std::string row(const std::string& name, const std::string& nodes, const std::string& calls, const std::string& fwd,
                const std::string& bwd, double totalMs, double share, const std::string& note = "") {
  char line[256];
  char shareText[16] = "";
  if (share >= 0) std::snprintf(shareText, sizeof shareText, "%5.1f%%", 100.0 * share);
  std::snprintf(line, sizeof line, "  %-26s %5s %8s %11s %12s %10.3f %7s", name.c_str(), nodes.c_str(), calls.c_str(),
                fwd.c_str(), bwd.c_str(), totalMs, shareText);
  std::string s = line;
  if (!note.empty()) s += "  " + note;
  return s + "\n";
}

std::string ms(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

std::string num(double v) {
  char b[32];
  if (v == static_cast<double>(static_cast<int64_t>(v))) std::snprintf(b, sizeof b, "%lld", static_cast<long long>(v));
  else std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

}  // namespace

std::string profileTable(const Json& p) {
  const int64_t iterations = p.value("iterations", int64_t{0});
  const int64_t warmup = p.value("warmup_iterations", int64_t{0});
  std::string s;
  if (iterations == 0) {
    return format("Profile: no steady-state iteration to profile (this session trained {} iterations and the first {} "
                  "are warm-up); train longer, e.g. with a larger --train-samples or --max-epoch.\n",
                  p.value("session_iterations", int64_t{0}), warmup);
  }
  const double iterationMs = p.value("iteration_ms", 0.0);
  for (const Json& w : p.at("workers")) {
    const double step = w.value("step_ms", 0.0);
    if (!s.empty()) s += "\n";
    s += format("Profile of {} ({} thread{}, batch {}): mean of {} training iterations after {} warm-up iterations, ms "
                "per iteration; timing: {}\n",
                w.value("id", std::string()), w.value("threads", 0), w.value("threads", 0) == 1 ? "" : "s",
                w.value("batch", int64_t{0}), iterations, warmup, w.value("timing", std::string()));
    char header[256];
    std::snprintf(header, sizeof header, "  %-26s %5s %8s %11s %12s %10s %7s\n", "layer type", "nodes", "calls/it",
                  "forward ms", "backward ms", "total ms", "share");
    s += header;
    for (const Json& t : w.at("layer_types")) {
      // A fused ReLU's forward is timed in the layer before it (Note [Fused ReLU]).
      const int64_t fused = t.value("fused_nodes", int64_t{0});
      const std::string type = t.value("type", std::string());
      s += row(fused > 0 ? format("{} ({} fused)", type, fused) : type, num(t.value("nodes", 0.0)),
               num(t.value("calls_per_iteration", 0.0)), ms(t.value("forward_ms", 0.0)), ms(t.value("backward_ms", 0.0)),
               t.value("total_ms", 0.0), t.value("share", 0.0));
    }
    const double fwd = w.value("forward_ms", 0.0), bwd = w.value("backward_ms", 0.0);
    const auto shareOf = [&](double v) { return step > 0 ? v / step : 0.0; };
    s += row("all layers", "", "", ms(fwd), ms(bwd), fwd + bwd, shareOf(fwd + bwd));
    const auto phase = [&](const std::string& name, const char* key, const std::string& note = "") {
      const double v = w.value(key, 0.0);
      s += row(name, "", "", "", "", v, shareOf(v), note);
    };
    phase("optimizer step", "optimizer_ms");
    phase("data gather/copy", "data_ms", "dataset → batch, loss target, copy into the Input");
    phase("gradient buckets", "buckets_ms", "copies for the all-reduce during backward");
    phase("all-reduce wait", "allreduce_wait_ms", "blocked on the reduced gradients and statistics");
    if (w.contains("between_sections_ms"))
      phase("between sections (device)", "between_sections_ms",
            "the device idle for the host, the all-reduce, or untimed work");
    phase("other (in the step)", "other_ms", "the step less all of the above");
    phase("step (worker)", "step_ms");
    s += row("iteration (measured)", "", "", "", "", iterationMs, -1,
             format("{} ms outside the worker's step (thread hand-off, reports, events)", ms(w.value("outside_step_ms", 0.0))));
  }
  return s;
}

}  // namespace netsmith
