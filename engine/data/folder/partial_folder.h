// The hidden folder a dataset is built in before it takes its name (Note [Folder dataset]): made
// beside DIR, locked while its builder lives, removed unless published; and the removal of the
// ones that killed builds left behind.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace netsmith {

// Note [Partial folder lock]
// A build writes into PARENT/.NAME.partial-XXXXXX (mkdtemp), holding flock(LOCK_EX) on the folder
// for as long as the PartialFolder lives. A killed build cannot remove its folder, but the kernel
// drops its lock: so a later build into the same PARENT/NAME removes exactly the partial folders
// whose lock it can take (removeStalePartials), and never the folder of a build still running.
class PartialFolder {
 public:
  // Creates and locks PARENT/.NAME.partial-XXXXXX. Throws Error naming the folder and the reason.
  PartialFolder(const std::filesystem::path& parent, const std::string& name);
  ~PartialFolder();  // removes the folder unless published
  PartialFolder(const PartialFolder&) = delete;
  PartialFolder& operator=(const PartialFolder&) = delete;

  const std::filesystem::path& path() const { return m_path; }

  // Gives the folder the permissions a plain mkdir would (mkdtemp makes it 0700).
  void applyUmask();
  // The bytes of the regular files below the folder.
  uint64_t bytesOnDisk() const;
  // syncfs on the folder's file system: the files are on disk before the folder takes DIR's name.
  void syncToDisk();
  // Renames the folder to `output` (absolute) and syncs its parent folder. With `replacing`,
  // `output` holds a dataset of this builder: the two are exchanged in one rename
  // (RENAME_EXCHANGE; where the file system lacks it, the old one is moved into this folder
  // first) and the old one is removed. Afterwards this object removes nothing. Throws Error when
  // a rename fails, naming both folders.
  void publishAs(const std::filesystem::path& output, bool replacing);

 private:
  void committed();
  void cleanup();
  std::filesystem::path m_path;
  int m_fd = -1;
  bool m_committed = false;
};

// Removes the partial folders of builds into `parent`/`name` that were killed: those no living
// builder holds the lock of (Note [Partial folder lock]). Returns their paths.
std::vector<std::string> removeStalePartials(const std::filesystem::path& parent, const std::string& name);

}  // namespace netsmith
