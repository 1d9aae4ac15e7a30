// Unit tests for store::Store: round trips of every field, plan bookkeeping,
// reopening, hostile files, schema versions and migrations, and concurrent
// recording.

#include "store/store.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "util/error.hpp"

namespace mudjack::store {
namespace {

namespace fs = std::filesystem;
using model::CaseInfo;
using model::CaseResult;
using model::Outcome;
using nlohmann::json;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() /
           ("mudjack_store_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path db() const { return default_db_path(dir_ / "results"); }

  // Runs one SQL statement on the file with a raw connection (outside Store).
  static void raw_exec(const fs::path& file, const std::string& sql) {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(file.c_str(), &h), SQLITE_OK);
    char* err = nullptr;
    int rc = sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err);
    std::string msg = err != nullptr ? err : "";
    sqlite3_free(err);
    sqlite3_close(h);
    ASSERT_EQ(rc, SQLITE_OK) << msg;
  }

  // The first column of the first row of a query, as text.
  static std::string raw_query(const fs::path& file, const std::string& sql) {
    sqlite3* h = nullptr;
    EXPECT_EQ(sqlite3_open(file.c_str(), &h), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    std::string value = "<no row>";
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      const auto* p = sqlite3_column_text(st, 0);
      value = p != nullptr ? reinterpret_cast<const char*>(p) : "<null>";
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return value;
  }

  static std::string fatal_message(const std::function<void()>& f) {
    try {
      f();
    } catch (const util::FatalError& e) {
      return e.what();
    }
    return "<no FatalError>";
  }

  fs::path dir_;
};

model::RunInfo make_run(const std::string& id, const std::string& created_at) {
  model::RunInfo run;
  run.id = id;
  run.suite = "paper";
  run.state = "running";
  run.created_at = created_at;
  run.baseline = "cpu";
  run.options = {{"budget_s", 2.5}, {"devices", {"cpu", "cuda:0"}}};
  run.environment = {{"host", {{"hostname", "node-1"}}},
                     {"devices", {{{"id", "cpu"}, {"model", "Xeon"}}}}};
  return run;
}

CaseInfo make_case(const std::string& function, const std::string& variant) {
  CaseInfo c;
  c.framework = "torch";
  c.function = function;
  c.variant = variant;
  c.id = c.framework + "/" + function + "/" + variant;
  c.dtype = "float32";
  c.shape = "vec";
  c.mode = "eager";
  return c;
}

// A result with every optional field present and every container non-empty.
CaseResult full_result(const std::string& run_id) {
  CaseResult r;
  r.run_id = run_id;
  r.info = make_case("torch.histc", "int64");
  r.info.compiler = "inductor";
  r.info.params = {{"bins", 10}, {"min", 0.5}};
  r.info.requires_ = {{"devices", 2}};
  r.info.dims = {{{"name", "n"}, {"value", 1024}}};
  r.info.note = "from test_histc";
  r.info.successor = "torch.histogram";
  r.info.rtol = 1e-5;
  r.info.atol = 1e-8;
  r.info.tags = {"paper", "decile-3"};
  r.info.reduction = 4096;
  r.info.excused = {{"bool", "integer_only"}};
  r.info.grid = true;
  r.device = "cuda:0";
  r.outcome = Outcome::kCrash;
  r.error.kind = model::ErrorKind::kDeviceError;
  r.error.message = "CUDA error: illegal memory access, \"quoted\"";
  r.error.signal = 11;
  r.error.exit_code = -11;
  r.error.stderr_tail = "line 1\nline 2 \xff\xfe bytes\n";
  r.error.traceback = "Traceback (most recent call last):\n  ...";
  r.latency.cold_ns = 123456789012;
  r.latency.samples_ns = {1.5, 2.25, 1e9, 0.1 + 0.2};
  r.latency.calls_per_sample = 64;
  model::LatencyStats s;
  s.median_ns = 2.0;
  s.p10_ns = 1.5;
  s.p90_ns = 3.0;
  s.iqr_ns = 0.75;
  s.mean_ns = 2.125;
  s.stddev_ns = 0.3;
  s.cv = 0.141;
  s.min_ns = 1.5;
  s.n = 4;
  r.latency.stats = s;
  r.memory.peak_device_bytes = 8'000'000'000;
  r.memory.peak_host_bytes = 123;
  r.numeric.max_abs_err = 1e-3;
  r.numeric.max_rel_err = 2e-2;
  r.numeric.compared_with = "cpu";
  r.numeric.message = "values differ";
  r.numeric.reference = "float64 on cpu";
  r.numeric.error_eps = std::numeric_limits<double>::infinity();
  r.numeric.baseline_error_eps = 3.5;
  r.numeric.bound_eps = 64;
  r.numeric.cause = model::Cause::kPrecisionDefault;
  r.numeric.setting = "torch.backends.cudnn.allow_tf32=False";
  r.outputs = {{"artifacts/a.npy", "bfloat16", "float32", {2, 3}},
               {"artifacts/b.npy", "int64", "int64", {}}};
  r.extra = {{"output_device", "cuda:0"}, {"warmup_calls", 3}, {"checks", {true, false}}};
  r.work = model::Work{2.0 * 1024 * 1024 * 1024, "FLOP"};
  r.metrics = {
      {"accuracy", {0.9765, "1"}}, {"final_loss", {std::nullopt, ""}}, {"compile_s", {3.5, "s"}}};
  r.started_at = "2024-05-01T12:00:00Z";
  r.finished_at = "2024-05-01T12:00:01Z";
  r.wall_s = 1.25;
  return r;
}

void expect_same_info(const CaseInfo& a, const CaseInfo& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.framework, b.framework);
  EXPECT_EQ(a.function, b.function);
  EXPECT_EQ(a.variant, b.variant);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.mode, b.mode);
  EXPECT_EQ(a.compiler, b.compiler);
  EXPECT_EQ(a.params, b.params);
  EXPECT_EQ(a.requires_, b.requires_);
  EXPECT_EQ(a.dims, b.dims);
  EXPECT_EQ(a.note, b.note);
  EXPECT_EQ(a.successor, b.successor);
  EXPECT_EQ(a.rtol, b.rtol);
  EXPECT_EQ(a.atol, b.atol);
  EXPECT_EQ(a.tags, b.tags);
  EXPECT_EQ(a.reduction, b.reduction);
  EXPECT_EQ(a.excused, b.excused);
  EXPECT_EQ(a.grid, b.grid);
}

