// The names of a folder dataset's image files below DIR (Note [Folder dataset]).
#pragma once

#include <vector>

#include "engine/data/folder/folder_scan.h"
#include "engine/data/folder/source_image.h"

namespace netsmith {

// Sets `output` of every image that was read and is not a duplicate:
// images/[split folder/]<class>/<path below the class folder>.png. A name taken by another file
// of the same folder (a.jpg next to a.png) gets the source's extension: a_jpg.png (then _2, _3...).
// .png sources are named first, so they keep their own names whatever the others are called.
void assignOutputNames(std::vector<SourceImage>& images, const FolderScan& scan);

}  // namespace netsmith
