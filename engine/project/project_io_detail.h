// The parts of project_io.cpp's work shared by its files, inside engine/project only:
//   project_io.cpp        the public API (project_io.h): parse, load, write, save
//   project_reader.cpp    the sections of a file read and checked (parseChecked)
//   project_writer.cpp    the canonical JSON and its text (buildJson, writePretty)
//   project_settings.cpp  the config and optimizer sections, read and written by the settings
//                         table (Note [Settings table])
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "engine/project/json_checker.h"
#include "engine/project/project_io.h"

namespace netsmith::projectio {

using OrderedJson = nlohmann::ordered_json;

inline constexpr const char* kFormatName = "netsmith-project";
// Deeper JSON than this is refused before anything walks it: the checks, copies and dumps that
// follow recurse, and a project is never deeper than about 8 levels.
inline constexpr int kMaxDepth = 64;

// "${DATASETS}" expanded, then made absolute against `baseDir`; nullopt when another "${...}" remains.
std::optional<std::string> resolvePath(const std::string& raw, const std::filesystem::path& baseDir);
// The folder relative paths of `file` resolve against (the current folder for an empty name).
std::filesystem::path folderOf(const std::string& file);

Project parseChecked(const JsonChecker& c, const Json& json, const std::string& path, const ProjectParseOptions& options);
OrderedJson buildJson(const Project& p, const std::filesystem::path& baseDir);
// Sections and their fields one per line; a node, a link or a dataset source on one line each.
void writePretty(const OrderedJson& v, int depth, std::string& out);

// Whole numbers are written without ".0" (positions, loads, scale 1).
OrderedJson numberJson(double d);

// The config (with config.augmentation) and optimizer sections, row by row of the settings table.
void readConfigSection(const JsonChecker& c, const Json& v, Project& out);
void readOptimizerSection(const JsonChecker& c, const Json& v, Project& out);
// Path rows are written as the user spelled them when that still names the same file from baseDir.
OrderedJson configSectionJson(const Project& p, const std::filesystem::path& baseDir);
OrderedJson optimizerSectionJson(const Project& p);

}  // namespace netsmith::projectio