void expect_same(const CaseResult& a, const CaseResult& b) {
  EXPECT_EQ(a.run_id, b.run_id);
  expect_same_info(a.info, b.info);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.outcome, b.outcome);
  EXPECT_EQ(a.error.kind, b.error.kind);
  EXPECT_EQ(a.error.message, b.error.message);
  EXPECT_EQ(a.error.signal, b.error.signal);
  EXPECT_EQ(a.error.exit_code, b.error.exit_code);
  EXPECT_EQ(a.error.stderr_tail, b.error.stderr_tail);
  EXPECT_EQ(a.error.traceback, b.error.traceback);
  EXPECT_EQ(a.latency.cold_ns, b.latency.cold_ns);
  EXPECT_EQ(a.latency.samples_ns, b.latency.samples_ns);  // bit-exact
  EXPECT_EQ(a.latency.calls_per_sample, b.latency.calls_per_sample);
  ASSERT_EQ(a.latency.stats.has_value(), b.latency.stats.has_value());
  if (a.latency.stats) {
    const auto &x = *a.latency.stats, &y = *b.latency.stats;
    EXPECT_EQ(x.median_ns, y.median_ns);
    EXPECT_EQ(x.p10_ns, y.p10_ns);
    EXPECT_EQ(x.p90_ns, y.p90_ns);
    EXPECT_EQ(x.iqr_ns, y.iqr_ns);
    EXPECT_EQ(x.mean_ns, y.mean_ns);
    EXPECT_EQ(x.stddev_ns, y.stddev_ns);
    EXPECT_EQ(x.cv, y.cv);
    EXPECT_EQ(x.min_ns, y.min_ns);
    EXPECT_EQ(x.n, y.n);
  }
  EXPECT_EQ(a.memory.peak_device_bytes, b.memory.peak_device_bytes);
  EXPECT_EQ(a.memory.peak_host_bytes, b.memory.peak_host_bytes);
  EXPECT_EQ(a.numeric.max_abs_err, b.numeric.max_abs_err);
  EXPECT_EQ(a.numeric.max_rel_err, b.numeric.max_rel_err);
  EXPECT_EQ(a.numeric.compared_with, b.numeric.compared_with);
  EXPECT_EQ(a.numeric.message, b.numeric.message);
  EXPECT_EQ(a.numeric.reference, b.numeric.reference);
  EXPECT_EQ(a.numeric.error_eps, b.numeric.error_eps);
  EXPECT_EQ(a.numeric.baseline_error_eps, b.numeric.baseline_error_eps);
  EXPECT_EQ(a.numeric.bound_eps, b.numeric.bound_eps);
  EXPECT_EQ(a.numeric.cause, b.numeric.cause);
  EXPECT_EQ(a.numeric.setting, b.numeric.setting);
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    EXPECT_EQ(a.outputs[i].path, b.outputs[i].path);
    EXPECT_EQ(a.outputs[i].dtype, b.outputs[i].dtype);
    EXPECT_EQ(a.outputs[i].saved_dtype, b.outputs[i].saved_dtype);
    EXPECT_EQ(a.outputs[i].shape, b.outputs[i].shape);
  }
  EXPECT_EQ(a.extra, b.extra);
  EXPECT_EQ(model::work_to_json(a.work), model::work_to_json(b.work));
  EXPECT_EQ(model::metrics_to_json(a.metrics), model::metrics_to_json(b.metrics));
  EXPECT_EQ(a.started_at, b.started_at);
  EXPECT_EQ(a.finished_at, b.finished_at);
  EXPECT_EQ(a.wall_s, b.wall_s);
}

