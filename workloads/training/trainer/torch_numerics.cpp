#include "workloads/training/trainer/torch_numerics.hpp"

#include <ATen/Context.h>
#include <ATen/Version.h>
#include <torch/version.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace sdc::train {
namespace {

constexpr const char* k_pinned = "avx2";

// The environment's value that the pin replaced (empty: none, or the same).
std::string& overridden() {
  static std::string v;
  return v;
}

// Before main(): ATen reads its capability from the environment once, at its
// first kernel call. Only on CPUs with AVX2 and FMA (ATen's avx2 kernels would
// fault elsewhere). A different value in the environment is replaced, and
// said once: training cells are defined at the pinned kernels.
[[maybe_unused]] const bool pinned = [] {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    const char* env = std::getenv("ATEN_CPU_CAPABILITY");
    if (env && std::strcmp(env, k_pinned) != 0) {
      overridden() = env;
      std::fprintf(stderr, "sdcbench: ATEN_CPU_CAPABILITY=%s replaced by %s: training runs ATen's %s kernels on every CPU "
                           "(METHODOLOGY.md, \"Same bits on every CPU\")\n", env, k_pinned, k_pinned);
    }
    setenv("ATEN_CPU_CAPABILITY", k_pinned, 1);
  }
  at::globalContext().setUserEnabledMkldnn(false);
  return true;
}();

// "AVX2" from show_config()'s "CPU capability usage: AVX2" line (libtorch 1.13
// exports no other way to read it).
std::string capability_in_use() {
  const std::string cfg = at::show_config();
  const std::string key = "CPU capability usage: ";
  const auto at = cfg.find(key);
  if (at == std::string::npos) return "unknown";
  const auto end = cfg.find('\n', at);
  return cfg.substr(at + key.size(), end == std::string::npos ? std::string::npos : end - at - key.size());
}

}  // namespace

nlohmann::json torch_numerics() {
  const std::string cap = capability_in_use();
  return {{"libtorch", TORCH_VERSION},
          {"aten_cpu_capability", cap},
          // Cells are the same on every CPU only at the pinned capability
          // (false on a CPU without AVX2 and FMA).
          {"aten_capability_pinned", cap == "AVX2"},
          {"aten_cpu_capability_replaced", overridden().empty() ? nlohmann::json(nullptr) : nlohmann::json(overridden())},
          {"libtorch_onednn", at::globalContext().userEnabledMkldnn()},
          {"training_gemm", "sdcbench fixed-order, sequential fp32 accumulation"}};
}

}  // namespace sdc::train
