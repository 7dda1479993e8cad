#include "bench/common/json.hpp"

#include "nbfft/atomic_file.hpp"
#include "nbfft/error.hpp"

#include <cmath>
#include <cstdio>

namespace nbfft::bench {

std::string json_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

JsonRecord& JsonRecord::add(const std::string& key, const std::string& value) {
  fields_.emplace_back(key, json_quote(value));
  return *this;
}

JsonRecord& JsonRecord::add(const std::string& key, double value) {
  char buf[40];
  // %.17g round-trips every double; JSON has no inf/nan, so those become null.
  if (std::isfinite(value))
    std::snprintf(buf, sizeof buf, "%.17g", value);
  else
    std::snprintf(buf, sizeof buf, "null");
  fields_.emplace_back(key, buf);
  return *this;
}

JsonRecord& JsonRecord::add(const std::string& key, long value) {
  fields_.emplace_back(key, std::to_string(value));
  return *this;
}

JsonRecord& JsonRecord::add_raw(const std::string& key, const std::string& json) {
  fields_.emplace_back(key, json);
  return *this;
}

std::string JsonRecord::str() const {
  std::string out = "{";
  for (std::size_t i = 0; i < fields_.size(); ++i)
    out += (i ? ", " : "") + json_quote(fields_[i].first) + ": " + fields_[i].second;
  return out + "}";
}

void write_json(const std::string& path, const std::vector<JsonRecord>& records) {
  std::string text = "[\n";
  for (std::size_t i = 0; i < records.size(); ++i)
    text += "  " + records[i].str() + (i + 1 < records.size() ? ",\n" : "\n");
  text += "]\n";
  write_file_atomic(path, text);  // Io error, old file intact, on any failure
}

}  // namespace nbfft::bench
