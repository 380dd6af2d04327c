// readNnablaFile (nnabla_file.h): the text tree of text_format.h given the meaning of nnabla's
// NNablaProtoBuf (field names as in nnabla.proto); a .nnp's members found in its ZIP directory.
#include "engine/import/nnabla/nnabla_file.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "engine/core/error.h"
#include "engine/import/nnabla/zip_archive.h"

namespace fs = std::filesystem;

namespace netsmith::nnabla_import {

std::string Place::text() const { return line > 0 ? format("{}:{}:{}", file, line, column) : file; }

namespace {

[[noreturn]] void failAt(const std::string& file, int line, int column, const std::string& what) {
  throw Error(format("{}:{}:{}: {}", file, line, column, what));
}

using Handler = std::function<void(const TextField&)>;

std::string describe(const TextField& f) {
  if (f.isMessage) return "{...}";
  return f.quoted ? "\"" + f.scalar + "\"" : f.scalar;
}

// Calls the handler of each field; a field with none is kept in `others` when given, else an error.
void visit(const TextMessage& m, const std::string& file, const std::string& what, const std::map<std::string, Handler>& handlers,
           std::vector<NnSetting>* others = nullptr) {
  for (const TextField& f : m.fields) {
    const auto it = handlers.find(f.name);
    if (it != handlers.end()) {
      it->second(f);
    } else if (others) {
      others->push_back({f.name, describe(f)});
    } else {
      std::string known;
      for (const auto& [name, h] : handlers) known += (known.empty() ? "" : ", ") + name;
      failAt(file, f.line, f.column, format("unknown field '{}' in {} (expected one of: {})", f.name, what, known));
    }
  }
}

const TextMessage& messageOf(const TextField& f, const std::string& file) {
  if (!f.isMessage) failAt(file, f.valueLine, f.valueColumn, format("expected '{' to start the message '{}', found a value", f.name));
  return *f.message;
}

std::string stringOf(const TextField& f, const std::string& file) {
  if (f.isMessage || !f.quoted)
    failAt(file, f.isMessage ? f.line : f.valueLine, f.isMessage ? f.column : f.valueColumn,
           format("expected a quoted string for '{}', found {}", f.name, f.isMessage ? "a message" : "'" + f.scalar + "'"));
  return f.scalar;
}

std::vector<int64_t> shapeOf(const TextField& f, const std::string& file) {
  std::vector<int64_t> dims;
  visit(messageOf(f, file), file, "a shape", {{"dim", [&](const TextField& d) { dims.push_back(textInteger(d, file)); }}});
  return dims;
}

Place placeOf(const TextField& f, const std::string& file) { return {file, f.line, f.column}; }

NnVariableRef variableRef(const TextField& f, const std::string& file) {
  NnVariableRef r;
  std::vector<NnSetting> ignored;
  visit(messageOf(f, file), file, f.name,
        {{"variable_name", [&](const TextField& x) { r.variable = stringOf(x, file); }},
         {"data_name", [&](const TextField& x) { r.dataName = stringOf(x, file); }},
         {"learning_rate_multiplier", [&](const TextField& x) {
            r.learningRateMultiplier = textNumber(x, file);
            r.hasMultiplier = true;
          }}},
        &ignored);
  return r;
}

NnVariable readVariable(const TextField& f, const std::string& file) {
  NnVariable v;
  v.place = placeOf(f, file);
  visit(messageOf(f, file), file, "a variable",
        {{"name", [&](const TextField& x) { v.name = stringOf(x, file); }},
         {"type", [&](const TextField& x) { v.type = stringOf(x, file); }},
         {"repeat_id", [&](const TextField& x) { v.repeatIds.push_back(stringOf(x, file)); }},
         {"shape", [&](const TextField& x) {
            v.shape = shapeOf(x, file);
            v.hasShape = true;
          }},
         {"initializer", [&](const TextField& x) { messageOf(x, file); }}});
  if (v.name.empty()) failAt(file, f.line, f.column, "a variable without a name");
  return v;
}

NnFunction readFunction(const TextField& f, const std::string& file) {
  NnFunction fn;
  fn.place = placeOf(f, file);
  for (const TextField& x : messageOf(f, file).fields) {
    if (x.name == "name") fn.name = stringOf(x, file);
    else if (x.name == "type") fn.type = stringOf(x, file);
    else if (x.name == "repeat_id") fn.repeatIds.push_back(stringOf(x, file));
    else if (x.name == "input") fn.inputs.push_back(stringOf(x, file));
    else if (x.name == "output") fn.outputs.push_back(stringOf(x, file));
    else if (x.name == "context") messageOf(x, file);
    else if (x.name == "repeat_param" || x.name == "recurrent_param") {
      visit(messageOf(x, file), file, x.name,
            {{"repeat_id", [&](const TextField& y) { fn.repeatParamId = stringOf(y, file); }},
             {"times", [&](const TextField& y) { fn.repeatParamTimes = textInteger(y, file); }},
             {"length", [&](const TextField& y) { textInteger(y, file); }},
             {"axis", [&](const TextField& y) { textInteger(y, file); }}});
    } else if (x.name.size() > 6 && x.name.compare(x.name.size() - 6, 6, "_param") == 0) {
      if (fn.param) failAt(file, x.line, x.column, format("a second parameter message '{}' (the first is '{}')", x.name, fn.paramName));
      fn.paramName = x.name;
      fn.param = x.isMessage ? x.message : nullptr;
      messageOf(x, file);
      fn.paramPlace = placeOf(x, file);
    } else {
      failAt(file, x.line, x.column,
             format("unknown field '{}' in a function (expected name, type, repeat_id, input, output, a <type>_param "
                    "message or repeat_param)",
                    x.name));
    }
  }
  if (fn.name.empty()) failAt(file, f.line, f.column, "a function without a name");
  if (fn.type.empty()) failAt(file, f.line, f.column, format("function '{}' has no type", fn.name));
  return fn;
}

NnNetwork readNetwork(const TextField& f, const std::string& file) {
  NnNetwork n;
  n.place = placeOf(f, file);
  visit(messageOf(f, file), file, "a network",
        {{"name", [&](const TextField& x) { n.name = stringOf(x, file); }},
         {"batch_size", [&](const TextField& x) { n.batchSize = textInteger(x, file); }},
         {"repeat_info", [&](const TextField& x) {
            std::string id;
            int64_t times = 0;
            visit(messageOf(x, file), file, "repeat_info",
                  {{"id", [&](const TextField& y) { id = stringOf(y, file); }},
                   {"times", [&](const TextField& y) { times = textInteger(y, file); }}});
            if (id.empty()) failAt(file, x.line, x.column, "repeat_info without an id");
            // Each repeat copies its block `times` times: a bound keeps a damaged count from
            // making millions of layers.
            if (times < 1 || times > 4096)
              failAt(file, x.line, x.column, format("repeat_info '{}': times {} is not a repeat count from 1 to 4096", id, times));
            n.repeatInfo.emplace_back(id, times);
          }},
         {"variable", [&](const TextField& x) { n.variables.push_back(readVariable(x, file)); }},
         {"function", [&](const TextField& x) { n.functions.push_back(readFunction(x, file)); }}});
  if (n.name.empty()) failAt(file, f.line, f.column, "a network without a name");
  return n;
}

NnablaParameter readInlineParameter(const TextField& f, const std::string& file) {
  NnablaParameter p;
  p.origin = placeOf(f, file).text();
  visit(messageOf(f, file), file, "a parameter",
        {{"variable_name", [&](const TextField& x) { p.name = stringOf(x, file); }},
         {"shape", [&](const TextField& x) { p.dims = shapeOf(x, file); }},
         {"data", [&](const TextField& x) { p.values.push_back(static_cast<float>(textNumber(x, file))); }},
         {"need_grad", [&](const TextField& x) { p.needGrad = textFlag(x, file); }}});
  if (p.name.empty()) failAt(file, f.line, f.column, "a parameter without a variable_name");
  int64_t count = 1;
  for (int64_t d : p.dims) {
    if (d < 0 || d > (int64_t{1} << 40) || (d != 0 && count > (int64_t{1} << 40) / d))
      failAt(file, f.line, f.column, format("parameter '{}': dimension {} is not a size", p.name, d));
    count *= d;
  }
  if (count != static_cast<int64_t>(p.values.size()))
    failAt(file, f.line, f.column, format("parameter '{}': its shape has {} values but {} data entries are given", p.name, count, p.values.size()));
  return p;
}

}  // namespace

int64_t textInteger(const TextField& f, const std::string& file) {
  if (f.isMessage || f.quoted)
    failAt(file, f.isMessage ? f.line : f.valueLine, f.isMessage ? f.column : f.valueColumn,
           format("expected an integer for '{}', found {}", f.name, f.isMessage ? "a message" : "a string"));
  const std::string& s = f.scalar;
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  if (i == s.size()) failAt(file, f.valueLine, f.valueColumn, format("expected an integer for '{}', found '{}'", f.name, s));
  // Every int64 field of nnabla's messages is a size, an axis or a count: |v| < 2^53.
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') failAt(file, f.valueLine, f.valueColumn, format("expected an integer for '{}', found '{}'", f.name, s));
    v = v * 10 + (s[i] - '0');
    if (v > (int64_t{1} << 53)) failAt(file, f.valueLine, f.valueColumn, format("'{}' is {}, out of range", f.name, s));
  }
  return negative ? -v : v;
}

