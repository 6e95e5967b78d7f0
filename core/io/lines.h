// The lines of a text as std::getline splits them (at '\n'; a last line without one counts; no
// line after a final '\n'), without iostreams: their locale machinery (number, money and time
// facets) added about 95 KB to the WebAssembly module the web page loads.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace optimus::io {

class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}
  // The next line into `line`; false when the text is exhausted.
  bool next(std::string& line) {
    if (pos_ >= text_.size()) return false;
    const std::size_t nl = text_.find('\n', pos_);
    const std::size_t end = nl == std::string_view::npos ? text_.size() : nl;
    line.assign(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return true;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace optimus::io
