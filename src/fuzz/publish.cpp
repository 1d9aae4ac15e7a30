// `mudjack fuzz --publish`: a campaign's evidence copied for others
// (fuzz/campaign.hpp, publish()).
#include "fuzz/campaign.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "fuzz/runs.hpp"
#include "report/write.hpp"
#include "run/lifecycle.hpp"
#include "store/store.hpp"
#include "util/error.hpp"

namespace mudjack::fuzz {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool is_link(const fs::path& p) {
  std::error_code ec;
  return fs::is_symlink(fs::symlink_status(p, ec));
}

// A destination folder publish creates: never one reached through a link,
// which would put the evidence (and its overwrites) somewhere else.
void make_real_dir(const fs::path& dir) {
  if (is_link(dir)) {
    throw util::FatalError("will not publish through " + dir.string() +
                           ": it is a symbolic link; remove it or publish elsewhere");
  }
  std::error_code ec;
  fs::create_directory(dir, ec);
  if (!fs::is_directory(fs::symlink_status(dir, ec))) {
    throw util::FatalError("cannot create " + dir.string() + ": not a folder");
  }
}

// Copies the regular file `from` (absent: nothing) to `to`. The source is
// opened with O_NOFOLLOW, so a link there (to a secret beside the campaign)
// is skipped with a note; the destination is a new file renamed into place.
void publish_file(const fs::path& from, const fs::path& to, std::vector<std::string>& notes) {
  const int fd = ::open(from.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP) notes.push_back(from.string() + " is a symbolic link: not published");
    return;
  }
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  std::string content;
  char buf[65536];
  ssize_t n = 0;
  while (regular && (n = ::read(fd, buf, sizeof buf)) > 0) {
    content.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (!regular) {
    notes.push_back(from.string() + " is not a regular file: not published");
    return;
  }
  if (n < 0) throw util::FatalError("cannot read " + from.string());
  report::write_file_atomically(to, content);
}

// Where and from what one batch's run ran, from its environment (results.json
// machines[]): the source tree's state, the engine's revision, the CPU and
// each device with its model and driver. One entry per machine of the run.
json provenance_of(const model::RunInfo& info) {
  json out = json::array();
  for (const auto& m : info.environment.value("machines", json::array())) {
    json devices = json::array();
    for (const auto& d : m.value("devices", json::array())) {
      devices.push_back({{"id", d.value("id", "")},
                         {"kind", d.value("kind", "")},
                         {"model", d.value("model", "")},
                         {"driver_version", d.value("driver_version", "")}});
    }
    out.push_back({{"run", info.id},
                   {"host", m.value("host", "")},
                   {"source", m.value("source", json(nullptr))},
                   {"mudjack_revision", m.value("mudjack_revision", "")},
                   {"cpu_model", m.value("cpu_model", "")},
                   {"devices", devices}});
  }
  return out;
}

// The published campaign.json and findings.json carry `provenance`: every
// batch run's provenance_of, in batch order (a campaign resumed on another
// machine names both). A copy that is not a JSON object is left as copied.
void add_provenance(const fs::path& dest, const json& provenance) {
  for (const char* name : {"findings.json", "campaign.json"}) {
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(dest / name, ec))) continue;
    std::ifstream in(dest / name);
    json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) continue;
    j["provenance"] = provenance;
    report::write_file_atomically(dest / name, j.dump(1) + "\n");
  }
}

}  // namespace

std::vector<std::string> publish(const std::string& id, const Where& w, const fs::path& dest) {
  const fs::path dir = w.results_dir / "fuzz" / id;
  if (!fs::exists(dir / "campaign.json")) {
    throw util::FatalError("unknown fuzz campaign '" + id + "': no " +
                           (dir / "campaign.json").string());
  }
  const json campaign = read_json(dir / "campaign.json");
  auto store = store::Store::open_read_only(store::default_db_path(w.results_dir));
  json provenance = json::array();
  for (const auto& b : campaign.value("batches", json::array())) {
    const std::string run = b.value("run", "");
    if (run.empty()) continue;
    const auto info = store->get_run(run);
    if (!info) throw util::FatalError("campaign " + id + ": run " + run + " is not in the store");
    if (auto why = run::unpublishable(*info)) {
      throw util::FatalError("campaign " + id + " cannot be published: run " + run + ": " + *why);
    }
    for (auto& m : provenance_of(*info)) provenance.push_back(std::move(m));
  }
  std::vector<std::string> notes;
  const fs::path findings = dir / "findings";
  std::error_code ec;
  fs::create_directories(dest, ec);  // `dest` itself may be a link, as --out may
  const bool bundles = fs::is_directory(fs::symlink_status(findings, ec));
  if (is_link(findings)) {
    notes.push_back(findings.string() + " is a symbolic link: its bundles were not published");
  }
  if (bundles) make_real_dir(dest / "findings");  // refused before any file is written
  for (const char* name : {"findings.json", "findings.csv", "summary.md", "junit.xml",
                           "report.html", "campaign.json"}) {
    publish_file(dir / name, dest / name, notes);
  }
  add_provenance(dest, provenance);
  if (!bundles) return notes;
  for (const auto& e : fs::directory_iterator(findings)) {
    if (!e.is_directory(ec) || e.is_symlink(ec)) {
      notes.push_back(e.path().string() + " is not a folder (a link?): not published");
      continue;
    }
    const fs::path to = dest / "findings" / e.path().filename();
    make_real_dir(to);
    for (const char* name : {"graph.json", "original.json", "finding.json", "repro.py"}) {
      publish_file(e.path() / name, to / name, notes);
    }
  }
  return notes;
}

}  // namespace mudjack::fuzz
