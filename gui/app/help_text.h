// The documentation as the help window shows it: docs/*.md are written for users and for the
// people who work on Netsmith, whose pointers into the code ("(Note [Settings table],
// `engine/project/settings_table.cpp`)", "(DESIGN.md §7)") mean nothing to someone pressing F1.
#pragma once

#include <QString>

namespace netsmith::gui {

// `markdown` without the parenthesised pointers into the code: a Note's name, a source file, the
// design document. The rest of the text is kept as written.
QString helpTextForReaders(const QString& markdown);

}  // namespace netsmith::gui
