// The `netsmith` program: command line, application identity, the main window.
#pragma once

class QApplication;

namespace netsmith::gui {

// Parses the command line (a project to open; hidden --screenshot PAGE=FILE.png options) and runs
// the event loop. Returns the exit code.
int runApplication(QApplication& app);

}  // namespace netsmith::gui
