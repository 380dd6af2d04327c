// The text-format parser (text_format.h): a hand-written lexer and recursive-descent parser with
// line and column in every error, its recursion bounded by kMaxTextNesting.
#include "engine/import/nnabla/text_format.h"

#include <cctype>

#include "engine/core/error.h"

namespace netsmith::nnabla_import {

namespace {

class Parser {
 public:
  Parser(std::string_view text, const std::string& file) : m_text(text), m_file(file) {}

  std::shared_ptr<const TextMessage> parseRoot() {
    auto root = std::make_shared<TextMessage>();
    parseFields(*root, 0, '\0', 1, 1);
    return root;
  }

 private:
  [[noreturn]] void fail(int line, int column, const std::string& what) const {
    throw Error(format("{}:{}:{}: {}", m_file, line, column, what));
  }
  [[noreturn]] void failHere(const std::string& what) const { fail(m_line, m_column, what); }

  bool atEnd() const { return m_pos >= m_text.size(); }
  char peek(size_t ahead = 0) const { return m_pos + ahead < m_text.size() ? m_text[m_pos + ahead] : '\0'; }
  void advance() {
    if (m_text[m_pos] == '\n') {
      ++m_line;
      m_column = 1;
    } else {
      ++m_column;
    }
    ++m_pos;
  }

  // What is at the current position, for "found ...".
  std::string found() const {
    if (atEnd()) return "the end of the file";
    const unsigned char c = static_cast<unsigned char>(peek());
    if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') return format("the byte 0x{}{}", "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15]);
    if (c == 0x7f) return "the byte 0x7f";
    if (isIdentStart(c) || std::isdigit(c) || c == '-' || c == '+') {
      size_t end = m_pos;
      while (end < m_text.size() && end - m_pos < 40 && isTokenChar(static_cast<unsigned char>(m_text[end]))) ++end;
      return "'" + std::string(m_text.substr(m_pos, std::max<size_t>(end - m_pos, 1))) + "'";
    }
    if (c >= 0x80) return "a non-ASCII byte";
    return format("'{}'", static_cast<char>(c));
  }

  static bool isIdentStart(unsigned char c) { return std::isalpha(c) || c == '_'; }
  static bool isTokenChar(unsigned char c) { return std::isalnum(c) || c == '_' || c == '.'; }

  void skipSpace() {
    while (!atEnd()) {
      const char c = peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        advance();
      } else if (c == '#') {
        while (!atEnd() && peek() != '\n') advance();
      } else {
        break;
      }
    }
  }

  std::string identifier() {
    std::string s;
    while (!atEnd() && isTokenChar(static_cast<unsigned char>(peek()))) {
      s += peek();
      advance();
    }
    return s;
  }

  // A number or identifier value: -1, 1e-08, 0.5f, inf, -inf, true, True, an enum name.
  std::string bareValue() {
    std::string s;
    if (peek() == '-' || peek() == '+') {
      s += peek();
      advance();
    }
    while (!atEnd()) {
      const unsigned char c = static_cast<unsigned char>(peek());
      const bool exponentSign = (c == '-' || c == '+') && !s.empty() && (s.back() == 'e' || s.back() == 'E') &&
                                (std::isdigit(static_cast<unsigned char>(s.front())) || s.front() == '.' ||
                                 ((s.front() == '-' || s.front() == '+') && s.size() > 1));
      if (!isTokenChar(c) && !exponentSign) break;
      s += static_cast<char>(c);
      advance();
    }
    return s;
  }

