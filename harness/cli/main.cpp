// sdcbench: the command-line front end. Every command that reads user input
// ends with exit code 2 and a message naming the file, field and expectation
// when the input is bad; `validate` exits 1 when a result set is invalid.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <thread>

#include "harness/campaign/engine.hpp"
#include "harness/cli/demo003_command.hpp"
#include "harness/cli/plan_command.hpp"
#include "harness/cli/report_command.hpp"
#include "harness/cli/reproduce_command.hpp"
#include "harness/cli/subcommands.hpp"
#include "harness/cli/train_command.hpp"
#include "harness/campaign/suite.hpp"
#include "foundation/errors.hpp"
#include "harness/results/brief_summary.hpp"
#include "harness/results/report.hpp"
#include "harness/results/result_set.hpp"
#include "harness/results/result_set_reader.hpp"
#include "harness/cli/calibrate_command.hpp"
#include "harness/cli/file_commands.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "foundation/parallel/heap_policy.hpp"

namespace {

using json = nlohmann::json;

}  // namespace

int main(int argc, char** argv) {
  sdc::keep_freed_memory();  // training steps reuse their large buffers (foundation/parallel/heap_policy.hpp)
  CLI::App app{"sdcbench: fault-injection campaigns for silent-data-corruption detectors"};
  app.require_subcommand(1);
  std::vector<std::string> args(argv, argv + argc);

  sdc::run_options ro;
  ro.argv = args;
  ro.threads = int(std::max(1u, std::thread::hardware_concurrency()));
  std::string shard = "0/1";
  bool quiet = false;
  auto* run = app.add_subcommand("run", "run a suite's campaign and write a result set");
  run->add_option("suite", ro.suite_path, "suite JSON file")->required();
  run->add_option("--scale", ro.scale, "preset: smoke (CI-sized) or full (paper-sized)")
      ->check(CLI::IsMember({"smoke", "full"}));
  run->add_option("--threads", ro.threads, "worker threads (results do not depend on it)")->check(CLI::PositiveNumber);
  run->add_option("--out", ro.out, "result file (default out/SUITE-SCALE.json)");
  run->add_flag("--resume", ro.resume, "continue an interrupted run from its journal");
  run->add_option("--shard", shard, "run slice I of N (I/N); merge the slices with `merge`");
  run->add_option("--axis", ro.axis_overrides, "override an axis: NAME=V1,V2 (A:B is an integer range)")->take_all();
  run->add_flag("--quiet", quiet, "no progress line, no table");
  run->add_option("--stop-after-cells", ro.stop_after_cells, "testing: exit abruptly after journaling N cells")
      ->group("");

  std::string show_file;
  auto* show = app.add_subcommand("show", "print a result set as a table (paper vs measured where published)");
  show->add_option("result", show_file, "result JSON")->required();
  bool show_brief = false;
  show->add_flag("--brief", show_brief, "one line per detector, pooled over its cells");

  std::vector<std::string> cmp_files;
  std::vector<std::string> cmp_dets;
  double alpha = 0.05;
  auto* compare = app.add_subcommand("compare", "compare two result sets, or two detectors of one (--detectors)");
  compare->add_option("results", cmp_files, "one or two result JSON files")->required()->expected(1, 2);
  compare->add_option("--detectors", cmp_dets, "two detector labels of one result set")->expected(2)->delimiter(',');
  compare->add_option("--alpha", alpha, "family-wise significance level");
  std::string cmp_report;
  compare->add_option("--report", cmp_report, "also write an HTML report of both sets side by side into this directory");
  std::vector<std::string> report_files;
  std::string report_out, report_title = "sdcbench report";
  auto* report = app.add_subcommand("report", "write an HTML report with charts (DIR/index.html, DIR/figures/*.svg, DIR/specs/*.vl.json)");
  report->add_option("results", report_files, "result JSON files")->required();
  report->add_option("--out", report_out, "output directory")->required();
  report->add_option("--title", report_title, "the page's title");

  std::vector<std::string> merge_in;
  std::string merge_out;
  auto* merge = app.add_subcommand("merge", "merge shard result sets into what an unsharded run writes");
  merge->add_option("shards", merge_in, "shard result files")->required();
  merge->add_option("--out", merge_out, "merged result file")->required();

  std::string migrate_in, migrate_out;
  auto* migrate = app.add_subcommand("migrate", "rewrite a version 1, 2 or 3 result set as version 4 (sdcbench.result/4)");
  migrate->add_option("result", migrate_in, "version 1, 2 or 3 result JSON")->required();
  migrate->add_option("--out", migrate_out, "version 4 result file to write")->required();

  std::vector<std::string> validate_files;
  auto* validate = app.add_subcommand("validate", "check result sets against the schema and their own arithmetic");
  validate->add_option("results", validate_files, "result JSON files")->required();
  bool reproduce = false;
  sdc::reproduce_options rep;
  rep.argv = args;
  rep.threads = ro.threads;
  validate->add_flag("--reproduce", reproduce, "also re-run each set's suite (recorded seed, scale, axes, shard) and compare the cells");
  auto* o_rep_suite = validate->add_option("--suite", rep.suite_override, "with --reproduce and one file: the suite file to re-run (its sha256 must match)");
  auto* o_rep_out = validate->add_option("--out-dir", rep.out_dir, "with --reproduce: where the re-runs are written (default out/reproduce)");
  auto* o_rep_threads = validate->add_option("--threads", rep.threads, "with --reproduce: worker threads (results do not depend on it)")
      ->check(CLI::PositiveNumber);

  sdc::calibration_request cal;
  std::string cal_out;
  cal.threads = ro.threads;
  auto* calibrate = app.add_subcommand("calibrate", "measure e_max for V-ABFT (001 section 3.6 protocol)");
  calibrate->add_option("--dtype", cal.dtypes, "dtypes (block-scaled ones: offline, sequential only)")
      ->delimiter(',')
      ->check(CLI::IsMember({"fp64", "fp32", "bf16", "fp16", "mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3",
                             "mxfp4_e2m1", "mxint8", "nvfp4"}));
  calibrate->add_option("--sizes", cal.sizes, "square sizes N")->delimiter(',')->check(CLI::PositiveNumber);
  calibrate->add_option("--accumulation", cal.accumulations, "accumulation orders")->delimiter(';');
  calibrate->add_option("--point", cal.points, "verification points")->delimiter(',')->check(CLI::IsMember({"offline", "fused"}));
  calibrate->add_option("--trials", cal.trials, "trials per size")->check(CLI::PositiveNumber);
  calibrate->add_option("--seed", cal.seed, "seed");
  calibrate->add_option("--threads", cal.threads, "threads")->check(CLI::PositiveNumber);
  calibrate->add_option("--margin", cal.margin, "safety margin on the maximum (0.2 = 20 %)");
  calibrate->add_option("--out", cal_out, "calibration JSON to write")->required();

  sdc::check_gemm_files chk;
  auto* check = app.add_subcommand("check-gemm", "run one detector on your own matrices (.npy) and print per-check JSON");
  check->add_option("--a", chk.a_path, "A (M x K) .npy")->required();
  check->add_option("--b", chk.b_path, "B (K x N) .npy")->required();
  check->add_option("--c", chk.c_path, "C (M x N) .npy; computed when absent");
  check->add_option("--dtype", chk.dtype, "bf16, fp16, fp32 or fp64 (inputs are rounded to it), or int8 (A u8, B s8, C int32; 004)");
  check->add_option("--detector", chk.detector, "NAME[:param=value,...] (default vabft; abft_int8 for int8)");
  check->add_option("--accumulation", chk.accumulation, "order used to compute C when it is not given");

  const sdc::subcommand stat = sdc::add_stat_subcommand(app);
  const sdc::subcommand dcrit = sdc::add_delta_crit_subcommand(app);

  sdc::train_options tr;
  tr.argv = args;
  auto* train = app.add_subcommand("train", "run one data-parallel training job (training workload) and write its per-step records");
  train->add_option("config", tr.config_path, "training configuration JSON (see suites/README.md), or a training suite (its first config)")->required();
  train->add_option("--out", tr.out, "records file (sdcbench.train/1 JSON)");
  train->add_flag("--quiet", tr.quiet, "no per-step lines");

  sdc::demo003_options demo;
  demo.argv = args;
  auto* demo003 = app.add_subcommand("demo003", "003's two demo scripts as written (silent_check.py, silent_detect.py): our log lines beside the paper's");
  demo003->add_option("SCRIPT", demo.script, "silent_check (4 devices, NPU_ASD_ENABLE) or silent_detect (8 devices, MS_NPU_ASD_CONFIG)")
      ->required()->check(CLI::IsMember({"silent_check", "silent_detect"}));
  demo003->add_option("--npu-asd-enable", demo.npu_asd_enable, "silent_check: NPU_ASD_ENABLE 1 (log), 2 (stop), 3 (stop, INFO lines); default 1");
  demo003->add_option("--init-seed", demo.init_seed, "the first initialization (our stream for MindSpore's initializers; default 1)");
  demo003->add_option("--seeds", demo.seeds, "runs, one per initialization, for the facts' intervals (default 1)");
  demo003->add_option("--steps", demo.steps, "steps (default 0: the script's own, 20 and 200)");
  demo003->add_option("--out", demo.out, "JSON of the first run's lines and every run's facts (sdcbench.demo003/1)");

  const sdc::subcommand list = sdc::add_list_subcommand(app);
  const sdc::subcommand plan = sdc::add_plan_subcommand(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  try {
    if (*run) {
      if (std::sscanf(shard.c_str(), "%d/%d", &ro.shard_index, &ro.shard_count) != 2 ||
          fmt::format("{}/{}", ro.shard_index, ro.shard_count) != shard)
        throw sdc::input_error("--shard", shard, "expected I/N, e.g. 0/2");
      if (ro.out.empty()) {
        const auto s = sdc::load_suite(ro.suite_path, ro.scale, ro.axis_overrides);
        std::filesystem::create_directories("out");
        ro.out = fmt::format("out/{}-{}{}.json", s.name, ro.scale,
                             ro.shard_count > 1 ? fmt::format("-shard{}of{}", ro.shard_index, ro.shard_count) : "");
      }
      ro.progress = !quiet && ::isatty(2);
      const json r = sdc::run_campaign(ro);
      if (r.is_null()) return 0;  // a process of an MPI job other than rank 0: rank 0 writes and prints
      if (!quiet) std::cout << sdc::show_table(sdc::parse_result_set(r, ro.out));
      std::cout << "wrote " << ro.out << "\n";
      return 0;
    }
    if (*show) {
      const sdc::result_set r = sdc::load_result_set(show_file);
      std::cout << (show_brief ? sdc::brief_table(r) : sdc::show_table(r));
      return 0;
    }
    if (*compare) {
      std::vector<sdc::result_set> rs;
      for (const auto& f : cmp_files) rs.push_back(sdc::load_result_set(f));
      sdc::compare_summary s;
      if (!cmp_dets.empty()) {
        if (rs.size() != 1) throw sdc::input_error("--detectors", "results", "compares two detectors of one result set: give one file");
        s = sdc::compare_detectors(rs[0], cmp_dets[0], cmp_dets[1], alpha);
      } else {
        if (rs.size() != 2) throw sdc::input_error("compare", "results", "expected two result files (or one with --detectors)");
        s = sdc::compare_results(rs[0], rs[1], alpha);
      }
      std::cout << s.table;
      if (!cmp_report.empty()) {
        if (rs.size() != 2) throw sdc::input_error("--report", cmp_report, "a report compares two result files (not --detectors)");
        const size_t n = sdc::write_compare_report(rs[0], cmp_files[0], rs[1], cmp_files[1], s, alpha, cmp_report);
        std::cout << fmt::format("wrote {}/index.html ({} charts)\n", cmp_report, n);
      }
      return 0;
    }
    if (*report) {
      const size_t n = sdc::run_report(report_files, report_out, report_title);
      std::cout << fmt::format("wrote {}/index.html ({} charts; figures in {}/figures)\n", report_out, n, report_out);
      return 0;
    }
    if (*merge) {
      std::vector<json> rs;
      for (const auto& f : merge_in) rs.push_back(sdc::read_json_file(f));
      const json m = sdc::merge_result_sets(rs, merge_in, args);
      sdc::write_json_atomic(merge_out, m);
      std::cout << "wrote " << merge_out << "\n";
      return 0;
    }
    if (*migrate) {
      const json m = sdc::migrate_result_set(sdc::read_json_file(migrate_in), migrate_in);  // validated, before and after
      sdc::write_json_atomic(migrate_out, m);
      std::cout << "wrote " << migrate_out << " (" << sdc::k_result_schema << ")\n";
      return 0;
    }
    if (*validate) {
      if (!reproduce && (o_rep_suite->count() || o_rep_out->count() || o_rep_threads->count()))
        throw sdc::input_error("validate", "options", "--suite, --out-dir and --threads only with --reproduce");
      if (o_rep_suite->count() && validate_files.size() != 1)
        throw sdc::input_error("validate", "--suite", "one result file with --suite");
      int bad = 0;
      for (const auto& f : validate_files) {
        const json r = sdc::read_json_file(f);
        const auto problems = sdc::validate_result_set(r);
        if (problems.empty()) {
          std::cout << f << ": valid " << sdc::schema_of(r) << "\n";
        } else {
          ++bad;
          for (const auto& p : problems) std::cerr << f << ": " << p << "\n";
          continue;
        }
        if (!reproduce) continue;
        const auto rr = sdc::reproduce_result_set(f, r, rep);
        std::cout << rr.text << std::flush;
        bad += rr.identical ? 0 : 1;
      }
      return bad ? 1 : 0;
    }
    if (*list.app) return list.run();
    if (*plan.app) return plan.run();
    if (*demo003) {
      if (demo003->count("--npu-asd-enable") && demo.script != "silent_check")
        throw sdc::input_error("--npu-asd-enable", std::to_string(demo.npu_asd_enable), "silent_check only (silent_detect runs MS_NPU_ASD_CONFIG)");
      return sdc::run_demo003(demo);
    }
#ifdef SDCBENCH_WITH_TRAINING
    if (*train) return sdc::run_train(tr);
#else
    if (*train) throw sdc::input_error("train", tr.config_path, "a build with the training workload (SDCBENCH_ENABLE_TRAINING=ON)");
#endif
    if (*stat.app) return stat.run();
    if (*dcrit.app) return dcrit.run();
    if (*check) {
      std::cout << sdc::check_gemm_file_record(chk).dump(1) << "\n";
      return 0;
    }
    if (*calibrate) return sdc::run_calibrate(cal, cal_out);
  } catch (const sdc::quiet_exit& q) {
    return q.code;
  } catch (const sdc::input_error& e) {
    std::cerr << "sdcbench: error: " << e.what() << "\n";
    return 2;
  } catch (const sdc::value_error& e) {
    std::cerr << "sdcbench: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "sdcbench: internal error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
