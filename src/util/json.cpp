#include "util/json.hpp"

namespace mudjack::util {

std::string dump_json(const nlohmann::json& doc, int indent) {
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace mudjack::util