double textNumber(const TextField& f, const std::string& file) {
  if (f.isMessage || f.quoted)
    failAt(file, f.isMessage ? f.line : f.valueLine, f.isMessage ? f.column : f.valueColumn,
           format("expected a number for '{}', found {}", f.name, f.isMessage ? "a message" : "a string"));
  std::string s = f.scalar;
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "inf" || lower == "infinity" || lower == "+inf") return HUGE_VAL;
  if (lower == "-inf" || lower == "-infinity") return -HUGE_VAL;
  if (lower == "nan") return NAN;
  if (!s.empty() && (s.back() == 'f' || s.back() == 'F') && s.find_first_of("xX") == std::string::npos) s.pop_back();
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end) failAt(file, f.valueLine, f.valueColumn, format("expected a number for '{}', found '{}'", f.name, f.scalar));
  return v;
}

bool textFlag(const TextField& f, const std::string& file) {
  if (!f.isMessage && !f.quoted) {
    const std::string& s = f.scalar;
    if (s == "true" || s == "True" || s == "t" || s == "1") return true;
    if (s == "false" || s == "False" || s == "f" || s == "0") return false;
  }
  failAt(file, f.isMessage ? f.line : f.valueLine, f.isMessage ? f.column : f.valueColumn,
         format("expected true or false for '{}', found {}", f.name, f.isMessage ? "a message" : "'" + f.scalar + "'"));
}

