// Embind surface of the engine: JSON strings in, JSON strings out (core/io/api.h). Nothing may
// cross into JavaScript as an exception (a C++ throw arrives there as a bare number and can leave
// the module corrupt), so every call is wrapped and anything that escapes becomes an in-band
// {"error": {"code": "internal.exception", ...}} object.
#include <emscripten/bind.h>

#include <exception>
#include <string>

#include "io/api.h"

namespace {

// JSON string literal for an arbitrary message (RFC 8259 section 7).
std::string json_quote(const std::string& text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += "\\u00";
      out += kHex[(c >> 4) & 0xf];
      out += kHex[c & 0xf];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string internal_error(const std::string& message) {
  return R"({"error":{"code":"internal.exception","path":"","message":)" + json_quote(message) + "}}";
}

template <typename Call>
std::string guarded(Call&& call) {
  try {
    return call();
  } catch (const std::exception& e) {
    return internal_error(std::string("unexpected exception in the engine: ") + e.what());
  } catch (...) {
    return internal_error("unexpected non-standard exception in the engine");
  }
}

std::string predict(const std::string& scenario_json) {
  return guarded([&] { return optimus::api::predict(scenario_json); });
}

std::string validate(const std::string& scenario_json) {
  return guarded([&] { return optimus::api::validate(scenario_json); });
}

std::string presets(const std::string& kind) {
  return guarded([&] { return optimus::api::presets(kind); });
}

std::string preset(const std::string& kind, const std::string& id) {
  return guarded([&] { return optimus::api::preset(kind, id); });
}

}  // namespace

EMSCRIPTEN_BINDINGS(optimus) {
  emscripten::function("predict", &predict);
  emscripten::function("validate", &validate);
  emscripten::function("presets", &presets);
  emscripten::function("preset", &preset);
}
