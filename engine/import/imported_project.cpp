#include "engine/import/imported_project.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "engine/core/error.h"
#include "engine/project/project_io.h"
#include "engine/model/checkpoint.h"

namespace fs = std::filesystem;

namespace netsmith {

Project importedProject(const onnx_import::ImportedNetwork& network, const ImportedProjectOptions& options) {
  const fs::path target = fs::absolute(options.projectPath).lexically_normal();
  NS_CHECK(target.extension() == ".nsproj", "--output {}: expected a project file name ending in .nsproj", options.projectPath);
  const fs::path folder = target.parent_path();
  const std::string stem = target.stem().string();
  Project p;
  p.name = fs::path(options.sourceFile).stem().string();
  p.path = target.string();
  p.network = network.network;
  const std::string training = options.trainingCsv.empty() ? stem + ".csv" : options.trainingCsv;
  // Relative spellings are kept by the writer when they name the same file (project_io.h).
  p.original = {{"dataset", {{"training", {{"csv", training}}}}}};
  if (options.writeParameters) p.original["config"] = {{"initial_parameters", stem + ".nsparams"}};
  const auto resolve = [&](const std::string& s) {
    const fs::path f(s);
    return (f.is_absolute() ? f : folder / f).lexically_normal().string();
  };
  p.dataset.training.format = "csv";
  p.dataset.training.csv = resolve(training);
  if (!options.validationCsv.empty()) {
    p.dataset.validation.format = "csv";
    p.dataset.validation.csv = resolve(options.validationCsv);
    p.original["dataset"]["validation"] = {{"csv", options.validationCsv}};
  }
  if (options.writeParameters) p.config.initialParameters = (folder / (stem + ".nsparams")).string();
  p.parallel.devices = {"cpu:0"};
  if (options.adjust) options.adjust(p);
  return p;
}

ImportedProjectFiles writeImportedProject(onnx_import::ImportedNetwork& network, const ImportedProjectOptions& options) {
  const Project project = importedProject(network, options);
  const fs::path target(project.path);
  const fs::path params = target.parent_path() / (target.stem().string() + ".nsparams");
  for (const fs::path& f : {target, params}) {
    std::error_code ec;
    if (!options.overwrite && (options.writeParameters || f == target) && fs::exists(f, ec))
      NS_THROW("{}: already exists: choose another --output, or give --force to replace it", f.string());
  }
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  NS_CHECK(!ec, "{}: cannot create the folder: {}", target.parent_path().string(), ec.message());

  CheckpointData data;
  data.meta = {{"format", "netsmith-parameters"},
               {"source", fs::absolute(options.sourceFile).lexically_normal().string()},
               {"producer", network.producer},
               {"opset", network.opset},
               {"imported_by", "netsmith-cli import"}};
  ImportedProjectFiles files{target.string(), options.writeParameters ? params.string() : std::string(), 0};
  for (auto& [name, tensor] : network.parameters) {
    files.parameterValues += tensor.size();
    data.tensors.emplace_back(name, std::move(tensor));
  }
  network.parameters.clear();

  const std::string tag = format(".import-{}.tmp", ::getpid());
  const fs::path paramsTemp = params.parent_path() / ("." + params.filename().string() + tag);
  const fs::path projectTemp = target.parent_path() / ("." + target.filename().string() + tag);
  const auto cleanUp = [&] {
    std::error_code ignored;
    fs::remove(paramsTemp, ignored);
    fs::remove(projectTemp, ignored);
  };
  try {
    if (options.writeParameters) writeCheckpoint(paramsTemp.string(), data);
    // The project is checked as a file would be read: the same text, loaded back.
    Project written = project;
    saveProject(written, projectTemp.string());
    Project check = parseProjectText(projectToText(written, target.string()), target.string());
    NS_CHECK(check.config.initialParameters == (options.writeParameters ? params.string() : std::string()),
             "internal: the written project names {} as its parameters", check.config.initialParameters);
    if (options.writeParameters) fs::rename(paramsTemp, params);
    fs::rename(projectTemp, target);
  } catch (const fs::filesystem_error& e) {
    cleanUp();
    NS_THROW("{}: cannot write the imported project: {}", target.string(), e.code().message());
  } catch (...) {
    cleanUp();
    throw;
  }
  return files;
}

}  // namespace netsmith
