// Where the console finds its documentation and its sample projects, and which part of the
// documentation belongs to which page.
//
// Note [Help locations]
// The .deb installs the docs/ folder as /usr/share/doc/netsmith/ and the samples (projects/*.nsproj)
// as /usr/share/netsmith/projects/ (packaging/Packaging.cmake); any other prefix has them at the
// same place relative to bin/. A build folder inside the source tree (build/bin/netsmith, the
// README's way) has neither installed: the source tree's docs/ and projects/ are found by walking
// up from the executable's folder. $NETSMITH_DOCS and $NETSMITH_SAMPLES override both. The
// samples are only read: File > New from sample opens a copy as a new, unsaved project.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace netsmith::gui {

// The folders looked at, in order (the first that holds gui.md / a *.nsproj file wins).
QStringList documentationCandidates();
QStringList samplesCandidates();
// The documentation folder (holds gui.md) or the samples folder; empty when none was found.
QString documentationFolder();
QString samplesFolder();

struct SampleProject {
  QString file;  // absolute path of the .nsproj
  QString name;  // the project's "name", else the file's base name
};
// The samples in `folder`, sorted by name.
QList<SampleProject> listSamples(const QString& folder);

// The heading of docs/gui.md that describes a page ("edit", "dataset", "config", "training",
// "evaluation"); empty for an unknown page.
QString pageHelpHeading(const QString& page);

}  // namespace netsmith::gui
