// Text from the file system or a file's contents in JSON and in the console: names on Linux are
// bytes, and a folder copied from an old archive may be named in Latin-1 ("caf\xE9"). JSON must be
// UTF-8 (nlohmann throws on anything else), so such a name is read as Latin-1 where it becomes a
// name the product keeps (a class), and shown with its odd bytes as \xNN where it is only named.
#pragma once

#include <string>
#include <string_view>

namespace netsmith {

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool isUtf8(std::string_view s);

// `s` with every byte that is not part of a well-formed UTF-8 sequence read as Latin-1 (U+0080 to
// U+00FF): "caf\xE9" -> "café". Well-formed text is returned unchanged.
std::string utf8ReadingStrayBytesAsLatin1(std::string_view s);

// `s` for a message: well-formed text unchanged, every other byte written as \xNN ("caf\xE9").
std::string utf8ShowingStrayBytes(std::string_view s);

}  // namespace netsmith
