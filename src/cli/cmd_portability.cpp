// mudjack portability: a models corpus's operator calls weighted by an opinfo
// surface's outcomes per device (docs/portability.md).
#include <iostream>

#include "cli/commands.hpp"
#include "cli/numbers.hpp"
#include "envs/envs.hpp"
#include "portability/join.hpp"
#include "portability/render.hpp"
#include "util/error.hpp"

namespace mudjack::cli {
namespace {

struct PortabilityArgs {
  Common common;
  std::vector<std::string> corpus;
  std::string surface;
  std::string manifest;
  std::vector<std::string> devices;
  std::string format = "text";
  size_t top = 20;
};

std::string render(const portability::Portability& p, const std::string& format) {
  if (format == "json") return portability::to_json(p).dump(1) + "\n";
  if (format == "md") return portability::to_markdown(p);
  if (format == "html") return portability::to_html(p);
  return portability::to_terminal(p);
}

int portability_of(const PortabilityArgs& a) {
  const std::string format = a.common.json ? "json" : a.format;
  if (format != "text" && format != "md" && format != "json" && format != "html") {
    throw util::FatalError("unknown portability format '" + format +
                           "' (known: text, md, json, html)");
  }
  auto s = settings(a.common);
  portability::Inputs in;
  in.manifest = portability::load_manifest(a.manifest.empty() ? envs::data_dir() / "suites" /
                                                                    "opinfo" / "manifest.json"
                                                              : std::filesystem::path(a.manifest));
  for (const auto& what : a.corpus) {
    auto loaded = load_run_or_file(what, s);
    in.corpus_origins.push_back(loaded.origin);
    in.corpus.push_back(std::move(loaded.results.cases));
  }
  auto surface = load_run_or_file(a.surface, s);
  in.surface_origin = surface.origin;
  in.surface_run = surface.results.run.id;
  in.surface = std::move(surface.results.cases);
  in.devices = split_commas(a.devices);
  in.top = a.top;
  const auto p = portability::join(in);
  if (p.models == 0) {
    throw util::FatalError(
        "no model with an eager aten operator histogram in the corpus runs (a models run, or "
        "`mudjack check` of a torch model, records one: docs/portability.md)");
  }
  std::cout << render(p, format);
  return 0;
}

}  // namespace

Command portability_command() {
  return {"portability",
          "Share of a models corpus's operator calls that run right per device, from an "
          "opinfo run",
          [](CLI::App* c) -> std::function<int()> {
            auto a = std::make_shared<PortabilityArgs>();
            add_common(c, a->common);
            c->add_option("corpus", a->corpus,
                          "Models runs: run ids, 'latest' or results.json files, earliest "
                          "first (a later run's rows replace an earlier one's)")
                ->required();
            c->add_option("--surface", a->surface,
                          "The opinfo run whose outcomes judge each op: a run id or a "
                          "results.json")
                ->required();
            c->add_option("--manifest", a->manifest,
                          "OpInfo manifest mapping aten ops to entries (default: the data "
                          "folder's suites/opinfo/manifest.json)");
            c->add_option("--device", a->devices,
                          "Only these devices of the surface (repeatable or comma-separated)");
            c->add_option("--format", a->format, "text | md | json | html (default text)");
            add_number(c, "--top", a->top, util::IntRange{1, 1000},
                       "Ops listed as mattering most per device (default 20)");
            return [a] { return portability_of(*a); };
          }};
}

}  // namespace mudjack::cli