TEST_F(StoreTest, OpenCreatesFolderInWalModeWithSchemaVersion) {
  auto store = Store::open(db());
  EXPECT_TRUE(fs::exists(db()));
  EXPECT_EQ(store->path(), db());
  EXPECT_EQ(store->schema_version(), model::kSchemaVersion);
  EXPECT_EQ(raw_query(db(), "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(raw_query(db(), "SELECT value FROM meta WHERE key='schema_version'"),
            model::kSchemaVersion);
  ASSERT_FALSE(migrations().empty());
  EXPECT_EQ(migrations().back().version, model::kSchemaVersion);
}

TEST_F(StoreTest, FullResultRoundTripsEveryField) {
  auto store = Store::open(db());
  store->create_run(make_run("r1", "2024-05-01T12:00:00Z"));
  CaseResult full = full_result("r1");
  store->add_plan("r1", {full.info}, {{full.info.id, "cuda:0"}});
  store->record(full);

  auto got = store->result("r1", full.info.id, "cuda:0");
  ASSERT_TRUE(got.has_value());
  // Invalid UTF-8 in stderr survives byte for byte: text columns are bytes.
  expect_same(full, *got);

  auto all = store->results("r1");
  ASSERT_EQ(all.size(), 1u);
  expect_same(full, all[0]);
}

TEST_F(StoreTest, MinimalResultRoundTripsWithOptionalsAbsent) {
  auto store = Store::open(db());
  store->create_run(make_run("r1", "2024-05-01T12:00:00Z"));
  CaseResult minimal;
  minimal.run_id = "r1";
  minimal.info = make_case("torch.sum", "basic");
  minimal.device = "cpu";
  minimal.outcome = Outcome::kPass;
  store->add_plan("r1", {minimal.info}, {{minimal.info.id, "cpu"}});
  store->record(minimal);

  auto got = store->result("r1", minimal.info.id, "cpu");
  ASSERT_TRUE(got.has_value());
  expect_same(minimal, *got);
  EXPECT_FALSE(got->error.signal.has_value());
  EXPECT_FALSE(got->latency.cold_ns.has_value());
  EXPECT_FALSE(got->latency.stats.has_value());
  EXPECT_FALSE(got->memory.peak_device_bytes.has_value());
  EXPECT_FALSE(got->numeric.max_abs_err.has_value());
  EXPECT_FALSE(got->info.rtol.has_value());
  EXPECT_TRUE(got->extra.is_object());
  EXPECT_TRUE(got->info.params.is_object());
  EXPECT_TRUE(got->info.dims.is_array());
  EXPECT_FALSE(store->result("r1", minimal.info.id, "cuda:0").has_value());
}

TEST_F(StoreTest, NonFiniteStatisticsReadBackAsNaN) {
  auto store = Store::open(db());
  store->create_run(make_run("r1", "t"));
  CaseResult r = full_result("r1");
  r.latency.stats->cv = std::nan("");
  store->record(r);
  auto got = store->result("r1", r.info.id, r.device);
  ASSERT_TRUE(got && got->latency.stats);
  EXPECT_TRUE(std::isnan(got->latency.stats->cv));
  EXPECT_EQ(got->latency.stats->median_ns, 2.0);
}

TEST_F(StoreTest, RecordReplacesTheEarlierResult) {
  auto store = Store::open(db());
  store->create_run(make_run("r1", "t"));
  CaseResult r = full_result("r1");
  store->record(r);
  r.outcome = Outcome::kMismatch;
  r.error = {};
  store->record(r);
  auto all = store->results("r1");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].outcome, Outcome::kMismatch);
  EXPECT_FALSE(all[0].error.signal.has_value());
}

