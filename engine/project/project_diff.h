// ProjectDiff: what differs between two projects, as data (netsmith-cli diff, the run history's
// Compare window). Settings by JSON path, the network by block name.
//
// Note [Project differences]
// Two projects are compared as they train, not as their files are spelled:
// - Settings: every key of the portable project JSON (projectToPortableJson) outside `network`.
//   A setting of the settings table (Note [Settings table]) is compared by its row's value, named
//   by its path and label; an absent optional value is null, except a solver hyper-parameter the
//   project's solver takes, which is that solver's default (marked `default`), so `alpha` left out
//   and `alpha: 0.001` written are the same Adam. Other keys (name, dataset.*, parallel.*) are
//   compared value by value under objects, whole for arrays and scalars; absent is null.
// - Blocks by their name (the node id): a name only in B is added, only in A removed; a block in
//   both is changed when its type, a parameter (each one with the op's default filled in, so a
//   parameter written at its default equals one left out), `frozen` or `lr_mult` differs. A
//   block's position on the canvas is not compared: it changes nothing that trains.
// - Links as (from, to, port): in one and not the other is added or removed.
// Numbers compare by value (1 equals 1.0).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/project/project.h"

namespace netsmith {

// One value that differs: a setting ("optimizer.lr") or a field of a block ("params.outmaps").
struct ValueChange {
  std::string path;   // the JSON path of a setting; a block's field: "type", "params.kernel", "frozen", "lr_mult"
  std::string label;  // the settings table's label ("Max epoch"); empty when the table has no row
  Json a, b;          // null: not set (absent)
  bool aDefault = false, bDefault = false;  // the value is a default filled in, not written
  std::string absentText;  // what an absent value means, from the settings table ("off"); may be empty
};

struct BlockChange {
  enum class Kind { Added, Removed, Changed };
  std::string id;
  Kind kind = Kind::Changed;
  std::string typeA, typeB;                     // empty on the side that has no such block
  Json paramsA = Json::object(), paramsB = Json::object();  // as written, for an added or removed block
  std::vector<ValueChange> fields;              // Changed: the fields that differ
};

struct LinkChange {
  LinkSpec link;
  bool added = false;  // false: removed (in A, not in B)
};

struct ProjectDiff {
  std::vector<ValueChange> settings;
  std::vector<BlockChange> blocks;  // A's order, then the blocks only B has in B's order
  std::vector<LinkChange> links;    // removed in A's order, then added in B's order
  bool empty() const { return settings.empty() && blocks.empty() && links.empty(); }
};

// What changes from `a` to `b` (Note [Project differences]).
ProjectDiff diffProjects(const Project& a, const Project& b);

// {"settings": [{path, label, a, b, a_default, b_default}], "blocks": [{id, change: added |
// removed | changed, type_a, type_b, params_a, params_b, fields: [{field, a, b, a_default,
// b_default}]}], "links": [{from, to, port, change: added | removed}]}.
Json projectDiffToJson(const ProjectDiff& diff);

const char* blockChangeName(BlockChange::Kind kind);

}  // namespace netsmith
