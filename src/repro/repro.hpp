#pragma once
// One case as a standalone Python script for a bug report (`mudjack repro`):
// the case's probe writes it (protocol `repro`), with the exact inputs, the
// call as source and, when a stored run has the baseline device's outputs,
// the comparison MudJack made; the script runs the case's own checks too and
// exits 1 when one fails or an output differs, as the case's outcome did
// (or, after the accuracy oracle's mismatch, when the error against the
// float64 reference is beyond its bound). `minimal`: only the call and the
// test of that failure (probe/mudjack_probe/minimal.py).
//
// Blocks while one probe starts and answers. Errors: util::FatalError for
// an unknown case or run, an unavailable framework or device, a probe that
// fails; exit code 1 when the case cannot be written as source.

#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "protocol/protocol.hpp"
#include "store/store.hpp"

namespace mudjack::repro {

struct Request {
  std::string case_id;
  std::string device = "cpu";
  std::vector<plan::SuiteRef> suites;  // where the case is found
  std::string profile = "current";
  std::map<std::string, std::string> python;  // framework -> interpreter
  plan::Params params;                        // run parameters the suites are listed with
  // The results store to read what a run saw (nullptr: none), and the run:
  // given, or "" for the newest run with this case on this device.
  store::Store* store = nullptr;
  std::string run_id;
  // false: `suites` is only the default; a run that has the case lends its
  // own suites. A run read always lends its parameters (`mudjack check`'s
  // target) and, for a framework `python` does not name, its interpreters:
  // a check case exists only with them.
  bool suites_named = true;
  // The smallest script that shows the failure (`repro --minimal`).
  bool minimal = false;
  // Resident limit of each probe it starts (listing, script writer), the
  // probe's tree included; resolved by the caller (run::memory_limit_or_default).
  int64_t memory_limit_bytes = 0;
};

struct Script {
  std::string text;
  std::string framework;  // whose python runs it
};

Script write(const Request& request, const std::atomic<bool>& interrupted);

// A fuzz graph as a standalone script reproducing one finding (docs/fuzz.md,
// "Bundles"): the probe of interpreter `python` (the backend's framework's)
// writes it over protocol `repro_graph`, as it writes a case's. The script's
// text, or why there is none (one line) in *why.
std::string write_graph(const std::filesystem::path& python,
                        const protocol::GraphScriptRequest& request, std::string* why);

}  // namespace mudjack::repro