void readNnablaText(NnablaFile& file, std::string_view text, const std::string& name) {
  auto root = parseTextFormat(text, name);
  const std::string& n = name;
  visit(*root, n, "the file (an NNablaProtoBuf)",
        {{"version", [&](const TextField& x) { stringOf(x, n); }},
         {"global_config", [&](const TextField& x) {
            std::vector<NnSetting> ignored;
            visit(messageOf(x, n), n, "global_config",
                  {{"default_context", [&](const TextField& c) {
                     visit(messageOf(c, n), n, "default_context",
                           {{"backends", [&](const TextField& b) { file.backends.push_back(stringOf(b, n)); }},
                            {"backend", [&](const TextField& b) { file.backends.push_back(stringOf(b, n)); }}},
                           &ignored);
                   }}},
                  &ignored);
          }},
         {"training_config", [&](const TextField& x) {
            std::vector<NnSetting> ignored;
            visit(messageOf(x, n), n, "training_config",
                  {{"max_epoch", [&](const TextField& y) { file.maxEpoch = textInteger(y, n); }},
                   {"iter_per_epoch", [&](const TextField& y) { file.iterPerEpoch = textInteger(y, n); }},
                   {"monitor_interval", [&](const TextField& y) { file.monitorInterval = textInteger(y, n); }},
                   {"save_best", [&](const TextField& y) {
                      file.saveBest = textFlag(y, n);
                      file.hasSaveBest = true;
                    }}},
                  &ignored);
          }},
         {"network", [&](const TextField& x) { file.networks.push_back(readNetwork(x, n)); }},
         {"parameter", [&](const TextField& x) { file.parameters.push_back(readInlineParameter(x, n)); }},
         {"dataset", [&](const TextField& x) {
            NnDataset d;
            d.place = placeOf(x, n);
            visit(messageOf(x, n), n, "dataset",
                  {{"name", [&](const TextField& y) { d.name = stringOf(y, n); }},
                   {"uri", [&](const TextField& y) { d.uri = stringOf(y, n); }},
                   {"batch_size", [&](const TextField& y) { d.batchSize = textInteger(y, n); }},
                   {"shuffle", [&](const TextField& y) { d.shuffle = textFlag(y, n); }},
                   {"no_image_normalization", [&](const TextField& y) { d.noImageNormalization = textFlag(y, n); }}},
                  &d.other);
            file.datasets.push_back(std::move(d));
          }},
         {"optimizer", [&](const TextField& x) {
            NnOptimizer o;
            o.place = placeOf(x, n);
            std::vector<NnSetting> ignored;
            visit(messageOf(x, n), n, "optimizer",
                  {{"name", [&](const TextField& y) { o.name = stringOf(y, n); }},
                   {"network_name", [&](const TextField& y) { o.networkName = stringOf(y, n); }},
                   {"dataset_name", [&](const TextField& y) { o.datasetName = stringOf(y, n); }},
                   {"update_interval", [&](const TextField& y) { o.updateInterval = textInteger(y, n); }},
                   {"data_variable", [&](const TextField& y) { o.dataVariables.push_back(variableRef(y, n)); }},
                   {"loss_variable", [&](const TextField& y) { o.lossVariables.push_back(variableRef(y, n)); }},
                   {"parameter_variable", [&](const TextField& y) { o.parameterVariables.push_back(variableRef(y, n)); }},
                   {"solver", [&](const TextField& y) {
                      for (const TextField& s : messageOf(y, n).fields) {
                        if (s.name == "type") o.solverType = stringOf(s, n);
                        else if (s.name == "weight_decay") o.weightDecay = textNumber(s, n);
                        else if (s.name == "lr_decay") o.lrDecay = textNumber(s, n);
                        else if (s.name == "lr_decay_interval") o.lrDecayInterval = textInteger(s, n);
                        else if (s.isMessage && s.name.size() > 6 && s.name.compare(s.name.size() - 6, 6, "_param") == 0) {
                          o.solverParamName = s.name;
                          for (const TextField& h : s.message->fields) {
                            if (h.isMessage || h.quoted) o.other.push_back({s.name + "." + h.name, describe(h)});
                            // Lamb's bias_correction is a flag: 1 or 0 here, true or false in the project.
                            else if (h.scalar == "true" || h.scalar == "false")
                              o.solverParams.emplace_back(h.name, textFlag(h, n) ? 1.0 : 0.0);
                            else o.solverParams.emplace_back(h.name, textNumber(h, n));
                          }
                        } else {
                          o.other.push_back({s.name, describe(s)});
                        }
                      }
                    }}},
                  &ignored);
            file.optimizers.push_back(std::move(o));
          }},
         {"monitor", [&](const TextField& x) {
            NnMonitor m;
            std::vector<NnSetting> ignored;
            visit(messageOf(x, n), n, "monitor",
                  {{"name", [&](const TextField& y) { m.name = stringOf(y, n); }},
                   {"network_name", [&](const TextField& y) { m.networkName = stringOf(y, n); }},
                   {"dataset_name", [&](const TextField& y) { m.datasetName = stringOf(y, n); }}},
                  &ignored);
            file.monitors.push_back(std::move(m));
          }},
         {"executor", [&](const TextField& x) {
            NnExecutor e;
            e.place = placeOf(x, n);
            std::vector<NnSetting> ignored;
            visit(messageOf(x, n), n, "executor",
                  {{"name", [&](const TextField& y) { e.name = stringOf(y, n); }},
                   {"network_name", [&](const TextField& y) { e.networkName = stringOf(y, n); }},
                   {"data_variable", [&](const TextField& y) { e.dataVariables.push_back(variableRef(y, n)); }},
                   {"output_variable", [&](const TextField& y) { e.outputVariables.push_back(variableRef(y, n)); }}},
                  &ignored);
            file.executors.push_back(std::move(e));
          }}});
}