TEST_F(StoreTest, RunsCreateGetListAndUpdate) {
  auto store = Store::open(db());
  store->create_run(make_run("old", "2024-01-01T00:00:00Z"));
  store->create_run(make_run("new", "2024-06-01T00:00:00Z"));
  store->create_run(make_run("mid", "2024-03-01T00:00:00Z"));

  auto runs = store->list_runs();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].id, "new");
  EXPECT_EQ(runs[1].id, "mid");
  EXPECT_EQ(runs[2].id, "old");

  auto got = store->get_run("mid");
  ASSERT_TRUE(got.has_value());
  model::RunInfo want = make_run("mid", "2024-03-01T00:00:00Z");
  EXPECT_EQ(got->suite, want.suite);
  EXPECT_EQ(got->state, "running");
  EXPECT_EQ(got->baseline, "cpu");
  EXPECT_EQ(got->options, want.options);
  EXPECT_EQ(got->environment, want.environment);
  EXPECT_EQ(got->finished_at, "");

  store->set_run_state("mid", "complete", "2024-03-01T01:00:00Z");
  json env = {{"host", "other"}, {"devices", json::array()}};
  store->set_environment("mid", env);
  got = store->get_run("mid");
  EXPECT_EQ(got->state, "complete");
  EXPECT_EQ(got->finished_at, "2024-03-01T01:00:00Z");
  EXPECT_EQ(got->environment, env);

  EXPECT_FALSE(store->get_run("nope").has_value());
  EXPECT_NE(fatal_message([&] { store->create_run(make_run("mid", "x")); }).find("already exists"),
            std::string::npos);
  EXPECT_NE(
      fatal_message([&] { store->set_run_state("nope", "complete", ""); }).find("no run nope in "),
      std::string::npos);
  EXPECT_NE(
      fatal_message([&] { store->set_environment("nope", json::object()); }).find("no run nope"),
      std::string::npos);
  EXPECT_NE(fatal_message([&] { store->add_plan("nope", {}, {}); }).find("no run nope"),
            std::string::npos);
}

TEST_F(StoreTest, PlanKeepsOrderAndRemainingSkipsRecordedPairs) {
  auto store = Store::open(db());
  store->create_run(make_run("r1", "t"));
  std::vector<CaseInfo> infos = {make_case("torch.sum", "a"), make_case("torch.cat", "b"),
                                 make_case("torch.lt", "c")};
  std::vector<CaseDevice> pairs;
  for (const auto& c : infos) {
    for (const char* d : {"cpu", "cuda:0"}) {
      pairs.emplace_back(c.id, d);
    }
  }
  store->add_plan("r1", infos, pairs);
  EXPECT_EQ(store->plan("r1"), pairs);
  EXPECT_EQ(store->remaining("r1"), pairs);

  // Record two pairs out of order.
  for (const auto& [case_id, device] : {pairs[3], pairs[0]}) {
    CaseResult r;
    r.run_id = "r1";
    r.info = infos[case_id == infos[0].id ? 0 : 1];
    r.device = device;
    r.outcome = Outcome::kPass;
    store->record(r);
  }
  std::vector<CaseDevice> want = {pairs[1], pairs[2], pairs[4], pairs[5]};
  EXPECT_EQ(store->remaining("r1"), want);

  // Results come back in plan order, not recording order.
  auto results = store->results("r1");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].info.id, pairs[0].first);
  EXPECT_EQ(results[0].device, pairs[0].second);
  EXPECT_EQ(results[1].info.id, pairs[3].first);
  EXPECT_EQ(results[1].device, pairs[3].second);

  // A second add_plan keeps existing pairs in place and appends new ones.
  CaseInfo extra = make_case("torch.fliplr", "d");
  store->add_plan("r1", {extra}, {pairs[0], {extra.id, "cpu"}});
  auto plan = store->plan("r1");
  ASSERT_EQ(plan.size(), 7u);
  EXPECT_EQ(plan[0], pairs[0]);
  EXPECT_EQ(plan[6], (CaseDevice{extra.id, "cpu"}));

  auto cases = store->cases("r1");
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].id, "torch/torch.cat/b");  // by case id
  expect_same_info(cases[0], infos[1]);

  // Other runs do not leak in.
  store->create_run(make_run("r2", "t2"));
  EXPECT_TRUE(store->plan("r2").empty());
  EXPECT_TRUE(store->results("r2").empty());
  EXPECT_TRUE(store->remaining("r2").empty());
}

TEST_F(StoreTest, RecordWithoutPlanKeepsCaseInfoAndSortsLast) {
  auto store = Store::open(db());
  store->create_run(make_run("r1", "t"));
  CaseInfo planned = make_case("torch.sum", "a");
  store->add_plan("r1", {planned}, {{planned.id, "cpu"}});
  CaseResult stray = full_result("r1");
  store->record(stray);
  CaseResult r;
  r.run_id = "r1";
  r.info = planned;
  r.device = "cpu";
  r.outcome = Outcome::kPass;
  store->record(r);
  auto all = store->results("r1");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].info.id, planned.id);
  expect_same(stray, all[1]);
}

