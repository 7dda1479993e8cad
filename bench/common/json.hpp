// JSON records for benchmark output: one flat object per measurement, written as an array.
// Every record carries the full configuration that produced it.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace nbfft::bench {

class JsonRecord {
 public:
  JsonRecord& add(const std::string& key, const std::string& value);
  JsonRecord& add(const std::string& key, const char* value) { return add(key, std::string(value)); }
  JsonRecord& add(const std::string& key, double value);
  JsonRecord& add(const std::string& key, long value);
  JsonRecord& add(const std::string& key, int value) { return add(key, static_cast<long>(value)); }
  JsonRecord& add_raw(const std::string& key, const std::string& json);  // a nested value
  std::string str() const;

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

std::string json_quote(const std::string& s);
// Writes `records` as a JSON array to `path`, atomically (nbfft/atomic_file.hpp): on any
// failure an Error of kind Io, and an older file at `path` is left intact. Doubles are
// written with 17 significant digits; inf and nan as null (JSON has neither).
void write_json(const std::string& path, const std::vector<JsonRecord>& records);

}  // namespace nbfft::bench