NnablaFile readNnablaFile(const std::string& path) {
  NnablaFile file;
  file.path = path;
  const std::string extension = fs::path(path).extension().string();
  std::error_code ec;
  NS_CHECK(fs::exists(path, ec), "{}: no such file", path);
  NS_CHECK(!fs::is_directory(path, ec), "{}: is a folder, not a {} file", path, extension);
  if (extension == ".nntxt" || extension == ".prototxt") {
    std::ifstream in(path, std::ios::binary);
    NS_CHECK(in, "{}: cannot open the file", path);
    std::ostringstream all;
    all << in.rdbuf();
    readNnablaText(file, all.str(), path);
    return file;
  }
  NS_CHECK(extension == ".nnp", "{}: expected a .nntxt or .nnp file", path);
  const ZipArchive zip(path);
  bool sawNetwork = false;
  for (const ZipEntry& e : zip.entries()) {
    const std::string ext = fs::path(e.name).extension().string();
    const std::string member = format("{}: {}", path, e.name);
    if (e.name == "nnp_version.txt") {
      std::string v = zip.read(e);
      while (!v.empty() && (v.back() == '\n' || v.back() == '\r' || v.back() == ' ')) v.pop_back();
      file.version = v;
    } else if (ext == ".nntxt" || ext == ".prototxt") {
      readNnablaText(file, zip.read(e), member);
      sawNetwork = true;
    } else if (ext == ".protobuf") {
      for (NnablaParameter& p : decodeParameterProtobuf(zip.read(e), member)) file.parameters.push_back(std::move(p));
    } else if (ext == ".h5") {
      file.parameterFilesNotRead.push_back(e.name);
    }
  }
  NS_CHECK(file.parameterFilesNotRead.empty() || !file.parameters.empty(),
           "{}: its parameters are in {} (HDF5), which this version does not read: save them from nnabla as parameter.protobuf "
           "(nnabla.utils.save.save(..., parameter_format='.protobuf')), or import the network alone from its .nntxt",
           path, file.parameterFilesNotRead.front());
  NS_CHECK(sawNetwork, "{}: the archive holds no .nntxt network definition (members: {}{})", path,
           zip.entries().empty() ? "none" : zip.entries().front().name, zip.entries().size() > 1 ? ", ..." : "");
  return file;
}

