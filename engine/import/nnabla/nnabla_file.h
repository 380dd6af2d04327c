// A Neural Network Console / nnabla file read into plain structs: a .nntxt (NNablaProtoBuf in
// the protobuf text format) or a .nnp (a ZIP archive holding nnp_version.txt, one or more .nntxt
// and the parameters as parameter.protobuf). Only what the importer uses is typed; fields of the
// settings sections that it does not map are kept by name so that the import can list them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/import/nnabla/parameter_protobuf.h"
#include "engine/import/nnabla/text_format.h"

namespace netsmith::nnabla_import {

// Where something was written, for messages: "net.nntxt:12:3" (in a .nnp, "model.nnp: network.nntxt:12:3").
struct Place {
  std::string file;
  int line = 0, column = 0;
  std::string text() const;
};

struct NnVariable {
  std::string name;
  std::string type;  // "Buffer", "Parameter"
  std::vector<std::string> repeatIds;
  std::vector<int64_t> shape;  // as written; -1 (or the batch size) first for buffers
  bool hasShape = false;
  Place place;
};

struct NnFunction {
  std::string name;
  std::string type;  // "Convolution", "RepeatStart", ...
  std::vector<std::string> repeatIds;
  std::vector<std::string> inputs, outputs;
  std::string paramName;  // "convolution_param", when the function has one
  std::shared_ptr<const TextMessage> param;
  Place paramPlace;
  std::string repeatParamId;  // repeat_param.repeat_id (RepeatStart, RepeatEnd)
  int64_t repeatParamTimes = 0;
  Place place;
};

struct NnNetwork {
  std::string name;
  int64_t batchSize = 0;
  std::vector<std::pair<std::string, int64_t>> repeatInfo;  // id, times
  std::vector<NnVariable> variables;
  std::vector<NnFunction> functions;
  Place place;
};

// A field the file sets that the reader keeps only to list it ("cache_dir: \"C:\\tmp\"").
struct NnSetting {
  std::string name;
  std::string value;  // as written (a message as "{...}")
};

struct NnDataset {
  std::string name, uri;
  int64_t batchSize = 0;
  bool shuffle = false, noImageNormalization = false;
  std::vector<NnSetting> other;
  Place place;
};

struct NnVariableRef {
  std::string variable, dataName;
  double learningRateMultiplier = 1;
  bool hasMultiplier = false;
};

struct NnOptimizer {
  std::string name, networkName, datasetName;
  int64_t updateInterval = 1;
  std::string solverType;
  double weightDecay = 0, lrDecay = 1;
  int64_t lrDecayInterval = 0;
  std::vector<std::pair<std::string, double>> solverParams;  // <solver>_param fields
  std::string solverParamName;
  std::vector<NnSetting> other;  // solver fields not read (context, ...)
  std::vector<NnVariableRef> dataVariables, lossVariables, parameterVariables;
  Place place;
};

struct NnMonitor {
  std::string name, networkName, datasetName;
};

struct NnExecutor {
  std::string name, networkName;
  std::vector<NnVariableRef> dataVariables, outputVariables;
  Place place;
};

struct NnablaFile {
  std::string path;
  std::string version;  // nnp_version.txt, when a .nnp
  std::vector<std::string> backends;  // global_config.default_context.backends
  int64_t maxEpoch = 0, iterPerEpoch = 0, monitorInterval = 0;
  bool hasSaveBest = false, saveBest = true;
  std::vector<NnNetwork> networks;
  std::vector<NnablaParameter> parameters;  // from parameter.protobuf and inline parameter { }
  std::vector<NnDataset> datasets;
  std::vector<NnOptimizer> optimizers;
  std::vector<NnMonitor> monitors;
  std::vector<NnExecutor> executors;
  std::vector<std::string> parameterFilesNotRead;  // parameter.h5 members (HDF5 is not read)
};

// Reads a .nntxt or .nnp (by extension). Error names the file (and the member of a .nnp), with
// line and column for the text, and says what was expected.
NnablaFile readNnablaFile(const std::string& path);

// The same from text already in memory (`name` is used in messages); merges into `file`.
void readNnablaText(NnablaFile& file, std::string_view text, const std::string& name);

// Typed access to a function's <type>_param message, with errors naming the place.
class ParamReader {
 public:
  ParamReader(const NnFunction& f, std::string networkFile);
  bool has(const std::string& field) const;
  int64_t integer(const std::string& field, int64_t fallback) const;
  double number(const std::string& field, double fallback) const;
  bool flag(const std::string& field, bool fallback) const;
  std::string text(const std::string& field, const std::string& fallback) const;
  std::vector<int64_t> ints(const std::string& field, std::vector<int64_t> fallback) const;  // repeated int64
  std::vector<int64_t> shape(const std::string& field, std::vector<int64_t> fallback) const;  // Shape { dim }
  // Every field of the message must be one of `known` (an unknown one is an error naming it).
  void onlyFields(const std::vector<std::string>& known) const;

 private:
  const TextField* field(const std::string& name) const;
  const NnFunction& m_function;
  std::string m_file;
};

// Scalar conversions used by the reader, with errors naming the place.
int64_t textInteger(const TextField& f, const std::string& file);
double textNumber(const TextField& f, const std::string& file);
bool textFlag(const TextField& f, const std::string& file);

}  // namespace netsmith::nnabla_import