TEST_F(StoreTest, OutcomeChangesAreLoggedInOrder) {
  auto store = Store::open(db());
  store->create_run(make_run("r1", "t"));
  store->record_change("r1", "torch/torch.sum/a", "cuda:0", Outcome::kPass, Outcome::kMismatch,
                       "max abs err 0.5 > atol 1e-5");
  store->record_change("r1", "torch/torch.cat/b", "cuda:0", Outcome::kPass, Outcome::kMismatch,
                       "shape differs");
  store->record_change("other", "x", "cpu", Outcome::kFail, Outcome::kPass, "");
  auto log = store->changes("r1");
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].case_id, "torch/torch.sum/a");
  EXPECT_EQ(log[0].device, "cuda:0");
  EXPECT_EQ(log[0].from, Outcome::kPass);
  EXPECT_EQ(log[0].to, Outcome::kMismatch);
  EXPECT_EQ(log[0].reason, "max abs err 0.5 > atol 1e-5");
  EXPECT_EQ(log[0].run_id, "r1");
  EXPECT_EQ(log[1].case_id, "torch/torch.cat/b");
  EXPECT_EQ(log[0].at.size(), std::string("2024-05-01T12:00:00.000Z").size()) << log[0].at;
  EXPECT_EQ(log[0].at.back(), 'Z');
}

TEST_F(StoreTest, ReopenAfterCloseKeepsData) {
  CaseResult full = full_result("r1");
  {
    auto store = Store::open(db());
    store->create_run(make_run("r1", "t"));
    store->add_plan("r1", {full.info}, {{full.info.id, "cuda:0"}, {full.info.id, "cpu"}});
    store->record(full);
    store->record_change("r1", full.info.id, "cuda:0", Outcome::kPass, Outcome::kCrash, "why");
  }
  auto store = Store::open(db());
  ASSERT_TRUE(store->get_run("r1").has_value());
  auto got = store->result("r1", full.info.id, "cuda:0");
  ASSERT_TRUE(got.has_value());
  expect_same(full, *got);
  EXPECT_EQ(store->remaining("r1"), (std::vector<CaseDevice>{{full.info.id, "cpu"}}));
  EXPECT_EQ(store->changes("r1").size(), 1u);
  EXPECT_EQ(store->schema_version(), model::kSchemaVersion);
}

TEST_F(StoreTest, GarbageFileIsRejectedWithAClearMessage) {
  fs::create_directories(db().parent_path());
  {
    std::ofstream out(db(), std::ios::binary);
    for (int i = 0; i < 4096; ++i) {
      out.put(static_cast<char>((i * 7919) & 0xff));
    }
  }
  std::string msg = fatal_message([&] { Store::open(db()); });
  EXPECT_EQ(msg, db().string() + " is not a MudJack results database (file is not a database)");
}

