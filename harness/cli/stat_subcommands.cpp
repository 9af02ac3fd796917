// `sdcbench stat` and `sdcbench delta-crit` (subcommands.hpp): the options
// of each test and the checks that a test gets only its own; the tests are
// the services' (harness/services/: stat_tests.hpp, feature_value.hpp (003),
// consistency_check.hpp (002)), on files read by file_commands.hpp.
#include "harness/cli/subcommands.hpp"

#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "foundation/errors.hpp"
#include "harness/cli/file_commands.hpp"
#include "harness/services/stat_tests.hpp"

namespace sdc {
namespace {

struct stat_args {
  std::string name, file, losses, grads, variant = "mindspore";
  std::vector<std::string> params;
  double tau = 0, alpha = 0;
  int64_t B = 0, seed = 0;
  CLI::Option *o_param = nullptr, *o_variant = nullptr, *o_losses = nullptr, *o_grads = nullptr;
  CLI::Option *o_tau = nullptr, *o_alpha = nullptr, *o_B = nullptr, *o_seed = nullptr;
  bool any_test_option() const { return o_tau->count() || o_alpha->count() || o_B->count() || o_seed->count(); }
};

// K=V pairs of --param, each key once.
std::map<std::string, std::string> key_values(const std::vector<std::string>& params) {
  std::map<std::string, std::string> kv;
  for (const auto& p : params) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0) throw input_error("--param", p, "expected K=V");
    if (!kv.emplace(p.substr(0, eq), p.substr(eq + 1)).second) throw input_error("--param", p.substr(0, eq), "given twice");
  }
  return kv;
}

int run_stat_args(const stat_args& a) {
  const std::string cmd = "stat " + a.name;
  if (a.name == "consistency") {
    if (!a.file.empty() || a.o_param->count() || a.o_variant->count() || a.any_test_option())
      throw input_error("stat consistency", "options", "takes --losses L and --grads G only");
    if (!a.o_losses->count() || !a.o_grads->count()) throw input_error("stat consistency", "options", "expected --losses L and --grads G");
    std::cout << consistency_file_record(a.losses, a.grads).dump(1) << "\n";
    return 0;
  }
  if (a.o_losses->count() || a.o_grads->count()) throw input_error(cmd, "--losses/--grads", "only `stat consistency` takes them");
  if (a.file.empty()) throw input_error(cmd, "FILE", "expected a file of values");
  if (a.o_variant->count() && a.name != "feature_value") throw input_error(cmd, "--variant", "only `stat feature_value` takes it");
  if (a.name == "feature_value" || a.name == "npu_asd") {
    if (a.any_test_option()) throw input_error(cmd, "options", "takes --param K=V (and feature_value --variant) only");
    const auto kv = key_values(a.params);
    const auto j = a.name == "npu_asd" ? npu_asd_file_record(a.file, kv) : feature_value_file_record(a.file, a.variant, kv);
    std::cout << j.dump(1) << "\n";
    return 0;
  }
  if (a.o_param->count()) throw input_error(cmd, "--param", "only `stat feature_value` and `stat npu_asd` take it");
  stat_options opt;
  if (a.o_tau->count()) opt.tau = a.tau;
  if (a.o_alpha->count()) opt.alpha = a.alpha;
  if (a.o_B->count()) opt.B = a.B;
  if (a.o_seed->count()) opt.seed = a.seed;
  std::cout << stat_file_record(a.name, a.file, opt).dump(1) << "\n";
  return 0;
}

}  // namespace

subcommand add_stat_subcommand(CLI::App& app) {
  auto a = std::make_shared<stat_args>();
  auto* stat = app.add_subcommand("stat", "run one statistical test (000) on your values: .npy or a text file of numbers; prints JSON");
  stat->add_option("NAME", a->name,
                   "folding, w1, folding_w1, robust_z, dip, silverman, uu_test; feature_value, npu_asd (003: max g^2 per step, "
                   "feature_value also steps x parameters); "
                   "consistency (002: --losses, --grads)")->required();
  stat->add_option("FILE", a->file, "values (e.g. log gradient norms; feature values)");
  a->o_param = stat->add_option("--param", a->params, "feature_value: K=V (upper_thresh1, upper_thresh2, grad_sample_interval, cooldown, "
                              "strikes_num, strikes_window, seconds_per_step); npu_asd: thresh_l1, thresh_l2, beta1");
  a->o_variant = stat->add_option("--variant", a->variant, "feature_value: mindspore (default) or torch_npu");
  a->o_losses = stat->add_option("--losses", a->losses, "consistency: one loss per rank (.npy or text)");
  a->o_grads = stat->add_option("--grads", a->grads, "consistency: ranks x P .npy of pre-all-reduce gradients");
  a->o_tau = stat->add_option("--tau", a->tau, "threshold of w1, folding_w1 (W1 > tau) and robust_z (z > tau; default 5)");
  a->o_alpha = stat->add_option("--alpha", a->alpha, "level of folding, folding_w1, dip, silverman, uu_test (their suite defaults)");
  a->o_B = stat->add_option("--B", a->B, "silverman: bootstrap samples (default 100, as in suites)");
  a->o_seed = stat->add_option("--seed", a->seed, "silverman: bootstrap seed (default 0)");
  return {stat, [a] { return run_stat_args(*a); }};
}

subcommand add_delta_crit_subcommand(CLI::App& app) {
  struct args {
    double sigma = 1.0, p = 1e-10;
    int bits = 8;
  };
  auto a = std::make_shared<args>();
  auto* dcrit = app.add_subcommand("delta-crit", "Theorem 1 / Appendix B.2 of 000: the critical shift Delta_crit and its exponent bit");
  dcrit->add_option("--sigma", a->sigma, "sigma of log2|X| (Table 3)")->required();
  dcrit->add_option("--p", a->p, "probability of the flip (default 1e-10)");
  dcrit->add_option("--exponent-bits", a->bits, "exponent width n (8 for bf16/fp32; default 8)");
  return {dcrit, [a] {
            std::cout << to_json(run_delta_crit(a->sigma, a->p, a->bits)).dump(1) << "\n";
            return 0;
          }};
}

}  // namespace sdc
