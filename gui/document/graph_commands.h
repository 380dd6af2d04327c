// Undo commands for every edit of a GraphDocument (STYLE.md: small QUndoCommand classes, moves
// merged through id()/mergeWith). Commands address nodes by id and links by their index in the
// document, never graphics items, so that undo → redo restores the document exactly (order
// included, which is what the project file keeps).
#pragma once

#include <QHash>
#include <QPointF>
#include <QStringList>
#include <QUndoCommand>
#include <QUndoStack>
#include <optional>

#include "gui/document/graph_document.h"

namespace netsmith::gui {

// What copy puts on the clipboard and paste/add insert: nodes and the links between them.
struct GraphFragment {
  std::vector<NodeSpec> nodes;
  std::vector<LinkSpec> links;

  Json toJson() const;  // {"nodes": [...], "links": [...]} in the project file's spelling
  // Nothing when `json` is not such a fragment.
  static std::optional<GraphFragment> fromJson(const Json& json);
};

// The selected nodes and every link between two of them.
GraphFragment copyFragment(const GraphDocument& doc, const std::vector<std::string>& nodeIds);
// The fragment with fresh ids (unique in `doc`, links renamed to match) and positions moved by
// `offset`, ready to be added.
GraphFragment prepareForPaste(const GraphDocument& doc, GraphFragment fragment, QPointF offset);

// Adds nodes (and links among them or to existing nodes) at the end. Used for drops and paste.
class AddFragmentCommand : public QUndoCommand {
 public:
  AddFragmentCommand(GraphDocument* doc, GraphFragment fragment, const QString& text);
  void redo() override;
  void undo() override;

 private:
  GraphDocument* m_doc;
  GraphFragment m_fragment;
};

// Deletes nodes (with every link touching them) and links. Undo puts each back at its old index.
class DeleteCommand : public QUndoCommand {
 public:
  DeleteCommand(GraphDocument* doc, const std::vector<std::string>& nodeIds, const std::vector<int>& linkIndices);
  void redo() override;
  void undo() override;
  bool isEmpty() const { return m_nodes.empty() && m_links.empty(); }

 private:
  GraphDocument* m_doc;
  std::vector<std::pair<int, NodeSpec>> m_nodes;  // ascending index
  std::vector<std::pair<int, LinkSpec>> m_links;  // ascending index
};

// Moves nodes. Consecutive moves of the same set of nodes merge into one step.
class MoveNodesCommand : public QUndoCommand {
 public:
  static constexpr int kId = 0x4e53'0001;
  // id -> (old position, new position)
  // `mergeable` false: a step of its own (auto-arrange), never merged with a drag.
  MoveNodesCommand(GraphDocument* doc, QHash<QString, QPair<QPointF, QPointF>> moves, const QString& text = {},
                   bool mergeable = true);
  void redo() override;
  void undo() override;
  int id() const override { return m_mergeable ? kId : -1; }
  bool mergeWith(const QUndoCommand* other) override;

 private:
  GraphDocument* m_doc;
  QHash<QString, QPair<QPointF, QPointF>> m_moves;
  bool m_mergeable;
};

class AddLinkCommand : public QUndoCommand {
 public:
  AddLinkCommand(GraphDocument* doc, const LinkSpec& link);
  void redo() override;
  void undo() override;

 private:
  GraphDocument* m_doc;
  LinkSpec m_link;
  int m_index = -1;
};

// Replaces a node's parameters (the JSON object the project file holds for it).
class SetParamsCommand : public QUndoCommand {
 public:
  SetParamsCommand(GraphDocument* doc, const std::string& id, Json before, Json after);
  void redo() override;
  void undo() override;

 private:
  GraphDocument* m_doc;
  std::string m_id;
  Json m_before, m_after;
};

// Sets a node's "frozen" and "lr_mult" (Note [Frozen layers]).
class SetNodeTrainingCommand : public QUndoCommand {
 public:
  struct Values {
    bool frozen = false;
    double lrMult = 1.0;
  };
  SetNodeTrainingCommand(GraphDocument* doc, const std::string& id, Values before, Values after);
  void redo() override;
  void undo() override;

 private:
  GraphDocument* m_doc;
  std::string m_id;
  Values m_before, m_after;
};

// Note [Editing several blocks]: frozen and/or lr_mult set on every block of `ids` that has
// parameters to train (the others have none to freeze), as one undo step named `text`. Returns
// how many blocks changed (0: nothing was pushed).
int pushTrainingEdit(QUndoStack* undo, GraphDocument* doc, const QStringList& ids, std::optional<bool> frozen,
                     std::optional<double> lrMult, const QString& text);

// The blocks of `ids` that have parameters to train (the ones Frozen and lr_mult apply to).
QStringList trainableBlocks(const GraphDocument& doc, const QStringList& ids);

class RenameNodeCommand : public QUndoCommand {
 public:
  RenameNodeCommand(GraphDocument* doc, const std::string& from, const std::string& to);
  void redo() override;
  void undo() override;

 private:
  GraphDocument* m_doc;
  std::string m_from, m_to;
};

// Positions for every node: columns by distance from the inputs, one row per node of a column.
QHash<QString, QPointF> autoArrangePositions(const GraphDocument& doc);

}  // namespace netsmith::gui