TEST_F(StoreTest, CorruptDatabaseIsRejected) {
  {
    auto store = Store::open(db());
    store->create_run(make_run("r1", "t"));
    std::vector<CaseInfo> infos;
    infos.reserve(200);
    for (int i = 0; i < 200; ++i) {
      infos.push_back(make_case("torch.f" + std::to_string(i), "v"));
    }
    store->add_plan("r1", infos, {});
  }
  // Closing the last connection checkpoints the WAL into the main file;
  // scribble over its pages past the header page.
  ASSERT_FALSE(fs::exists(db().string() + "-wal"));
  {
    std::fstream f(db(), std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(4096);
    for (int i = 0; i < 4 * 4096; ++i) {
      f.put(static_cast<char>((i * 31) & 0xff));
    }
  }
  std::string msg = fatal_message([&] { Store::open(db()); });
  EXPECT_EQ(msg.rfind(db().string() + " is not a MudJack results database (", 0), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST_F(StoreTest, OtherSqliteDatabaseIsRejected) {
  fs::create_directories(db().parent_path());
  raw_exec(db(), "CREATE TABLE photos (id INTEGER PRIMARY KEY)");
  std::string msg = fatal_message([&] { Store::open(db()); });
  EXPECT_EQ(msg, db().string() + " is not a MudJack results database (no meta table)");
}

TEST_F(StoreTest, NewerMajorSchemaIsRejected) {
  { Store::open(db()); }
  raw_exec(db(), "UPDATE meta SET value = '2.0' WHERE key = 'schema_version'");
  std::string msg = fatal_message([&] { Store::open(db()); });
  EXPECT_EQ(msg, db().string() + " has schema 2.0; this mudjack reads 1.x");
}

TEST_F(StoreTest, NewerMinorSchemaIsReadAsIs) {
  { Store::open(db())->create_run(make_run("r1", "t")); }
  raw_exec(db(), "UPDATE meta SET value = '1.9' WHERE key = 'schema_version'");
  auto store = Store::open(db());
  EXPECT_EQ(store->schema_version(), "1.9");  // never downgraded
  EXPECT_TRUE(store->get_run("r1").has_value());
}

TEST_F(StoreTest, UnreadableSchemaVersionIsRejected) {
  { Store::open(db()); }
  raw_exec(db(), "UPDATE meta SET value = 'one' WHERE key = 'schema_version'");
  std::string msg = fatal_message([&] { Store::open(db()); });
  EXPECT_EQ(msg, db().string() + " has an unreadable schema version 'one'");
}

TEST_F(StoreTest, UnwritableFolderIsRejected) {
  // A path under a regular file cannot be created, even by root.
  fs::path file = dir_ / "plain-file";
  std::ofstream(file) << "x";
  fs::path bad = file / "results" / "mudjack.db";
  std::string msg = fatal_message([&] { Store::open(bad); });
  EXPECT_EQ(msg.rfind("cannot create results folder " + (file / "results").string() + ": ", 0), 0u)
      << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST_F(StoreTest, DatabasePathThatIsAFolderIsRejected) {
  fs::create_directories(db());
  std::string msg = fatal_message([&] { Store::open(db()); });
  EXPECT_EQ(msg.rfind("cannot open results database " + db().string() + ": ", 0), 0u) << msg;
}

TEST_F(StoreTest, MigrationsApplyInOrderAndOnlyOnce) {
  { Store::open(db())->create_run(make_run("r1", "t")); }

  std::vector<Migration> steps = migrations();
  steps.push_back({"1.8",
                   {"ALTER TABLE results ADD COLUMN energy_j REAL",
                    "CREATE TABLE notes (run_id TEXT, text TEXT)"}});
  steps.push_back({"1.9", {"INSERT INTO notes VALUES ('r1', 'migrated')"}});
  {
    auto store = Store::open(db(), steps);
    EXPECT_EQ(store->schema_version(), "1.9");
    // Old data survives, and writes keep working with the added column.
    EXPECT_TRUE(store->get_run("r1").has_value());
    store->record(full_result("r1"));
    EXPECT_EQ(store->results("r1").size(), 1u);
  }
  EXPECT_EQ(raw_query(db(),
                      "SELECT count(*) FROM pragma_table_info('results') "
                      "WHERE name = 'energy_j'"),
            "1");
  // Reopening with the same list runs nothing again (the INSERT would
  // duplicate the note).
  { Store::open(db(), steps); }
  EXPECT_EQ(raw_query(db(), "SELECT count(*) FROM notes"), "1");
  // An older program (without 1.8 and 1.9) reads the 1.9 file.
  auto old = Store::open(db());
  EXPECT_EQ(old->schema_version(), "1.9");
  EXPECT_EQ(old->results("r1").size(), 1u);
}

// A database written by a 1.0 program (no work or metrics columns) is
// migrated to 1.1 on open: its results keep every field and read as no work,
// no metrics; new results carry both.
TEST_F(StoreTest, OneZeroDatabaseMigratesToOneOneKeepingResults) {
  CaseResult old = full_result("r1");
  old.work.reset();
  old.metrics.clear();
  {
    auto store = Store::open(db(), {migrations().front()});
    EXPECT_EQ(store->schema_version(), "1.0");
    store->create_run(make_run("r1", "t"));
  }
  // What a 1.0 program's add_plan() and record() wrote: the 1.0 columns only.
  raw_exec(db(),
           "INSERT INTO cases (run_id, case_id, framework, function, variant, dtype, shape, mode, "
           "compiler, params_json, requires_json, dims_json, note, successor, tags_json) VALUES "
           "('r1', '" +
               old.info.id + "', '" + old.info.framework + "', '" + old.info.function + "', '" +
               old.info.variant + "', '" + old.info.dtype +
               "', 's', 'eager', '', '{}', '{}', '[]', '', '', '[]')");
  raw_exec(db(), "INSERT INTO planned (run_id, case_id, device, seq) VALUES ('r1', '" +
                     old.info.id + "', 'cuda:0', 0)");
  raw_exec(db(),
           "INSERT INTO results (run_id, case_id, device, outcome, error_kind, error_message, "
           "error_stderr_tail, error_traceback, samples_json, calls_per_sample, compared_with, "
           "numeric_message, outputs_json, extra_json, started_at, finished_at, wall_s) VALUES "
           "('r1', '" +
               old.info.id +
               "', 'cuda:0', 'pass', '', '', '', '', '[1.5]', 1, '', "
               "'', '[]', '{}', 'a', 'b', 0.5)");
  auto store = Store::open(db());
  EXPECT_EQ(store->schema_version(), model::kSchemaVersion);
  auto got = store->result("r1", old.info.id, "cuda:0");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->outcome, Outcome::kPass);
  EXPECT_EQ(got->latency.samples_ns, (std::vector<double>{1.5}));
  EXPECT_FALSE(got->work.has_value());
  EXPECT_TRUE(got->metrics.empty());
  CaseResult fresh = full_result("r1");
  store->add_plan("r1", {fresh.info}, {{fresh.info.id, "cuda:0"}});  // the case row, now whole
  store->record(fresh);
  expect_same(fresh, *store->result("r1", fresh.info.id, "cuda:0"));
}

TEST_F(StoreTest, FailedMigrationRollsBackAndReports) {
  { Store::open(db()); }
  std::vector<Migration> steps = migrations();
  steps.push_back({"1.9", {"CREATE TABLE ok_table (x)", "THIS IS NOT SQL"}});
  std::string msg = fatal_message([&] { Store::open(db(), steps); });
  EXPECT_EQ(msg.rfind("results database " + db().string() + ": ", 0), 0u) << msg;
  EXPECT_EQ(raw_query(db(), "SELECT value FROM meta WHERE key='schema_version'"),
            model::kSchemaVersion);
  EXPECT_EQ(raw_query(db(), "SELECT count(*) FROM sqlite_master WHERE name='ok_table'"), "0");
}

TEST_F(StoreTest, RecordFromTwoThreadsConcurrently) {
  auto store = Store::open(db());
  store->create_run(make_run("r1", "t"));
  constexpr int kPerThread = 150;
  std::vector<CaseInfo> infos;
  std::vector<CaseDevice> pairs;
  for (int i = 0; i < kPerThread; ++i) {
    infos.push_back(make_case("torch.f" + std::to_string(i), "v"));
    pairs.emplace_back(infos.back().id, "cpu");
    pairs.emplace_back(infos.back().id, "cuda:0");
  }
  store->add_plan("r1", infos, pairs);

  const auto lane = [&](const std::string& device) {
    for (int i = 0; i < kPerThread; ++i) {
      CaseResult r = full_result("r1");
      r.info = infos[i];
      r.device = device;
      r.wall_s = i;
      store->record(r);
      if (i % 10 == 0) {
        store->record_change("r1", r.info.id, device, Outcome::kPass, Outcome::kCrash, "x");
        (void)store->remaining("r1");
      }
    }
  };
  std::thread a(lane, "cpu");
  std::thread b(lane, "cuda:0");
  a.join();
  b.join();

  auto all = store->results("r1");
  ASSERT_EQ(all.size(), pairs.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].info.id, pairs[i].first);
    EXPECT_EQ(all[i].device, pairs[i].second);
  }
  EXPECT_TRUE(store->remaining("r1").empty());
  EXPECT_EQ(store->changes("r1").size(), 2u * (kPerThread / 10));
}

TEST_F(StoreTest, TwoConnectionsToOneFileSeeEachOthersCommits) {
  auto a = Store::open(db());
  auto b = Store::open(db());
  a->create_run(make_run("r1", "t"));
  b->record(full_result("r1"));
  EXPECT_EQ(a->results("r1").size(), 1u);
}

// --- hardening: foreign files, read-only opens, bad rows, leases ----------

std::string file_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST_F(StoreTest, ForeignSqliteFileIsRefusedUnchanged) {
  fs::create_directories(db().parent_path());
  raw_exec(db(), "CREATE TABLE photos (id INTEGER PRIMARY KEY); INSERT INTO photos VALUES (7)");
  const std::string before = file_bytes(db());
  for (const auto& open : std::vector<std::function<void()>>{
           [&] { Store::open(db()); }, [&] { Store::open_read_only(db()); }}) {
    std::string msg = fatal_message(open);
    EXPECT_EQ(msg, db().string() + " is not a MudJack results database (no meta table)");
    EXPECT_EQ(file_bytes(db()), before) << "the foreign file was changed";
    EXPECT_FALSE(fs::exists(db().string() + "-wal"));
    EXPECT_EQ(raw_query(db(), "PRAGMA journal_mode"), "delete") << "switched to WAL";
  }
}

TEST_F(StoreTest, ReadOnlyOpenMigratesOnlyAPrivateCopy) {
  {
    auto store = Store::open(db(), {migrations().front()});
    store->create_run(make_run("r1", "t"));
  }
  const std::string before = file_bytes(db());
  auto store = Store::open_read_only(db());
  EXPECT_EQ(store->schema_version(), model::kSchemaVersion);
  ASSERT_TRUE(store->get_run("r1").has_value());
  EXPECT_TRUE(store->results("r1").empty());
  EXPECT_EQ(store->counts("r1").planned, 0u);
  EXPECT_EQ(file_bytes(db()), before);
  EXPECT_EQ(raw_query(db(), "SELECT value FROM meta WHERE key='schema_version'"), "1.0");
}

TEST_F(StoreTest, ReadOnlyOpenRefusesWrites) {
  { Store::open(db())->create_run(make_run("r1", "t")); }
  auto store = Store::open_read_only(db());
  EXPECT_TRUE(store->get_run("r1").has_value());
  std::string msg = fatal_message([&] { store->create_run(make_run("r2", "t")); });
  EXPECT_NE(msg.find("readonly"), std::string::npos) << msg;
  EXPECT_FALSE(Store::open(db())->get_run("r2").has_value());
}

// Where SQLite cannot make the WAL's -shm file (a read-only folder; here a
// folder in its way, which stops root too), the file is read as immutable.
TEST_F(StoreTest, ReadOnlyOpenReadsWhereNoShmFileCanBeMade) {
  {
    auto store = Store::open(db());
    store->create_run(make_run("r1", "t"));
    store->record(full_result("r1"));
  }
  ASSERT_FALSE(fs::exists(db().string() + "-shm"));
  fs::create_directories(db().string() + "-shm");
  auto store = Store::open_read_only(db());
  ASSERT_TRUE(store->get_run("r1").has_value());
  EXPECT_EQ(store->results("r1").size(), 1u);
  EXPECT_EQ(store->list_runs().size(), 1u);
}

TEST_F(StoreTest, ListRunsLeavesOutABadRowAndNamesIt) {
  {
    auto store = Store::open(db());
    store->create_run(make_run("r1", "2024-01-01T00:00:00Z"));
    store->create_run(make_run("r2", "2024-01-02T00:00:00Z"));
    store->create_run(make_run("r3", "2024-01-03T00:00:00Z"));
    store->add_plan("r2", {make_case("torch.sum", "a")}, {{"torch/torch.sum/a", "cpu"}});
  }
  raw_exec(db(), "UPDATE runs SET options_json = '{not json' WHERE id = 'r2'");
  raw_exec(db(),
           "INSERT INTO results (run_id, case_id, device, outcome, error_kind, "
           "error_message, error_stderr_tail, error_traceback, samples_json, "
           "calls_per_sample, compared_with, numeric_message, outputs_json, extra_json, "
           "started_at, finished_at, wall_s) VALUES ('r3', 'x', 'cpu', 'exploded', '', '', "
           "'', '', '[]', 1, '', '', '[]', '{}', '', '', 0)");
  auto store = Store::open_read_only(db());
  std::vector<BadRow> bad;
  auto runs = store->list_runs(&bad);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].id, "r3");
  EXPECT_EQ(runs[1].id, "r1");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].run_id, "r2");
  EXPECT_NE(bad[0].problem.find("not valid JSON"), std::string::npos) << bad[0].problem;
  EXPECT_EQ(bad[0].problem.find('\n'), std::string::npos);
  EXPECT_EQ(store->list_runs().size(), 2u);
  // Counting needs no result to parse: r3's bad outcome does not stop it.
  EXPECT_EQ(store->counts("r3").results, 1u);
  EXPECT_EQ(store->counts("r2").planned, 1u);
}

