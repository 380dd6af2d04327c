// netsmith-cli project set-classes PROJECT [N]: sets the classifier head's output count (Note
// [Classifier head], engine/project/classifier_head.h) to N, or to the training dataset's number of
// classes, and saves the project (atomically, as the GUI does).
#include "engine/cli/project_command.h"

#include <cstdio>
#include <string>

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/project/classifier_head.h"
#include "engine/project/project_io.h"

namespace netsmith::cli {

const CommandSpec kProject{
    "project",
    "set-classes PROJECT.nsproj [N] [--output OUT.nsproj]",
    "Edits a project file: set-classes sets the classifier head's output count to N classes.",
    "The head is the Affine or Convolution whose outputs the classification loss reads (after a Softmax,\n"
    "Flatten or pooling, if any). Without N the training dataset is read and its number of classes used\n"
    "(classes.txt beside a CSV, else the largest label + 1). With config.initial_parameters (an imported\n"
    "model, a previous run), the head's weights then have another shape than the file's: training\n"
    "re-initialises them and reports it, and loads the other layers. The project is saved in place\n"
    "(or to --output) atomically.\n"
    "Exit status: 0 written (or already N), 1 failed, 2 bad command line.",
    {{"--output", "OUT.nsproj", "write the edited project here instead of over PROJECT"}},
    2,
    3};

namespace {

int64_t datasetClasses(const Project& project) {
  const Dataset data = loadDataSource(project.dataset.training, project.dataset.scale, project.dataset.onError);
  const int64_t classes = std::max<int64_t>(data.numClasses, static_cast<int64_t>(data.classNames.size()));
  NS_CHECK(classes > 0, "{}: the labels are not class indices (several values per sample): give N", data.labelSource);
  return classes;
}

}  // namespace

int runProject(const ParsedArgs& args) {
  if (args.positional[0] != "set-classes")
    throw UsageError{format("unknown project command '{}' (project commands: set-classes; usage: netsmith-cli project {})",
                            args.positional[0], kProject.usage)};
  const std::string path = args.positional[1];
  int64_t classes = 0;
  if (args.positional.size() > 2) {
    const std::string& n = args.positional[2];
    size_t used = 0;
    try {
      classes = std::stoll(n, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != n.size() || classes < 2)
      throw UsageError{format("set-classes: N must be a whole number of classes >= 2, got '{}'", n)};
  }
  if (args.has("--output") && args.value("--output").empty()) throw UsageError{"--output needs a file name"};
  try {
    Project project = loadProject(path);
    if (classes == 0) classes = datasetClasses(project);
    const ClassifierHead head = setClassCount(project, classes);
    const std::string out = args.has("--output") ? args.value("--output") : path;
    if (head.outputs == classes && out == path) {
      std::printf("%s: the head '%s' (%s) already outputs %lld classes; nothing changed\n", path.c_str(), head.nodeId.c_str(),
                  head.type.c_str(), static_cast<long long>(classes));
      return 0;
    }
    saveProject(project, out);
    std::printf("%s: set the head '%s' (%s) to %lld outputs (was %lld)%s\n", out.c_str(), head.nodeId.c_str(),
                head.type.c_str(), static_cast<long long>(classes), static_cast<long long>(head.outputs),
                project.config.initialParameters.empty()
                    ? ""
                    : "; its weights have another shape than config.initial_parameters' and will be re-initialized");
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "netsmith-cli: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace netsmith::cli
