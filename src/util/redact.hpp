#pragma once
// Secrets the engine holds (the server's API token) kept out of everything a
// probe's output reaches: results, reports, the results route. A probe never
// gets a secret in its environment (supervisor::probe_may_inherit), but one
// may still read it from a file or the engine's /proc entry; whatever it then
// prints or raises is redacted where probe output enters the engine.
//
// Thread-safe: secrets are added at start-up and read by every lane.

#include <string>

namespace mudjack::util {

// Adds a secret; strings shorter than 8 characters are ignored (redacting
// them would mangle ordinary text, and tokens are held to 16 or more).
void add_secret(const std::string& secret);

// `text` with every secret, raw or as it appears inside a JSON string,
// replaced by "[redacted]".
std::string redact(std::string text);

}  // namespace mudjack::util
