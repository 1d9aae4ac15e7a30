#pragma once
// `mudjack sweep`: one run on every `mudjack serve` endpoint of a targets
// file, followed through its events, results fetched, all merged into one
// store and one cross-chip report (docs/design.md: fleet).
//
// Layout of --out DIR:
//   sweep.json                        state of every target (what --resume reads)
//   targets/<label>/info.json         GET /v1/info of the target (its provenance)
//   targets/<label>/events.jsonl      every outcome event as it landed ({"id", "case"})
//   targets/<label>/results.json      the target's results (fetched, or rebuilt from
//                                     events.jsonl when the target died)
//   mudjack.db, runs/<id>/...         the merged run and its reports
//
// Each target is followed on a thread of its own. Transport failures and 5xx
// answers are retried with exponential backoff; a target that stays
// unreachable is `failed`, and what it finished (from its events) is kept
// and merged. Exit: 0 every target complete, 1 some target failed, 130
// interrupted (the remote runs go on; --resume follows them again).

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "fleet/client.hpp"

namespace mudjack::fleet {

struct SweepOptions {
  std::filesystem::path targets_file;
  std::filesystem::path out;
  bool resume = false;
  // Consecutive failed attempts before a target is given up; for an event
  // stream, consecutive reconnections that brought no new outcome.
  int retries = 5;
  std::chrono::milliseconds backoff{500};  // first retry delay; doubles each time
  std::chrono::milliseconds backoff_max{10000};
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds read_timeout{60000};  // longer than the servers' keep-alive
  size_t max_reply_bytes = kMaxReplyBytes;        // a larger reply fails its target (client.hpp)
  size_t max_event_bytes = kMaxEventBytes;        // one event larger than this fails its target
  std::optional<std::filesystem::path> intolerable;
  bool json = false;  // the merged results.json on stdout instead of a table
};

// The delay before retry `attempt` (0-based): backoff * 2^attempt, capped.
std::chrono::milliseconds backoff_delay(const SweepOptions& o, int attempt);

int sweep(const SweepOptions& options, const std::atomic<bool>& interrupted);

}  // namespace mudjack::fleet
