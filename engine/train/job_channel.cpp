#include "engine/protocol/json_fields.h"
#include "engine/train/job_channel.h"

#include "engine/comm/mpi_job.h"

namespace netsmith {
namespace {

class SingleProcess final : public JobChannel {
 public:
  bool leader() const override { return true; }
  int processes() const override { return 1; }
  int processRank() const override { return 0; }
  std::string host(int) const override { return "localhost"; }
  MpiJob* mpi() override { return nullptr; }
  Json agree(const Json& decision) override { return decision; }
  std::vector<Json> gather(const Json& report) override { return {report}; }
  std::string share(const std::string& text) override { return text; }
  bool mustAbandon() const override { return false; }
};

class MpiProcesses final : public JobChannel {
 public:
  MpiProcesses(MpiJob& job, double timeoutS) : m_job(job), m_timeoutS(timeoutS) {}
  bool leader() const override { return m_job.rank() == 0; }
  int processes() const override { return m_job.size(); }
  int processRank() const override { return m_job.rank(); }
  std::string host(int process) const override { return m_job.host(process); }
  MpiJob* mpi() override { return &m_job; }

  Json agree(const Json& decision) override {
    std::string text = leader() ? protocol::jsonText(decision) : std::string();
    guarded([&] { m_job.broadcastText(text, m_timeoutS, "leader's next step"); });
    return Json::parse(text);
  }
  std::vector<Json> gather(const Json& report) override {
    std::vector<std::string> texts;
    guarded([&] { texts = m_job.gatherText(protocol::jsonText(report), m_timeoutS, "iteration report"); });
    std::vector<Json> out;
    for (const auto& t : texts) out.push_back(Json::parse(t));
    return out;
  }
  std::string share(const std::string& leaderText) override {
    std::string text = leader() ? leaderText : std::string();
    guarded([&] { m_job.broadcastText(text, m_timeoutS, "checkpoint"); });
    return text;
  }
  bool mustAbandon() const override { return m_failed; }

 private:
  template <class F>
  void guarded(F f) {
    try {
      f();
    } catch (...) {
      m_failed = true;
      throw;
    }
  }
  MpiJob& m_job;
  double m_timeoutS;
  bool m_failed = false;
};

}  // namespace

std::unique_ptr<JobChannel> JobChannel::forThisProcess(double timeoutS) {
  if (!MpiJob::launchedByMpirun()) return std::make_unique<SingleProcess>();
  MpiJob& job = MpiJob::instance();
  if (job.size() == 1) return std::make_unique<SingleProcess>();
  return std::make_unique<MpiProcesses>(job, timeoutS);
}

}  // namespace netsmith