TEST_F(StoreTest, StillAtPathSeesADeletedOrReplacedFile) {
  auto store = Store::open(db());
  EXPECT_TRUE(store->still_at_path());
  fs::remove_all(db().parent_path());
  store->create_run(make_run("r1", "t"));  // SQLite writes on to the unlinked file
  EXPECT_FALSE(store->still_at_path());
  auto other = Store::open(db());  // a new file at the same path
  EXPECT_TRUE(other->still_at_path());
  EXPECT_FALSE(store->still_at_path());
}

Lease lease_of(const std::string& run, const std::string& host, int64_t pid) {
  Lease l;
  l.run_id = run;
  l.host = host;
  l.pid = pid;
  l.process_start = "boot:1";
  l.acquired_at = "2026-01-01T00:00:00Z";
  l.heartbeat_at = l.acquired_at;
  l.heartbeat_unix_ms = 1000;
  return l;
}

TEST_F(StoreTest, LeaseIsExclusiveUntilStaleOrReleased) {
  auto store = Store::open(db());
  EXPECT_EQ(raw_query(db(), "SELECT count(*) FROM sqlite_master WHERE name = 'leases'"), "1");
  const auto never = [](const Lease&) { return false; };
  const auto always = [](const Lease&) { return true; };
  Lease a = lease_of("r1", "host-a", 11);
  Lease b = lease_of("r1", "host-b", 22);
  EXPECT_FALSE(store->acquire_lease(a, never).has_value());
  auto holder = store->acquire_lease(b, never);
  ASSERT_TRUE(holder.has_value());
  EXPECT_EQ(holder->host, "host-a");
  EXPECT_EQ(holder->pid, 11);
  EXPECT_FALSE(store->acquire_lease(lease_of("r2", "host-b", 22), never).has_value())
      << "leases are per run";

  a.heartbeat_unix_ms = 5000;
  EXPECT_TRUE(store->renew_lease(a));
  EXPECT_EQ(store->lease("r1")->heartbeat_unix_ms, 5000);
  EXPECT_FALSE(store->renew_lease(b));

  EXPECT_FALSE(store->acquire_lease(b, always).has_value()) << "a stale lease is taken over";
  EXPECT_FALSE(store->renew_lease(a)) << "the old owner learns it at its next renewal";
  store->release_lease(a);  // not a's any more: no effect
  EXPECT_EQ(store->lease("r1")->host, "host-b");
  store->release_lease(b);
  EXPECT_FALSE(store->lease("r1").has_value());
}

}  // namespace
}  // namespace mudjack::store
