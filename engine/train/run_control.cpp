#include "engine/train/run_control.h"

namespace netsmith {

bool RunControl::apply(const std::string& raw) {
  std::string line = raw;
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\n')) line.pop_back();
  while (!line.empty() && line.front() == ' ') line.erase(line.begin());
  if (line == "pause") setPaused(true);
  else if (line == "resume") setPaused(false);
  else if (line == "stop") requestStop();
  else return false;
  return true;
}

}  // namespace netsmith