// --- ParamReader ------------------------------------------------------------------------------

ParamReader::ParamReader(const NnFunction& f, std::string networkFile) : m_function(f), m_file(std::move(networkFile)) {}

const TextField* ParamReader::field(const std::string& name) const {
  if (!m_function.param) return nullptr;
  const TextField* found = nullptr;
  for (const TextField& f : m_function.param->fields)
    if (f.name == name) found = &f;  // the last one counts, as protobuf reads a repeated singular field
  return found;
}

bool ParamReader::has(const std::string& name) const { return field(name) != nullptr; }

int64_t ParamReader::integer(const std::string& name, int64_t fallback) const {
  const TextField* f = field(name);
  return f ? textInteger(*f, m_file) : fallback;
}
double ParamReader::number(const std::string& name, double fallback) const {
  const TextField* f = field(name);
  return f ? textNumber(*f, m_file) : fallback;
}
bool ParamReader::flag(const std::string& name, bool fallback) const {
  const TextField* f = field(name);
  return f ? textFlag(*f, m_file) : fallback;
}
std::string ParamReader::text(const std::string& name, const std::string& fallback) const {
  const TextField* f = field(name);
  if (!f) return fallback;
  if (f->isMessage) failAt(m_file, f->line, f->column, format("expected a value for '{}', found a message", name));
  return f->scalar;
}
std::vector<int64_t> ParamReader::ints(const std::string& name, std::vector<int64_t> fallback) const {
  if (!m_function.param) return fallback;
  std::vector<int64_t> values;
  bool any = false;
  for (const TextField& f : m_function.param->fields)
    if (f.name == name) {
      values.push_back(textInteger(f, m_file));
      any = true;
    }
  return any ? values : fallback;
}
std::vector<int64_t> ParamReader::shape(const std::string& name, std::vector<int64_t> fallback) const {
  const TextField* f = field(name);
  return f ? shapeOf(*f, m_file) : fallback;
}
void ParamReader::onlyFields(const std::vector<std::string>& known) const {
  if (!m_function.param) return;
  for (const TextField& f : m_function.param->fields) {
    bool ok = false;
    for (const auto& k : known) ok = ok || k == f.name;
    if (!ok) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      failAt(m_file, f.line, f.column,
             format("function '{}' (type {}): unknown field '{}' in {} (expected {})", m_function.name, m_function.type, f.name,
                    m_function.paramName, list.empty() ? "no fields" : "one of: " + list));
    }
  }
}

}  // namespace netsmith::nnabla_import