  int hexDigit(char c) const {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // One quoted string, its escapes resolved (C's, as protobuf writes them).
  std::string quotedString() {
    const int line = m_line, column = m_column;
    const char quote = peek();
    advance();
    std::string s;
    while (true) {
      if (atEnd() || peek() == '\n')
        fail(line, column, format("expected the closing {} of the string that starts here, found {}", quote,
                                  atEnd() ? "the end of the file" : "the end of the line"));
      const char c = peek();
      if (c == quote) {
        advance();
        return s;
      }
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t') failHere(format("expected text in the string, found {}", found()));
      if (c != '\\') {
        s += c;
        advance();
        continue;
      }
      advance();
      if (atEnd()) continue;  // reported as unterminated above
      const char e = peek();
      switch (e) {
        case 'n': s += '\n'; advance(); break;
        case 't': s += '\t'; advance(); break;
        case 'r': s += '\r'; advance(); break;
        case 'a': s += '\a'; advance(); break;
        case 'b': s += '\b'; advance(); break;
        case 'f': s += '\f'; advance(); break;
        case 'v': s += '\v'; advance(); break;
        case '\\': case '\'': case '"': case '?': s += e; advance(); break;
        case 'x': {
          advance();
          int v = 0, n = 0;
          while (n < 2 && hexDigit(peek()) >= 0) {
            v = v * 16 + hexDigit(peek());
            advance();
            ++n;
          }
          if (n == 0) failHere(format("expected hexadecimal digits after \\x, found {}", found()));
          s += static_cast<char>(v);
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            int v = 0, n = 0;
            while (n < 3 && peek() >= '0' && peek() <= '7') {
              v = v * 8 + (peek() - '0');
              advance();
              ++n;
            }
            s += static_cast<char>(v & 0xff);
          } else {
            failHere(format("expected an escape such as \\n, \\\\ or \\\" in the string, found {}", found()));
          }
      }
    }
  }

  // A scalar value: adjacent string literals are joined, as protobuf does.
  void scalar(TextField& f) {
    f.valueLine = m_line;
    f.valueColumn = m_column;
    const char c = peek();
    if (c == '"' || c == '\'') {
      f.quoted = true;
      f.scalar = quotedString();
      skipSpace();
      while (peek() == '"' || peek() == '\'') {
        f.scalar += quotedString();
        skipSpace();
      }
      return;
    }
    if (c == '-' || c == '+' || c == '.' || std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      f.scalar = bareValue();
      if (f.scalar == "-" || f.scalar == "+") fail(f.valueLine, f.valueColumn, format("expected a number after '{}'", f.scalar));
      return;
    }
    failHere(format("expected a value (a number, a word such as true, or a quoted string) for field '{}', found {}",
                    f.name, found()));
  }

  void nested(TextField& f, int depth) {
    const char open = peek();
    const int line = m_line, column = m_column;
    if (depth + 1 > kMaxTextNesting)
      failHere(format("messages are nested more than {} deep (field '{}'): the file is damaged", kMaxTextNesting, f.name));
    advance();
    auto m = std::make_shared<TextMessage>();
    m->line = line;
    m->column = column;
    parseFields(*m, depth + 1, open == '{' ? '}' : '>', line, column);
    f.isMessage = true;
    f.message = std::move(m);
  }

  void parseFields(TextMessage& msg, int depth, char close, int openLine, int openColumn) {
    while (true) {
      skipSpace();
      if (atEnd()) {
        if (close)
          fail(openLine, openColumn,
               format("expected '{}' to close the message opened here, found the end of the file", close));
        return;
      }
      const char c = peek();
      if (close && c == close) {
        advance();
        return;
      }
      if (c == '}' || c == '>')
        failHere(format("found '{}', which closes no message{}", c,
                        close ? format(" (the message opened at {}:{} is closed by '{}')", openLine, openColumn, close) : ""));
      if (!isIdentStart(static_cast<unsigned char>(c))) failHere(format("expected a field name, found {}", found()));
      TextField f;
      f.line = m_line;
      f.column = m_column;
      f.name = identifier();
      skipSpace();
      bool colon = false;
      if (peek() == ':') {
        colon = true;
        advance();
        skipSpace();
      }
      if (peek() == '{' || peek() == '<') {
        nested(f, depth);
        msg.fields.push_back(std::move(f));
      } else if (!colon) {
        failHere(format("expected ':' or '{' after the field name '{}', found {}", f.name, found()));
      } else if (peek() == '[') {
        advance();
        skipSpace();
        bool first = true;
        while (peek() != ']') {
          if (!first) {
            if (peek() != ',') failHere(format("expected ',' or ']' in the list of field '{}', found {}", f.name, found()));
            advance();
            skipSpace();
          }
          first = false;
          TextField element;
          element.name = f.name;
          element.line = f.line;
          element.column = f.column;
          if (peek() == '{' || peek() == '<') nested(element, depth);
          else scalar(element);
          msg.fields.push_back(std::move(element));
          skipSpace();
          if (atEnd()) failHere(format("expected ']' to close the list of field '{}', found the end of the file", f.name));
        }
        advance();
      } else {
        scalar(f);
        msg.fields.push_back(std::move(f));
      }
      skipSpace();
      if (peek() == ',' || peek() == ';') advance();
    }
  }

  std::string_view m_text;
  const std::string& m_file;
  size_t m_pos = 0;
  int m_line = 1, m_column = 1;
};

}  // namespace

std::shared_ptr<const TextMessage> parseTextFormat(std::string_view text, const std::string& file) {
  return Parser(text, file).parseRoot();
}

}  // namespace netsmith::nnabla_import
